/**
 * One upstream of the BalancedPool failover test, in its own process so the test can kill it
 * outright: an HTTP server on 127.0.0.1 (on the port given as the first argument, 0 for any)
 * that answers every request with its name (the second argument). It writes its port on stdout
 * once listening and exits when stdin closes.
 */

import http from 'node:http'

const [port = '0', name = 'upstream'] = process.argv.slice(2)
const server = http.createServer((req, res) => {
  req.resume()
  res.end(name)
})
server.listen(Number(port), '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as { port: number }).port}\n`)
})
process.stdin.resume()
process.stdin.on('end', () => {
  server.closeAllConnections()
  server.close()
})
