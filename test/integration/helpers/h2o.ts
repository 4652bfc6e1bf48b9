/**
 * h2o (Debian's package) as an independent HTTP/2 server for integration tests: HTTP/2 over TLS
 * (the test certificate), the files of a static site, and `POST /echo` answered with the request
 * body by an mruby handler. It runs in master mode (under the `start_server` h2o ships), where
 * SIGHUP is a graceful restart: a new server takes the listening socket and the old one sends
 * GOAWAY and finishes the requests it has.
 */

import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { startChildServerIn } from './child-server.js'
import { staticSiteDir } from './static-site.js'
import { requireTool } from '../../helpers/test-tools.js'
import { freePort } from '../../helpers/free-port.js'

/** A running h2o. */
export interface H2o {
  /** `https://localhost:PORT`. */
  origin: string
  /** Sends SIGHUP: a graceful restart. */
  reload: () => void
  stop: () => Promise<void>
}

/** Starts h2o serving `files`. Fails (never skips) when it is not installed. */
export async function startH2o (files: Record<string, Buffer | string>): Promise<H2o> {
  const binary = requireTool('h2o', 'h2o')
  const port = await freePort()
  const site = await staticSiteDir('conduit-h2o-', files)
  const dir = site.tmp.dir
  const isRoot = process.getuid?.() === 0
  // JSON is YAML: no indentation to get wrong, and the mruby handler stays one string.
  const conf = {
    ...(isRoot ? { user: 'root' } : {}),
    'pid-file': path.join(dir, 'h2o.pid'),
    'error-log': path.join(dir, 'error.log'),
    'num-threads': 1,
    listen: { host: '127.0.0.1', port, ssl: { 'certificate-file': site.cert, 'key-file': site.key, 'ocsp-update-interval': 0 } },
    hosts: {
      default: {
        paths: {
          '/echo': { 'mruby.handler': "Proc.new do |env|\n  body = env['rack.input'] ? env['rack.input'].read : ''\n  [200, {'content-type' => 'application/octet-stream'}, [body]]\nend\n" },
          '/': { 'file.dir': site.root }
        }
      }
    }
  }
  const confFile = path.join(dir, 'h2o.conf')
  await writeFile(confFile, JSON.stringify(conf, null, 2))
  const server = await startChildServerIn(site.tmp, binary, ['-m', 'master', '-c', confFile], port)
  return {
    origin: `https://localhost:${port}`,
    reload: () => { server.child.kill('SIGHUP') },
    stop: server.stop
  }
}
