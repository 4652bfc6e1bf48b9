/**
 * The bodies a {@link ResponsePlayer} plays, and how they become chunks: bytes already in memory
 * (played within the call that starts the reply) or a stream (pulled chunk by chunk).
 * @module
 */

/**
 * A body to play: nothing, bytes or text in memory, chunks in memory (any synchronous
 * iterable), or a stream or other asynchronous iterable of chunks.
 */
export type PlayedBody =
  | Buffer
  | string
  | Iterable<Buffer | string>
  | AsyncIterable<unknown>
  | null
  | undefined

const NO_CHUNKS: readonly Buffer[] = Object.freeze([])

/** The bytes `chunk` stands for: views as the bytes they cover, anything else as UTF-8 text. */
export function chunkToBuffer (chunk: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk
  // Any view (Uint8Array, DataView, other typed arrays) stands for the bytes it covers.
  if (ArrayBuffer.isView(chunk)) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
  if (chunk instanceof ArrayBuffer) return Buffer.from(chunk)
  return Buffer.from(String(chunk), 'utf8')
}

/**
 * The chunks of a body held in memory, in delivery order; null when the body is a stream (an
 * asynchronous iterable, a Readable included), which has to be pulled.
 */
export function inMemoryChunks (body: PlayedBody): readonly Buffer[] | null {
  if (body == null) return NO_CHUNKS
  if (Buffer.isBuffer(body)) return body.length === 0 ? NO_CHUNKS : [body]
  if (typeof body === 'string') return body.length === 0 ? NO_CHUNKS : [Buffer.from(body, 'utf8')]
  if (Symbol.asyncIterator in body) return null
  if (Array.isArray(body) && body.every(Buffer.isBuffer)) return body as readonly Buffer[]
  return Array.from(body as Iterable<unknown>, chunkToBuffer)
}

/**
 * Turns a reply body into chunks: nothing for `''`/null/undefined, text and bytes (an ArrayBuffer
 * or any view of one, DataView included) as one chunk,
 * streams and async iterables as they come, and any other value as JSON.
 */
export function replyBodyChunks (data: unknown): readonly Buffer[] | AsyncIterable<unknown> {
  if (data == null || data === '') return []
  if (typeof data === 'string') return [Buffer.from(data, 'utf8')]
  if (ArrayBuffer.isView(data) || data instanceof ArrayBuffer) {
    const chunk = chunkToBuffer(data)
    return chunk.length === 0 ? [] : [chunk]
  }
  if (typeof data === 'object' && typeof (data as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function') {
    return data as AsyncIterable<unknown>
  }
  if (typeof data === 'object') return [Buffer.from(JSON.stringify(data), 'utf8')]
  return [Buffer.from(String(data), 'utf8')]
}
