/**
 * Debian's squid for integration tests: a generated configuration in a temp dir (loopback port,
 * optional basic auth through basic_ncsa_auth, no caching, no DNS, only 127.0.0.1 targets, CONNECT to
 * any port because test targets use random ones), run in the foreground and stopped afterwards.
 */

import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { chmod, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { startChildServerIn, tempDir } from './child-server.js'
import { requireTool } from '../../helpers/test-tools.js'
import { freePort } from '../../helpers/free-port.js'

/** A running squid. */
export interface Squid {
  port: number
  /** `http://127.0.0.1:PORT`, without credentials. */
  url: string
  /** Lines squid wrote to its access log so far. */
  accessLog: () => Promise<string>
  stop: () => Promise<void>
}

/** Options of {@link startSquid}. */
export interface SquidOptions {
  /** Require basic proxy authentication with these credentials. */
  auth?: { username: string, password: string }
}

// Where Debian's squid package puts its password-file checker.
const BASIC_AUTH_HELPER = '/usr/lib/squid/basic_ncsa_auth'

function config (dir: string, port: number, options: SquidOptions): string {
  const lines = [
    `http_port 127.0.0.1:${port}`,
    `pid_filename ${path.join(dir, 'squid.pid')}`,
    `cache_log ${path.join(dir, 'cache.log')}`,
    `access_log stdio:${path.join(dir, 'access.log')}`,
    'cache_store_log none',
    `coredump_dir ${dir}`,
    'cache deny all',
    'cache_mem 0 MB',
    'shutdown_lifetime 0 seconds',
    'pinger_enable off',
    'visible_hostname conduit-test',
    // Targets are 127.0.0.1 literals; a loopback resolver keeps squid from sending any DNS query out.
    'dns_nameservers 127.0.0.1',
    'acl localnet src 127.0.0.1',
    'acl loopback dst 127.0.0.1',
    'http_access deny !loopback'
  ]
  if (options.auth !== undefined) {
    lines.push(
      `auth_param basic program ${BASIC_AUTH_HELPER} ${path.join(dir, 'htpasswd')}`,
      'auth_param basic children 2',
      'auth_param basic realm conduit-test',
      'acl authed proxy_auth REQUIRED',
      'http_access allow localnet authed'
    )
  } else {
    lines.push('http_access allow localnet')
  }
  lines.push('http_access deny all')
  return `${lines.join('\n')}\n`
}

/**
 * Starts squid on a free 127.0.0.1 port. Fails (never skips) when squid is not installed.
 * @example
 * const squid = await startSquid({ auth: { username: 'u', password: 'p' } })
 */
export async function startSquid (options: SquidOptions = {}): Promise<Squid> {
  const binary = requireTool('squid', 'squid')
  const openssl = options.auth === undefined ? undefined : requireTool('openssl', 'openssl')
  if (options.auth !== undefined && !existsSync(BASIC_AUTH_HELPER)) {
    throw new Error(`squid's ${BASIC_AUTH_HELPER} is missing; reinstall the Debian package: apt-get install --reinstall squid`)
  }
  const tmp = await tempDir('conduit-squid-')
  // Started as root, squid drops to its own user (cache_effective_user), which must write logs here.
  await chmod(tmp.dir, 0o777)
  if (options.auth !== undefined && openssl !== undefined) {
    const hash = execFileSync(openssl, ['passwd', '-apr1', options.auth.password], { encoding: 'utf8' }).trim()
    await writeFile(path.join(tmp.dir, 'htpasswd'), `${options.auth.username}:${hash}\n`, { mode: 0o644 })
  }
  const port = await freePort()
  const file = path.join(tmp.dir, 'squid.conf')
  await writeFile(file, config(tmp.dir, port, options), { mode: 0o644 })
  // A distinct service name keeps parallel squids from sharing pid and shared-memory names.
  const args = ['-N', '-d', '1', '-n', `conduit${port}`, '-f', file]
  const server = await startChildServerIn(tmp, binary, args, port)
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    accessLog: () => readFile(path.join(tmp.dir, 'access.log'), 'utf8').catch(() => ''),
    stop: server.stop
  }
}
