/**
 * Socket reads into one buffer shared by every socket the built-in connector opens.
 *
 * A socket read the usual way lands in a fresh 64 KiB block from the C heap, wrapped in a new
 * Buffer and pushed through the socket's Readable machinery before its 'data' event; the garbage
 * collector later frees the block on a helper thread. For a small response that is most of what
 * the client itself costs per request. With net.connect's `onread` option the kernel copies into
 * a buffer given once, and a plain callback receives it: the HTTP/1.1 parser reads the bytes in
 * place and copies out only what outlives the call (body slices, an unfinished head), which for
 * a 1 KiB response is one small copy from the Buffer pool.
 *
 * One buffer serves all sockets: callbacks run one at a time on the main thread and the reader
 * is done with the bytes when its callback returns. A socket without a reader (still connecting,
 * paused, or handed over after an upgrade) gets a copy of each read pushed into its Readable
 * side, so it behaves as any socket: 'data' events, pause/resume, backpressure by the stream's
 * own high-water mark.
 * @module
 */

import type { Socket } from 'node:net'

/** Size of the shared buffer: the size of the block Node reads into by default. */
const SHARED_READ_BYTES = 64 * 1024

/** Takes the bytes of one read; they are valid only until it returns. */
export interface SharedReadSink {
  /** One socket read; `bytes` is a view of the shared buffer, reused by the next read of any socket. */
  onSharedRead (bytes: Buffer): void
}

const kSink = Symbol('conduit.sharedReadSink')

type SharedReadSocket = Socket & { [kSink]?: SharedReadSink | null }

let shared: Buffer | null = null

/** Copies `length` bytes of `source` into a Buffer of their own (from the pool when small). */
export function copyBytes (source: Buffer, length = source.length): Buffer {
  const out = Buffer.allocUnsafe(length)
  source.copy(out, 0, 0, length)
  return out
}

function onSharedRead (this: SharedReadSocket, length: number, buffer: Buffer): boolean {
  const sink = this[kSink]
  // A paused socket, or one with bytes still queued in its stream, keeps the stream's order.
  if (sink != null && this.readableFlowing === true && this.readableLength === 0) {
    sink.onSharedRead(buffer.subarray(0, length))
    return true
  }
  return this.push(copyBytes(buffer, length))
}

/**
 * The `onread` option for `net.connect`: reads go into the shared buffer. The socket is marked
 * so that `attachSharedReadSink` knows its reads can be taken in place.
 */
export function sharedReadOption (): { buffer: Buffer, callback: (this: Socket, length: number, buffer: Buffer) => boolean } {
  shared ??= Buffer.allocUnsafe(SHARED_READ_BYTES)
  return { buffer: shared, callback: onSharedRead }
}

/** Marks a socket opened with `sharedReadOption()`: until a sink attaches, its reads are pushed as copies. */
export function markSharedReads (socket: Socket): void {
  (socket as SharedReadSocket)[kSink] = null
}

/**
 * Makes `sink` take the socket's reads in place while the socket flows with nothing queued.
 * Returns false (and does nothing) for a socket that reads the usual way.
 */
export function attachSharedReadSink (socket: object, sink: SharedReadSink): boolean {
  if (!(kSink in socket)) return false
  ;(socket as SharedReadSocket)[kSink] = sink
  return true
}

/** Stops the in-place reads: later reads reach the socket's stream as copies. */
export function detachSharedReadSink (socket: object): void {
  if (kSink in socket) (socket as SharedReadSocket)[kSink] = null
}
