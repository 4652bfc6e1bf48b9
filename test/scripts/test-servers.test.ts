import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const script = fileURLToPath(new URL('../../../scripts/test-servers.mjs', import.meta.url))
const packages = ['squid', 'microsocks', 'redis-server', 'redis-tools', 'nginx', 'openssl', 'python3-websockets', 'nghttp2-server', 'h2o', 'python3-h2']
// The binary each package provides (the Python libraries are checked by importing them with python3).
const binaryOf = (name: string): string => ({ 'python3-websockets': 'python3', 'python3-h2': 'python3', 'redis-tools': 'redis-cli', 'nghttp2-server': 'nghttpd' } as Record<string, string>)[name] ?? name
const installCommand = `apt-get install -y --no-install-recommends ${packages.join(' ')}`
// Root may start the script as another user; anyone else runs it as themselves (already not root).
const nobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}

interface Run { code: number | null, stderr: string }

interface ProvisioningScript {
  provision: (env: NodeJS.ProcessEnv, uid: number, report: (text: string) => void) => number
}
const { provision: provisionInProcess } = await import(pathToFileURL(script).href) as ProvisioningScript

/** Runs the script's provisioning in this process as if by `uid`, collecting what it reports. */
function provisionAs (uid: number, toolDir: string): Run {
  let stderr = ''
  const code = provisionInProcess({ PATH: process.env.PATH, CONDUIT_TOOL_DIRS: toolDir }, uid, (text) => { stderr += text })
  return { code, stderr }
}

/** Runs the provisioning script with only `toolDir` searched for binaries (apt-get included). */
function provision (toolDir: string, asUser: { uid?: number, gid?: number } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], {
      env: { PATH: process.env.PATH, CONDUIT_TOOL_DIRS: toolDir },
      stdio: ['ignore', 'ignore', 'pipe'],
      ...asUser
    })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, stderr }))
  })
}

async function fakeTool (dir: string, name: string, body = 'exit 0'): Promise<void> {
  const file = path.join(dir, name)
  await writeFile(file, `#!/bin/sh\n${body}\n`)
  await chmod(file, 0o755)
}

/** An apt-get that logs its arguments and DEBIAN_FRONTEND, and on `install` creates the binaries. */
async function fakeAptGet (dir: string, log: string, installWorks = true): Promise<void> {
  const install = installWorks
    ? packages.map((name) => `printf '#!/bin/sh\\n' > ${path.join(dir, binaryOf(name))}; chmod 755 ${path.join(dir, binaryOf(name))}`).join('; ')
    : 'exit 100'
  await fakeTool(dir, 'apt-get', `echo "$DEBIAN_FRONTEND $*" >> ${log}\nif [ "$1" = install ]; then ${install}; fi`)
}

async function withToolDir (use: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'conduit-tools-'))
  // Readable and searchable for the unprivileged user some runs switch to.
  await chmod(dir, 0o755)
  try {
    await use(dir)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

describe('npm test provisioning the integration-test servers', () => {
  it('installs nothing and says nothing when every server binary is present', () => withToolDir(async (dir) => {
    const log = path.join(dir, 'apt.log')
    for (const name of packages) await fakeTool(dir, binaryOf(name))
    await fakeAptGet(dir, log)
    const run = await provision(dir)
    assert.equal(run.code, 0)
    assert.equal(run.stderr, '')
    await assert.rejects(readFile(log), { code: 'ENOENT' })
  }))

  it('stops without installing when not root, naming the sudo command for the missing packages', () => withToolDir(async (dir) => {
    const log = path.join(dir, 'apt.log')
    await fakeTool(dir, 'openssl')
    await fakeAptGet(dir, log)
    const run = await provision(dir, nobody)
    assert.equal(run.code, 1)
    // Under c8 the unprivileged child may add a line about the coverage file it cannot write.
    assert.ok(run.stderr.startsWith(provisionAs(1000, dir).stderr), run.stderr)
    assert.match(run.stderr, /not installed \(squid, microsocks, redis-server, redis-tools, nginx, python3-websockets, nghttp2-server, h2o, python3-h2\)/)
    assert.ok(run.stderr.includes('sudo apt-get update && sudo apt-get install -y --no-install-recommends squid microsocks redis-server redis-tools nginx python3-websockets nghttp2-server h2o python3-h2\n'), run.stderr)
    await assert.rejects(readFile(log), { code: 'ENOENT' })
  }))

  it('counts python3-websockets and python3-h2 as missing when python3 cannot import them', () => withToolDir(async (dir) => {
    for (const name of packages) await fakeTool(dir, binaryOf(name))
    await fakeTool(dir, 'python3', 'exit 1')
    const run = provisionAs(1000, dir)
    assert.equal(run.code, 1)
    assert.match(run.stderr, /not installed \(python3-websockets, python3-h2\)/)
  }))

  it('counts only python3-h2 as missing when python3 imports websockets but not h2', () => withToolDir(async (dir) => {
    for (const name of packages) await fakeTool(dir, binaryOf(name))
    await fakeTool(dir, 'python3', 'case "$2" in *h2*) exit 1;; esac')
    const run = provisionAs(1000, dir)
    assert.equal(run.code, 1)
    assert.match(run.stderr, /not installed \(python3-h2\)/)
  }))

  it('stops when apt-get is missing, even as root, naming the packages and the Debian command', () => withToolDir(async (dir) => {
    const run = provisionAs(0, dir)
    assert.equal(run.code, 1)
    assert.match(run.stderr, /apt-get is not available here/)
    assert.ok(run.stderr.includes(`apt-get update && ${installCommand}`), run.stderr)
  }))

  it('as root with apt-get, updates and installs the missing packages non-interactively, saying so', () => withToolDir(async (dir) => {
    const log = path.join(dir, 'apt.log')
    await fakeAptGet(dir, log)
    const run = provisionAs(0, dir)
    assert.equal(run.code, 0, run.stderr)
    assert.ok(run.stderr.startsWith(`Installing the servers the integration tests need (${packages.join(', ')})`), run.stderr)
    assert.deepEqual((await readFile(log, 'utf8')).trim().split('\n'), [
      'noninteractive update -qq',
      `noninteractive install -y -qq --no-install-recommends ${packages.join(' ')}`
    ])
  }))

  it('as root, fails naming the command when apt-get fails', () => withToolDir(async (dir) => {
    await fakeAptGet(dir, path.join(dir, 'apt.log'), false)
    const run = provisionAs(0, dir)
    assert.equal(run.code, 1)
    assert.ok(run.stderr.includes(`Installing failed; run it yourself: apt-get update && ${installCommand}`), run.stderr)
  }))
})
