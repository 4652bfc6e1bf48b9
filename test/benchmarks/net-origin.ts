/**
 * The transport benchmark's net origin, in the test process: one prebuilt response per request
 * head, on 127.0.0.1. For tests of the benchmark drivers.
 * @module
 */

import { once } from 'node:events'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { RequestReader, responseFor } from '../../benchmarks/origins/wire-answers.js'

/** Starts the origin; `close` destroys its connections and stops it. */
export async function startOrigin (): Promise<{ origin: string, close: () => void }> {
  const sockets = new Set<net.Socket>()
  const server = net.createServer((socket) => {
    sockets.add(socket)
    const reader = new RequestReader((path) => { socket.write(responseFor(path)) }, (err) => socket.destroy(err))
    socket.on('data', (chunk: Buffer) => reader.consume(chunk))
    socket.on('error', () => {})
    socket.on('close', () => sockets.delete(socket))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => {
      for (const socket of sockets) socket.destroy()
      server.close()
    }
  }
}
