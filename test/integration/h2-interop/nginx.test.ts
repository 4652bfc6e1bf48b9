import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { interopSuite } from './interop-cases.js'
import { startNginx, NGINX_ECHO_TRAILER } from '../helpers/nginx.js'

/** The HTTP/1.1 upstream nginx proxies `/echo` to: answers every request with its body. */
async function startEchoUpstream (): Promise<http.Server> {
  const upstream = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length })
      res.end(body)
    })
  })
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  return upstream
}

interopSuite({
  name: 'nginx (h2 over TLS)',
  tls: true,
  start: async (site) => {
    const upstream = await startEchoUpstream()
    const nginx = await startNginx(site.files, { echoUpstream: (upstream.address() as AddressInfo).port })
    return {
      origin: nginx.origin,
      reload: nginx.reload,
      stop: async () => {
        await nginx.stop()
        upstream.closeAllConnections()
        await new Promise((resolve) => upstream.close(resolve))
      }
    }
  },
  // nginx sends what add_trailer names after the proxied body.
  echoTrailers: () => NGINX_ECHO_TRAILER,
  goaway: 'reload'
})
