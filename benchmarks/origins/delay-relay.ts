/**
 * A TCP relay on 127.0.0.1 that adds latency: every chunk read on one side is written to the other
 * `oneWayMs` later, in order, in both directions, so a loopback link gets a round trip of twice
 * that without `tc` or network namespaces. It relays bytes, so TLS passes through untouched.
 * @module
 */

import net from 'node:net'
import type { AddressInfo } from 'node:net'

/** A running relay. */
export interface DelayRelay {
  /** The port clients connect to. */
  port: number
  close: () => Promise<void>
}

/** Writes everything `from` sends to `to`, each chunk `delayMs` after it arrived. */
function delayed (from: net.Socket, to: net.Socket, delayMs: number): void {
  // Timers of one delay fire in the order they were set: the byte order holds.
  from.on('data', (chunk: Buffer) => { setTimeout(() => { if (!to.destroyed) to.write(chunk) }, delayMs) })
  from.on('end', () => { setTimeout(() => to.end(), delayMs) })
}

/** Starts a relay to `targetPort` on 127.0.0.1 with `oneWayMs` of delay each way. */
export async function startDelayRelay (targetPort: number, oneWayMs: number): Promise<DelayRelay> {
  const sockets = new Set<net.Socket>()
  const track = (socket: net.Socket): void => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => socket.destroy())
  }
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: '127.0.0.1', port: targetPort })
    track(client)
    track(upstream)
    client.setNoDelay(true)
    upstream.setNoDelay(true)
    delayed(client, upstream, oneWayMs)
    delayed(upstream, client, oneWayMs)
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy()
      server.close(() => resolve())
    })
  }
}
