/**
 * A free TCP port on 127.0.0.1 for a server binary started by a test, which needs a port number
 * before it runs.
 */

import net from 'node:net'
import type { AddressInfo } from 'node:net'

/** A free TCP port on 127.0.0.1 (free when asked; the server binds it right after). */
export function freePort (): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
}
