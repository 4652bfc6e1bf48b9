/**
 * The body stream of bytes already in memory (an ArrayBuffer, a typed array, a DataView).
 * @module
 */

import { ownedChunk } from './incoming-body.js'

/**
 * A byte stream over bytes already in memory, filled when it is made. No promise carries the
 * bytes or a read result on the way (an async iterator would), so a polluted
 * `Object.prototype.then` cannot replace them, as the Fetch Standard's byte sequences promise.
 */
export function bytesToStream (data: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    type: 'bytes',
    start (controller: ReadableByteStreamController) {
      if (data.byteLength > 0) controller.enqueue(ownedChunk(data))
      controller.close()
    }
  }) as ReadableStream<Uint8Array>
}
