/**
 * Request bodies as mocks and snapshots need them: compared as text, recorded as bytes.
 * A streamed body can only be read once, so it is buffered before matching and the buffer
 * is what gets sent on when the request passes through.
 * @module
 */

import type { DispatchBody } from '../contracts/dispatch-contract.js'
import { describeValue } from '../validation/describe-value.js'

/** True when the body is already in memory (or absent), so it can be read without consuming anything. */
export function isBufferedBody (body: unknown): body is string | Uint8Array | null | undefined {
  return body == null || typeof body === 'string' || body instanceof Uint8Array
}

/** The body as UTF-8 text for matching; undefined when there is none. */
export function bodyText (body: string | Uint8Array | null | undefined): string | undefined {
  if (body == null) return undefined
  if (typeof body === 'string') return body
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8')
}

function toBuffer (chunk: unknown): Buffer {
  if (typeof chunk === 'string') return Buffer.from(chunk, 'utf8')
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
  if (chunk instanceof ArrayBuffer) return Buffer.from(chunk)
  throw new TypeError(`request body chunks must be strings or bytes, got ${describeValue(chunk)}`)
}

/** Reads a body of any accepted kind (Blob, stream, async or sync iterable) into one Buffer. */
export async function collectBody (body: DispatchBody | undefined): Promise<Buffer> {
  return Buffer.concat(await collectBodyChunks(body))
}

/**
 * Reads a body of any accepted kind into its chunks, as a transport would write them: a body in
 * memory or a Blob is one chunk (none when absent), a stream or iterable one per item.
 */
export async function collectBodyChunks (body: DispatchBody | undefined): Promise<Buffer[]> {
  if (isBufferedBody(body)) return body == null ? [] : [toBuffer(body)]
  if (body instanceof Blob) return [Buffer.from(await body.arrayBuffer())]
  const chunks: Buffer[] = []
  const source = body as AsyncIterable<unknown> | Iterable<unknown>
  if (typeof (source as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function') {
    for await (const chunk of source as AsyncIterable<unknown>) chunks.push(toBuffer(chunk))
  } else if (typeof (source as Iterable<unknown>)[Symbol.iterator] === 'function') {
    for (const chunk of source as Iterable<unknown>) chunks.push(toBuffer(chunk))
  } else {
    throw new TypeError(`request body must be a string, bytes, a Blob, a stream or an iterable, got ${describeValue(body)}`)
  }
  return chunks
}

/** `chunks` as an async iterable that yields them all on every iteration (a streamed body, replayable). */
export function replayedChunks (chunks: ReadonlyArray<string | Uint8Array>): AsyncIterable<string | Uint8Array> {
  return {
    async * [Symbol.asyncIterator] () {
      yield * chunks
    }
  }
}
