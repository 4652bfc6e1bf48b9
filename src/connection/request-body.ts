/**
 * Classifies request bodies: which kind, how long (when known), and whether it can be sent again.
 * @module
 */

import { Blob } from 'node:buffer'
import { InvalidArgumentError } from '../errors.js'

/** No body. */
export const BODY_NONE = 0
/** A string or bytes in memory: written together with the head. */
export const BODY_BYTES = 1
/** A Blob: known size, read asynchronously, can be read again. */
export const BODY_BLOB = 2
/** A Node.js Readable: read once. */
export const BODY_READABLE = 3
/** An async or sync iterable (including web ReadableStream): read once. */
export const BODY_ITERABLE = 4

/** Returns the BODY_* kind of `body`; throws {@link InvalidArgumentError} for anything else. */
export function bodyKind (body: unknown): number {
  if (body == null) return BODY_NONE
  if (typeof body === 'string' || body instanceof Uint8Array) return BODY_BYTES
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return BODY_BYTES
  if (body instanceof Blob || (typeof (body as Blob).stream === 'function' && typeof (body as Blob).size === 'number')) return BODY_BLOB
  if (typeof body === 'object') {
    const b = body as { pipe?: unknown, on?: unknown, [Symbol.asyncIterator]?: unknown, [Symbol.iterator]?: unknown }
    if (typeof b.pipe === 'function' && typeof b.on === 'function') return BODY_READABLE
    if (typeof b[Symbol.asyncIterator] === 'function' || typeof b[Symbol.iterator] === 'function') return BODY_ITERABLE
  }
  throw new InvalidArgumentError(`invalid body: ${typeof body === 'object' ? Object.prototype.toString.call(body) : typeof body} (expected a string, Buffer, Uint8Array, Blob, Readable or (async) iterable)`)
}

/** The body as bytes for BODY_BYTES (strings are UTF-8). */
export function bodyBytes (body: unknown): Buffer | string {
  if (typeof body === 'string' || Buffer.isBuffer(body)) return body
  if (body instanceof ArrayBuffer) return Buffer.from(body)
  const view = body as ArrayBufferView
  return Buffer.from(view.buffer, view.byteOffset, view.byteLength)
}

/** Length in bytes of a body of the given kind, or -1 when only reading it would tell. */
export function bodyLength (body: unknown, kind: number): number {
  switch (kind) {
    case BODY_NONE: return 0
    case BODY_BYTES: return typeof body === 'string' ? Buffer.byteLength(body) : (body as ArrayBufferView | ArrayBuffer).byteLength
    case BODY_BLOB: return (body as Blob).size
    case BODY_READABLE: return endedLength(body)
    default: return -1
  }
}

/** Whether a body of this kind can be sent a second time (for a retry on a fresh connection). */
export function isReplayable (kind: number): boolean {
  return kind === BODY_NONE || kind === BODY_BYTES || kind === BODY_BLOB
}

/**
 * The length of a Node stream that has already ended (`push(null)`, `end()` on a PassThrough):
 * all its bytes are buffered, so it is sent with a `content-length` as undici sends it, not
 * chunked. -1 for a stream still producing, or in object mode.
 */
function endedLength (body: unknown): number {
  const state = (body as { _readableState?: { ended?: unknown, objectMode?: unknown, length?: unknown } })._readableState
  if (state === undefined || state.ended !== true || state.objectMode !== false || typeof state.length !== 'number') return -1
  return state.length
}
