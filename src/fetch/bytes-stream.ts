/**
 * The byte streams a body is read through when it is not a stream already: over bytes in memory
 * (an ArrayBuffer, a typed array, a DataView) and over an async iterable of chunks.
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

/**
 * Wraps an async iterable of chunks in a byte stream that pulls one chunk at a time. Each chunk
 * is copied as it goes out (see {@link ownedChunk}): a source such as a Blob or bytes may be
 * read again, so its memory must not be handed over.
 */
export function iterableToStream (chunks: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  let iterator: AsyncIterator<Uint8Array> | null = null
  return new ReadableStream({
    type: 'bytes',
    async pull (controller: ReadableByteStreamController) {
      iterator ??= chunks[Symbol.asyncIterator]()
      // An empty chunk would answer no read, and a byte stream asks again only after a read.
      for (;;) {
        const { value, done } = await iterator.next()
        if (done === true) {
          controller.close()
          // A BYOB read waiting when the source ended is answered with an empty view.
          controller.byobRequest?.respond(0)
          return
        }
        if (value.byteLength > 0) {
          controller.enqueue(ownedChunk(value))
          return
        }
      }
    },
    async cancel (reason) {
      await iterator?.return?.(reason)
    }
  }, { highWaterMark: 0 }) as ReadableStream<Uint8Array>
}
