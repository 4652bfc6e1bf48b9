/**
 * An HTTP/2 origin written on Debian's python3-h2 (the script `python_h2_server.py` beside this
 * file, which says what it serves): an independent HTTP/2 implementation that can send trailers
 * and a scripted GOAWAY, over TLS (the test certificate) or h2c.
 */

import { fileURLToPath } from 'node:url'
import { startChildServerIn } from './child-server.js'
import { staticSiteDir } from './static-site.js'
import { requirePythonModule } from '../../helpers/test-tools.js'
import { freePort } from '../../helpers/free-port.js'

// The script is not compiled: it is read from the source tree (dist/test/integration/helpers ->
// the repository root -> test/integration/helpers).
const SCRIPT = fileURLToPath(new URL('../../../../test/integration/helpers/python_h2_server.py', import.meta.url))

/** A running python3-h2 origin. */
export interface PythonH2Server {
  /** `https://localhost:PORT`, or `http://127.0.0.1:PORT` for h2c. */
  origin: string
  stop: () => Promise<void>
}

/** Starts the script serving `files`; `tls: false` for h2c. Fails (never skips) when python3-h2 is missing. */
export async function startPythonH2 (files: Record<string, Buffer | string>, { tls }: { tls: boolean }): Promise<PythonH2Server> {
  const python = requirePythonModule('h2', 'python3-h2')
  const port = await freePort()
  const site = await staticSiteDir('conduit-python-h2-', files)
  const args = [SCRIPT, String(port), site.root, ...(tls ? [site.cert, site.key] : [])]
  const server = await startChildServerIn(site.tmp, python, args, port)
  return { origin: tls ? `https://localhost:${port}` : `http://127.0.0.1:${port}`, stop: server.stop }
}
