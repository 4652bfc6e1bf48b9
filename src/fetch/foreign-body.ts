/**
 * The body of a Request made by another Fetch implementation (the runtime's global `Request`, or
 * undici's). Such a Request shows its body only as a stream, whatever it was built from, so
 * the length its own fetch would announce is not readable. A string, bytes, a form or a Blob of
 * moderate size ends within a bounded read-ahead: it then goes out as bytes with its
 * `content-length` (a server that needs a length, such as a presigned upload URL, answers 411 to
 * a chunked body), and a longer stream goes on from where the read-ahead stopped.
 * @module
 */

import { sourceChunks } from './body.js'
import type { ExtractedBody } from './body.js'

/** Bytes read ahead from another implementation's body to learn its length; a longer body is streamed. */
export const FOREIGN_BODY_READ_AHEAD = 4 * 1024 * 1024

/** Bodies taken from another implementation's Request whose length is still to be learnt. */
const unmeasured = new WeakSet<ExtractedBody>()

/** Marks `body` (a stream taken from another implementation's Request) for {@link measureForeignBody}. */
export function markForeignBody (body: ExtractedBody): ExtractedBody {
  unmeasured.add(body)
  return body
}

/** True when `body` came from another implementation's Request and was not measured yet. */
export function isUnmeasuredForeignBody (body: ExtractedBody | null): body is ExtractedBody {
  return body !== null && unmeasured.has(body)
}

/**
 * Reads `body` ahead up to {@link FOREIGN_BODY_READ_AHEAD} bytes. A body that ends within it
 * becomes bytes with a known length; otherwise it goes on as a stream of the chunks read so far
 * and then the rest. Rejects with the stream's own error.
 */
export async function measureForeignBody (body: ExtractedBody): Promise<void> {
  unmeasured.delete(body)
  const iterator = sourceChunks(body.source)[Symbol.asyncIterator]()
  const chunks: Uint8Array[] = []
  let size = 0
  while (size <= FOREIGN_BODY_READ_AHEAD) {
    const { value, done } = await iterator.next()
    if (done === true) {
      const data = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)
      body.source = { kind: 'bytes', data }
      body.length = size
      return
    }
    chunks.push(value)
    size += value.byteLength
  }
  body.source = { kind: 'iterable', data: continued(chunks, iterator) }
}

async function * continued (head: Uint8Array[], rest: AsyncIterator<Uint8Array>): AsyncGenerator<Uint8Array> {
  yield * head
  for (;;) {
    const { value, done } = await rest.next()
    if (done === true) return
    yield value
  }
}
