/**
 * An echo server in its own process for the WebSocket load test, on the `ws` package: one port
 * without and one with permessage-deflate. A message comes back as it came (text as text, binary
 * as binary); one of 100 KiB or more comes back in three fragments. It writes
 * `<plain port> <deflate port>` on stdout once both listen and exits when stdin closes.
 */

import { WebSocketServer } from 'ws'
import type { RawData, WebSocket } from 'ws'

function echo (socket: WebSocket): void {
  socket.on('message', (data: RawData, isBinary: boolean) => {
    const bytes = Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[])
    if (bytes.length < 100 * 1024) {
      socket.send(bytes, { binary: isBinary })
      return
    }
    const third = Math.floor(bytes.length / 3)
    socket.send(bytes.subarray(0, third), { binary: isBinary, fin: false })
    socket.send(bytes.subarray(third, 2 * third), { binary: isBinary, fin: false })
    socket.send(bytes.subarray(2 * third), { binary: isBinary, fin: true })
  })
}

function listen (perMessageDeflate: boolean): Promise<WebSocketServer> {
  return new Promise((resolve) => {
    const server: WebSocketServer = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate, maxPayload: 64 * 1024 * 1024 }, (): void => { resolve(server) })
    server.on('connection', echo)
  })
}

const servers = [await listen(false), await listen(true)]
process.stdout.write(`${servers.map((s) => (s.address() as { port: number }).port).join(' ')}\n`)
process.stdin.resume()
process.stdin.on('end', () => {
  for (const server of servers) {
    for (const client of server.clients) client.terminate()
    server.close()
  }
})
