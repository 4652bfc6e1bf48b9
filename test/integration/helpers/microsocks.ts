/**
 * microsocks (a small SOCKS5 server from Debian) for integration tests, on a free loopback port,
 * optionally with username/password authentication.
 */

import { startChildServerIn, tempDir } from './child-server.js'
import { requireTool } from '../../helpers/test-tools.js'
import { freePort } from '../../helpers/free-port.js'

/** A running microsocks. */
export interface Microsocks {
  port: number
  /** `socks5://127.0.0.1:PORT`, without credentials. */
  url: string
  stop: () => Promise<void>
}

/**
 * Starts microsocks listening on 127.0.0.1 only. Fails (never skips) when it is not installed.
 * @example
 * const socks = await startMicrosocks({ username: 'u', password: 'p' })
 */
export async function startMicrosocks (auth?: { username: string, password: string }): Promise<Microsocks> {
  const binary = requireTool('microsocks', 'microsocks')
  const port = await freePort()
  const args = ['-i', '127.0.0.1', '-p', String(port)]
  if (auth !== undefined) args.push('-u', auth.username, '-P', auth.password)
  const tmp = await tempDir('conduit-microsocks-')
  const server = await startChildServerIn(tmp, binary, args, port)
  return { port, url: `socks5://127.0.0.1:${port}`, stop: server.stop }
}
