/**
 * nghttpd (Debian's nghttp2-server) as an independent HTTP/2 server for integration tests: the
 * files of a static site, every POST body echoed back (`--echo-upload`), and one fixed trailer on
 * every response with a body, over TLS (the test certificate) or h2c.
 */

import { startChildServer } from './child-server.js'
import { staticSiteDir } from './static-site.js'
import { requireTool } from '../../helpers/test-tools.js'
import { freePort } from '../../helpers/free-port.js'

/** The trailer nghttpd adds to every response that has a body. */
export const NGHTTPD_TRAILER = { 'x-served-by': 'nghttpd' }

/** A running nghttpd. */
export interface Nghttpd {
  /** `https://localhost:PORT`, or `http://127.0.0.1:PORT` for h2c. */
  origin: string
  /** Stops the process (nghttpd has no graceful reload) and starts a new one on the same port. */
  restart: () => Promise<void>
  stop: () => Promise<void>
}

/** Starts nghttpd serving `files`; `tls: false` for h2c. Fails (never skips) when it is not installed. */
export async function startNghttpd (files: Record<string, Buffer | string>, { tls }: { tls: boolean }): Promise<Nghttpd> {
  const binary = requireTool('nghttpd', 'nghttp2-server')
  const port = await freePort()
  const site = await staticSiteDir('conduit-nghttpd-', files)
  const trailer = Object.entries(NGHTTPD_TRAILER).map(([name, value]) => `${name}: ${value}`)[0]!
  const args = ['-a', '127.0.0.1', '-d', site.root, '--echo-upload', '--trailer', trailer, String(port)]
  const start = (): ReturnType<typeof startChildServer> => startChildServer(binary, tls ? [...args, site.key, site.cert] : ['--no-tls', ...args], port, site.tmp.dir)
  let server = await start().catch(async (err: unknown) => { await site.tmp.remove(); throw err })
  return {
    origin: tls ? `https://localhost:${port}` : `http://127.0.0.1:${port}`,
    restart: async () => {
      await server.stop()
      server = await start()
    },
    stop: async () => {
      await server.stop()
      await site.tmp.remove()
    }
  }
}
