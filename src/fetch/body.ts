/**
 * Bodies of Requests and Responses: extracting a body from what callers pass, and the body
 * mixin (`text()`, `json()`, `arrayBuffer()`, `blob()`, `bytes()`, `formData()`, `body`,
 * `bodyUsed`) shared by {@link Request} and {@link Response}.
 * @module
 */

import { bufferSourceBytes, enumerableMembers } from './webidl.js'
import * as nodeStream from 'node:stream'
import { isBlob } from './file.js'
import { FormData, isFormDataLike } from './form-data.js'
import type { FormDataLike } from './form-data.js'
import { IncomingBody, ownedChunk } from './incoming-body.js'
import { bytesToStream, iterableToStream } from './bytes-stream.js'
import { mimeEssence, parseMimeType, serializeMimeType } from './mime.js'
import { multipartChunks, parseMultipart, serializeMultipart } from './multipart.js'
import type { MultipartBody } from './multipart.js'
import { describeValue } from '../validation/describe-value.js'

/** Everything accepted as a body (the runtime's own FormData, Blob and streams included). */
export type BodyInit =
  | string
  | ArrayBuffer
  | SharedArrayBuffer
  | ArrayBufferView
  | Blob
  | FormData
  | globalThis.FormData
  | URLSearchParams
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array | string>

/** Where a body's bytes come from. Bytes, Blobs and forms can be read again (redirects); streams cannot. */
export type BodySource =
  | { kind: 'bytes', data: Uint8Array }
  | { kind: 'blob', data: Blob }
  | { kind: 'multipart', data: MultipartBody }
  | { kind: 'stream', data: ReadableStream<Uint8Array> }
  | { kind: 'iterable', data: AsyncIterable<Uint8Array | string> }
  | { kind: 'incoming', data: IncomingBody }

/** An extracted body: its source, length when known, and the Content-Type it implies. */
export interface ExtractedBody {
  source: BodySource
  length: number | null
  type: string | null
}

// Present since Node 16.8 and accepts web streams, but missing from the Node 20 type definitions.
const isDisturbed = (nodeStream as unknown as { isDisturbed: (stream: unknown) => boolean }).isDisturbed

function isReadableStream (value: unknown): value is ReadableStream<Uint8Array> {
  return value instanceof ReadableStream
}

function isAsyncIterable (value: unknown): value is AsyncIterable<Uint8Array | string> {
  return typeof value === 'object' && value !== null && typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function'
}

/** True when the body is a stream whose bytes cannot be produced a second time. */
export function isStreamSource (source: BodySource): boolean {
  return source.kind === 'stream' || source.kind === 'iterable' || source.kind === 'incoming'
}

/**
 * Extracts a body from `init` (Fetch Standard, "extract a body"). Array buffers and views are
 * copied, as the standard requires, so later writes by the caller do not change what is sent.
 */
export function extractBody (init: unknown, what: string): ExtractedBody {
  if (typeof init === 'string') {
    const data = Buffer.from(init, 'utf8')
    return { source: { kind: 'bytes', data }, length: data.length, type: 'text/plain;charset=UTF-8' }
  }
  if (init instanceof URLSearchParams) {
    const data = Buffer.from(init.toString(), 'utf8')
    return { source: { kind: 'bytes', data }, length: data.length, type: 'application/x-www-form-urlencoded;charset=UTF-8' }
  }
  // A SharedArrayBuffer is no BufferSource: it falls through to its string form, as WebIDL has it.
  const view = bufferSourceBytes(init, what)
  if (view !== null) {
    const data = new Uint8Array(view)
    return { source: { kind: 'bytes', data }, length: data.length, type: null }
  }
  if (isBlob(init)) {
    return { source: { kind: 'blob', data: init }, length: init.size, type: init.type === '' ? null : init.type }
  }
  if (isFormDataLike(init)) {
    const data = serializeMultipart(init as FormDataLike)
    return { source: { kind: 'multipart', data }, length: data.length, type: data.contentType }
  }
  if (isReadableStream(init)) {
    if (init.locked || isDisturbed(init)) throw new TypeError(`${what}: the ReadableStream body is locked or already read`)
    return { source: { kind: 'stream', data: init }, length: null, type: null }
  }
  if (isAsyncIterable(init)) {
    return { source: { kind: 'iterable', data: init }, length: null, type: null }
  }
  return extractBody(String(init), what)
}

async function * iterableChunks (source: AsyncIterable<Uint8Array | string>): AsyncGenerator<Uint8Array> {
  for await (const chunk of source) {
    if (typeof chunk === 'string') yield Buffer.from(chunk, 'utf8')
    else if (chunk instanceof Uint8Array) yield chunk
    else throw new TypeError(`body: an async iterable body must yield strings or Uint8Arrays, got ${describeValue(chunk)}`)
  }
}

// A ReadableStream body must carry Uint8Arrays only, unlike the async iterables this library also
// accepts: a string chunk fails the read with a TypeError, as the Fetch Standard's body reading does.
async function * streamChunks (source: AsyncIterable<unknown>): AsyncGenerator<Uint8Array> {
  for await (const chunk of source) {
    if (!(chunk instanceof Uint8Array)) throw new TypeError(`body: a ReadableStream body must yield Uint8Arrays, got ${describeValue(chunk)}`)
    yield chunk
  }
}

/** The chunks of a stream already locked to `reader`; ending the iteration early cancels the stream. */
async function * readerChunks (reader: ReadableStreamDefaultReader<Uint8Array>): AsyncGenerator<Uint8Array> {
  let finished = false
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      if (!(value instanceof Uint8Array)) throw new TypeError(`body: a ReadableStream body must yield Uint8Arrays, got ${describeValue(value)}`)
      yield value
    }
    finished = true
  } finally {
    if (!finished) await reader.cancel().catch(() => {})
  }
}

/** The bytes of a source as an async iterable of chunks (what the dispatcher sends). */
export function sourceChunks (source: BodySource): AsyncIterable<Uint8Array> {
  switch (source.kind) {
    case 'bytes': return iterableChunks([source.data] as unknown as AsyncIterable<Uint8Array>)
    case 'blob': return source.data.stream() as unknown as AsyncIterable<Uint8Array>
    case 'multipart': return multipartChunks(source.data)
    case 'stream': return streamChunks(source.data as unknown as AsyncIterable<unknown>)
    case 'iterable': return iterableChunks(source.data)
    case 'incoming': return iterableChunks(source.data.stream() as unknown as AsyncIterable<Uint8Array>)
  }
}

/** A ReadableStream over a source; streams are handed back as they are. */
export function sourceToStream (source: BodySource): ReadableStream<Uint8Array> {
  if (source.kind === 'stream') return source.data
  if (source.kind === 'incoming') return source.data.stream()
  if (source.kind === 'bytes') return bytesToStream(source.data)
  return iterableToStream(sourceChunks(source))
}

// Not async itself: a fetched body's collector promise is handed back as it is, without the
// extra promise and turns an async wrapper would add to every read. Bytes are handed back at
// once, not in a promise: resolving a promise with them asks Object.prototype.then, which
// anyone may have replaced (the standard reads a byte sequence without any promise).
function readAll (source: BodySource): Buffer[] | Promise<Buffer[]> {
  switch (source.kind) {
    case 'incoming': return source.data.takeComplete() ?? source.data.collect()
    case 'bytes': return [Buffer.from(source.data.buffer, source.data.byteOffset, source.data.byteLength)]
    default: return readChunks(source)
  }
}

async function readChunks (source: BodySource): Promise<Buffer[]> {
  if (source.kind === 'blob') return [Buffer.from(await source.data.arrayBuffer())]
  const chunks: Buffer[] = []
  for await (const chunk of sourceChunks(source)) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength))
  return chunks
}

function concat (chunks: Buffer[]): Buffer {
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
}

function toArrayBuffer (chunks: Buffer[]): ArrayBuffer {
  // One chunk (a small body) is copied out in one step, without zero-filling a buffer first.
  if (chunks.length === 1) {
    const only = chunks[0]!
    return (only.buffer as ArrayBuffer).slice(only.byteOffset, only.byteOffset + only.byteLength)
  }
  let total = 0
  for (const chunk of chunks) total += chunk.length
  const out = new Uint8Array(total)
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.length
  }
  return out.buffer
}

function toBytes (chunks: Buffer[]): Uint8Array {
  return new Uint8Array(toArrayBuffer(chunks))
}

function parseJson (chunks: Buffer[]): unknown {
  return JSON.parse(decodeText(chunks)) as unknown
}

function decodeText (chunks: Buffer[]): string {
  const text = concat(chunks).toString('utf8')
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}

/** Internal access to a body holder, for the modules that build Requests and Responses. */
export interface BodyInternals {
  source (host: BodyMixin): BodySource | null
  setSource (host: BodyMixin, source: BodySource | null): void
  /** Splits the body in two (the standard's tee); the host keeps one branch and the other is returned. */
  tee (host: BodyMixin, what: string): BodySource | null
  /** Takes the body out for sending (fetch, or a Request built from a Request): the host's body becomes used. */
  take (host: BodyMixin, what: string): BodySource | null
}

let internals: BodyInternals

/**
 * The body mixin of Request and Response. Each consuming method may be called once; afterwards
 * `bodyUsed` is true and every consumer rejects with a `TypeError`.
 */
export abstract class BodyMixin {
  #source: BodySource | null = null
  #stream: ReadableStream<Uint8Array> | null = null
  #used = false
  readonly #contentType: (host: BodyMixin) => string | null
  readonly #what: string

  /**
   * @param contentType - reads a holder's Content-Type header (for `blob()` and `formData()`); one
   * function per class, given the holder, so that no closure is made per Request or Response.
   */
  constructor (contentType: (host: BodyMixin) => string | null, what: string) {
    this.#contentType = contentType
    this.#what = what
  }

  /** The body as a ReadableStream, created on first access; null when there is no body. */
  get body (): ReadableStream<Uint8Array> | null {
    if (this.#stream !== null) return this.#stream
    if (this.#source === null) return null
    if (this.#used) {
      // A consumer already owns the bytes; like the standard's stream after consumption, this one is locked and disturbed.
      this.#stream = new ReadableStream<Uint8Array>({ start (controller) { controller.close() } })
      void this.#stream.getReader().read()
      return this.#stream
    }
    this.#stream = sourceToStream(this.#source)
    this.#source = { kind: 'stream', data: this.#stream }
    return this.#stream
  }

  /** True once the body was read (by a consumer or through `body`). */
  get bodyUsed (): boolean {
    return this.#used || (this.#stream !== null && isDisturbed(this.#stream))
  }

  // Only ever awaited by the async consumers, so failing with a rejection is the same as throwing.
  // Bytes come back as they are (see readAll): a consumer must not `await` them.
  #consume (method: string): Buffer[] | Promise<Buffer[]> {
    if (this.bodyUsed || this.#stream?.locked === true) {
      return Promise.reject(new TypeError(`${this.#what}.${method}: the body has already been consumed`))
    }
    const source = this.#source
    if (source === null) return []
    this.#used = true
    return readAll(source)
  }

  // Reads the body whole and makes the consumer's value of it, never awaiting bytes already read.
  // Not async: each consumer is, and a second async frame would add a promise and a turn to
  // every read. Only ever called from those consumers, so a throw here becomes their rejection.
  // The consumers await only a pending read: a value made from bytes already read is returned as
  // it is, since awaiting it would also cost a promise and a turn.
  #consumeWith<T> (method: string, finish: (chunks: Buffer[]) => T): T | Promise<T> {
    const read = this.#consume(method)
    return Array.isArray(read) ? finish(read) : read.then(finish)
  }

  /** Reads the whole body into an ArrayBuffer. */
  async arrayBuffer (): Promise<ArrayBuffer> {
    // async: on a foreign receiver the brand check rejects, as WebIDL's promise operations do
    const value = this.#consumeWith('arrayBuffer', toArrayBuffer)
    return value instanceof Promise ? await value : value
  }

  /** Reads the whole body into a Uint8Array. */
  async bytes (): Promise<Uint8Array> {
    const value = this.#consumeWith('bytes', toBytes)
    return value instanceof Promise ? await value : value
  }

  /** Reads the whole body into a Blob typed by the Content-Type header. */
  async blob (): Promise<Blob> {
    return await this.#consumeWith('blob', (chunks) => {
      const contentType = this.#contentType(this)
      const mime = contentType === null ? null : parseMimeType(contentType)
      return new Blob(chunks as unknown as BlobPart[], { type: mime === null ? '' : serializeMimeType(mime) })
    })
  }

  /** Reads the whole body as UTF-8 text (a leading byte order mark is dropped). */
  async text (): Promise<string> {
    const value = this.#consumeWith('text', decodeText)
    return value instanceof Promise ? await value : value
  }

  /**
   * The body as a stream of text, decoded as UTF-8 while it arrives (empty when there is no body),
   * as undici 8 offers it. Throws a `TypeError` when the body was already used.
   */
  textStream (): ReadableStream<string> {
    if (this.bodyUsed || this.#stream?.locked === true) {
      throw new TypeError(`${this.#what}.textStream: the body has already been consumed`)
    }
    const stream = this.body
    if (stream === null) return new ReadableStream<string>({ start (controller) { controller.close() } })
    // The DOM typings take any BufferSource in; the body only ever yields Uint8Array chunks.
    return stream.pipeThrough(new TextDecoderStream('utf-8') as unknown as TransformStream<Uint8Array, string>)
  }

  /** Reads the whole body and parses it as JSON. */
  async json (): Promise<unknown> {
    const value = this.#consumeWith('json', parseJson)
    return value instanceof Promise ? await value : value
  }

  /**
   * Reads the whole body as a FormData: `multipart/form-data` or `application/x-www-form-urlencoded`.
   * @deprecated Parse the body yourself (the standard keeps this for browsers).
   */
  async formData (): Promise<FormData> {
    // The body is read whole before its type is looked at (Fetch Standard, consume body), so a
    // stream that fails rejects with its own error, whatever the Content-Type.
    const read = this.#consume('formData')
    const chunks = Array.isArray(read) ? read : await read
    const contentType = this.#contentType(this)
    const essence = mimeEssence(contentType)
    if (essence === 'multipart/form-data') {
      const boundary = parseMimeType(contentType!)!.parameters.get('boundary')
      if (boundary === undefined) throw new TypeError(`${this.#what}.formData: multipart Content-Type without a boundary: ${contentType}`)
      return parseMultipart(concat(chunks), boundary)
    }
    if (essence === 'application/x-www-form-urlencoded') {
      const form = new FormData()
      for (const [name, value] of new URLSearchParams(decodeText(chunks))) form.append(name, value)
      return form
    }
    throw new TypeError(`${this.#what}.formData: cannot parse a body of Content-Type ${JSON.stringify(contentType ?? '')} as FormData`)
  }

  static {
    internals = {
      source: (host) => host.#source,
      setSource (host, source) {
        host.#source = source
        host.#stream = source?.kind === 'stream' ? source.data : null
      },
      tee (host, what) {
        if (host.bodyUsed || host.#stream?.locked === true) throw new TypeError(`${what}.clone: the body has already been consumed`)
        if (host.#source === null) return null
        if (!isStreamSource(host.#source)) return host.#source
        const [a, b] = sourceToStream(host.#source).tee()
        host.#source = { kind: 'stream', data: a }
        host.#stream = a
        return { kind: 'stream', data: b }
      },
      take (host, what) {
        const source = host.#source
        if (source === null) return null
        if (host.bodyUsed || host.#stream?.locked === true) throw new TypeError(`${what}: the Request body has already been consumed`)
        host.#used = true
        if (source.kind !== 'stream') return source
        // Fetch Standard, Request constructor: the new request reads the input's stream through
        // a stream of its own, and the input's stream is locked from then on.
        return { kind: 'stream', data: iterableToStream(readerChunks(source.data.getReader())) }
      }
    }
  }
}

enumerableMembers(BodyMixin.prototype)

/** Internal helpers shared with request, response and fetch. */
export const bodyInternals: BodyInternals = internals!
