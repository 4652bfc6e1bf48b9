/**
 * Telling request bodies that can be sent again (strings, bytes, Blobs, arrays) from those that
 * are consumed by sending them once (streams, async iterables, iterators).
 * @module
 */

import { RequestRetryError, redactHeaders } from '../../src/handler.js'
import type { IncomingHeaders } from '../../src/handler.js'

/**
 * True when sending `body` consumes it, so a retry could not send the same bytes again:
 * a Node stream, a web `ReadableStream`, an async iterable, or a one-shot iterator (a generator).
 * Arrays, Sets and other re-iterable collections are replayable.
 */
export function isStatefulBody (body: unknown): boolean {
  if (body === null || typeof body !== 'object') return false
  if (Buffer.isBuffer(body) || ArrayBuffer.isView(body) || body instanceof ArrayBuffer || body instanceof Blob) return false
  const b = body as Record<string | symbol, unknown>
  if (typeof b.pipe === 'function' || typeof b.getReader === 'function') return true
  if (typeof b[Symbol.asyncIterator] === 'function') return true
  // An iterator returns itself from [Symbol.iterator]: iterating it a second time yields nothing.
  return typeof b[Symbol.iterator] === 'function' && typeof b.next === 'function'
}

// A short name of a stateful body's kind, for error messages.
function describeBody (body: unknown): string {
  const b = body as Record<string | symbol, unknown>
  if (typeof b.pipe === 'function') return 'a stream'
  if (typeof b.getReader === 'function') return 'a ReadableStream'
  if (typeof b[Symbol.asyncIterator] === 'function') return 'an async iterable'
  return 'an iterator'
}

/** The `LIB_ERR_REQ_RETRY` error for a retry that would have to send a stateful body again. */
export function statefulBodyError (request: string, body: unknown, cause: Error, count: number): RequestRetryError {
  const { statusCode, headers } = cause as { statusCode?: unknown, headers?: unknown }
  return new RequestRetryError(
    `retry(): cannot retry ${request}: its body is ${describeBody(body)}, which can only be sent once`,
    typeof statusCode === 'number' ? statusCode : 0,
    { headers: redactHeaders((headers ?? null) as IncomingHeaders | null) as IncomingHeaders | null, data: { count }, cause }
  )
}
