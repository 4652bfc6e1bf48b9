// The real servers the integration tests run (a squid proxy, a SOCKS5 server, Redis and its
// redis-cli, which joins nodes into a cluster, nginx for
// HTTP/2 and WebSocket proxying, openssl for squid's password file, Python's websockets
// package for an independent WebSocket server, and nghttpd, h2o and Python's h2 package as
// independent HTTP/2 servers), how to find them, and — when run as a script before the tests —
// installing the missing ones: as root with apt-get it installs them non-interactively, saying so
// on stderr; otherwise it stops at once, naming the exact command to run.
//
// CONDUIT_TOOL_DIRS (directories separated by ':') replaces the places searched for the binaries;
// the tests of this script use it to play a machine where they are absent.
import { accessSync, constants } from 'node:fs'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { pathToFileURL } from 'node:url'

/**
 * Debian package and the binary it provides, for each server the tests start; a Python library
 * names the module that binary (the interpreter) must be able to import.
 */
export const TEST_SERVER_PACKAGES = [
  { debianPackage: 'squid', binary: 'squid' },
  { debianPackage: 'microsocks', binary: 'microsocks' },
  { debianPackage: 'redis-server', binary: 'redis-server' },
  { debianPackage: 'redis-tools', binary: 'redis-cli' },
  { debianPackage: 'nginx', binary: 'nginx' },
  { debianPackage: 'openssl', binary: 'openssl' },
  { debianPackage: 'python3-websockets', binary: 'python3', pythonModule: 'websockets' },
  { debianPackage: 'nghttp2-server', binary: 'nghttpd' },
  { debianPackage: 'h2o', binary: 'h2o' },
  { debianPackage: 'python3-h2', binary: 'python3', pythonModule: 'h2' }
]

// Debian installs squid in /usr/sbin, which is not on a normal user's PATH; its Python is /usr/bin's.
const SBIN_DIRS = ['/usr/local/sbin', '/usr/sbin', '/sbin', '/usr/bin']
const APT_TIMEOUT_MS = 15 * 60_000

/** The directories searched for binaries, in order. */
export function toolDirs (env = process.env) {
  const dirs = env.CONDUIT_TOOL_DIRS !== undefined
    ? env.CONDUIT_TOOL_DIRS.split(path.delimiter)
    : [...(env.PATH ?? '').split(path.delimiter), ...SBIN_DIRS]
  return dirs.filter((dir) => dir !== '')
}

/** The path of executable `name` in {@link toolDirs}, or undefined. */
export function findTool (name, env = process.env) {
  for (const dir of toolDirs(env)) {
    const file = path.join(dir, name)
    try {
      accessSync(file, constants.X_OK)
      return file
    } catch {}
  }
  return undefined
}

/** The apt-get command line that installs `packages`. */
export function aptInstallCommand (packages) {
  return `apt-get install -y --no-install-recommends ${packages.join(' ')}`
}

/**
 * The first interpreter named `binary` in {@link toolDirs} that can import `module`, or undefined.
 * Every candidate is tried: a Python version manager's shim early on PATH does not see the
 * libraries Debian installs for the system's own interpreter.
 */
export function findPythonWith (module, env = process.env, binary = 'python3') {
  for (const dir of toolDirs(env)) {
    const file = path.join(dir, binary)
    try {
      accessSync(file, constants.X_OK)
    } catch {
      continue
    }
    if (spawnSync(file, ['-c', `import ${module}`], { stdio: 'ignore', timeout: 30_000 }).status === 0) return file
  }
  return undefined
}

/** Whether the package is usable: its binary is there and, for a Python library, imports it. */
function installed ({ binary, pythonModule }, env) {
  if (pythonModule !== undefined) return findPythonWith(pythonModule, env, binary) !== undefined
  return findTool(binary, env) !== undefined
}

function missingPackages (env) {
  return TEST_SERVER_PACKAGES.filter((entry) => !installed(entry, env)).map(({ debianPackage }) => debianPackage)
}

function runApt (apt, args, env) {
  const result = spawnSync(apt, args, {
    env: { ...env, DEBIAN_FRONTEND: 'noninteractive' },
    stdio: ['ignore', process.stderr, process.stderr],
    timeout: APT_TIMEOUT_MS
  })
  return result.status === 0
}

/**
 * Installs what is missing when it can; returns the process exit code. `uid` and `report` (where
 * messages go) are parameters so the root path can be tested without being root.
 */
export function provision (env = process.env, uid = process.getuid?.() ?? -1, report = (text) => process.stderr.write(text)) {
  const missing = missingPackages(env)
  if (missing.length === 0) return 0
  const install = aptInstallCommand(missing)
  const apt = findTool('apt-get', env)
  if (uid !== 0 || apt === undefined) {
    const how = apt === undefined
      ? `apt-get is not available here: install the packages ${missing.join(', ')} with this system's package manager (on Debian or Ubuntu: apt-get update && ${install})`
      : `run as root: sudo apt-get update && sudo ${install}`
    report(`The integration tests need real servers that are not installed (${missing.join(', ')}).\n${how}\n`)
    return 1
  }
  report(`Installing the servers the integration tests need (${missing.join(', ')}): apt-get update && ${install}\n`)
  if (!runApt(apt, ['update', '-qq'], env) || !runApt(apt, ['install', '-y', '-qq', '--no-install-recommends', ...missing], env)) {
    report(`Installing failed; run it yourself: apt-get update && ${install}\n`)
    return 1
  }
  const stillMissing = missingPackages(env)
  if (stillMissing.length > 0) {
    report(`apt-get finished but ${stillMissing.join(', ')} still provide no binary in ${toolDirs(env).join(':')}\n`)
    return 1
  }
  return 0
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = provision()
}
