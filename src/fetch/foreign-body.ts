/**
 * The body of a Request made by another Fetch implementation (the runtime's global `Request`, or
 * undici's). Such a Request shows its body only as a stream, whatever it was built from, so
 * the length its own fetch would announce is not readable from it. A server that needs a length
 * (a presigned upload URL) answers 411 to a chunked body, so the length is learnt two ways:
 * - a Request of the runtime's own class is handed to the runtime's own `fetch` with a
 *   dispatcher that only takes what that fetch would send: its `content-length` (a Blob of any
 *   size has one) and its body as it streams it. That fetch is ended once the body was read.
 * - any other body is read ahead, up to a bound: one that ends within it goes out as bytes with
 *   its length, a longer stream goes on from where the read-ahead stopped.
 * @module
 */

import { sourceChunks } from './body.js'
import type { BodySource, ExtractedBody } from './body.js'

/** Bytes read ahead from another implementation's body to learn its length; a longer body is streamed. */
export const FOREIGN_BODY_READ_AHEAD = 4 * 1024 * 1024

/** The part of another implementation's Request that measuring its body needs. */
export interface ForeignBodyOwner {
  readonly mode: string
}

/** Bodies taken from another implementation's Request whose length is still to be learnt, with that Request. */
const unmeasured = new WeakMap<ExtractedBody, ForeignBodyOwner>()

/**
 * The runtime's `fetch` as it was when conduit loaded: a later replacement (a test's mock of
 * fetch, conduit's own install()) must never receive the probe. It is a plain function on every
 * supported runtime, so reading it loads nothing.
 */
const runtimeFetchAtLoad = Object.getOwnPropertyDescriptor(globalThis, 'fetch')?.value as RuntimeFetch | undefined

type RuntimeFetch = (input: unknown, init: { dispatcher: unknown }) => Promise<unknown>
type RequestClass = abstract new (...args: never[]) => unknown

/** Not read yet: {@link runtimeRequestClass} reads the global on first use. */
const UNREAD = Symbol('unread')
let runtimeRequest: RequestClass | undefined | typeof UNREAD = UNREAD

/**
 * The runtime's `Request` class. It is a lazy global, and from Node 22 on any read of it, even of
 * its property descriptor, loads the runtime's bundled undici (over 1 MB of live heap), so it is
 * read only when a foreign body is first measured, or by {@link keepRuntimeRequest} before
 * install() replaces it. On Node 20 the descriptor holds the runtime's own lazy getter, which
 * keeps answering the runtime's class after the global is replaced.
 */
function runtimeRequestClass (): RequestClass | undefined {
  if (runtimeRequest === UNREAD) {
    const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'Request')
    const get = descriptor?.get
    const value: unknown = get !== undefined ? get.call(globalThis) : descriptor?.value
    runtimeRequest = typeof value === 'function' ? value as RequestClass : undefined
  }
  return runtimeRequest
}

/** Takes note of the runtime's `Request` class; called before the global is replaced by conduit's. */
export function keepRuntimeRequest (): void {
  runtimeRequestClass()
}

/** Marks `body` (a stream taken from `request`, another implementation's Request) for {@link measureForeignBody}. */
export function markForeignBody (body: ExtractedBody, request: ForeignBodyOwner): ExtractedBody {
  unmeasured.set(body, request)
  return body
}

/** True when `body` came from another implementation's Request and was not measured yet. */
export function isUnmeasuredForeignBody (body: ExtractedBody | null): body is ExtractedBody {
  return body !== null && unmeasured.has(body)
}

/**
 * Learns the length of `body`: from the runtime's own fetch when the Request is of the runtime's
 * class, else by reading ahead up to {@link FOREIGN_BODY_READ_AHEAD} bytes. Rejects with the
 * stream's own error, or with the reason the runtime's fetch refused the request.
 */
export async function measureForeignBody (body: ExtractedBody): Promise<void> {
  const request = unmeasured.get(body)
  unmeasured.delete(body)
  // A same-origin Request is refused by the runtime's fetch (there is no origin to be same with)
  // after it took the body: it is left to the read-ahead.
  const RuntimeRequest = request === undefined ? undefined : runtimeRequestClass()
  const runtimeFetch = RuntimeRequest === undefined ? undefined : runtimeFetchAtLoad
  if (request !== undefined && typeof runtimeFetch === 'function' && typeof RuntimeRequest === 'function' && request instanceof RuntimeRequest && request.mode !== 'same-origin') {
    const sent = await bodyAsTheRuntimeSendsIt(runtimeFetch, request)
    body.source = sent.source
    // Past the read-ahead it streams with its length; a shorter body is still read into bytes,
    // which a 307 redirect or a retry can send again.
    if (sent.length !== null && sent.length > FOREIGN_BODY_READ_AHEAD) {
      body.length = sent.length
      return
    }
  }
  await readAhead(body)
}

/** What the runtime's fetch would send as the body: its length when it knows it, and the bytes. */
interface SentBody {
  length: number | null
  source: BodySource
}

/** A controller of either handler shape the runtime's fetch may give to a dispatcher. */
interface RuntimeFetchHandler {
  onConnect?: (abort: (reason?: unknown) => void) => void
  onRequestStart?: (controller: object, context: unknown) => void
  onError?: (err: Error) => void
  onResponseError?: (controller: object, err: Error) => void
}

// Ends the runtime's fetch once its body was read: it rejects with this, and nobody looks.
const HANDED_OVER = new Error('the request body was handed to conduit')

function contentLengthOf (headers: unknown): number | null {
  let value: unknown
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) {
      if (String(headers[i]).toLowerCase() === 'content-length') value = headers[i + 1]
    }
  } else if (typeof headers === 'object' && headers !== null) {
    value = (headers as Record<string, unknown>)['content-length']
  }
  const length = Number(value)
  return typeof value === 'string' && /^\d+$/.test(value) && Number.isSafeInteger(length) ? length : null
}

/**
 * Hands `request` to the runtime's fetch with a dispatcher that keeps the request instead of
 * sending it. Its body is relayed as that fetch reads it; when the fetch stops reading early
 * (the body's stream failed, the request's signal aborted) the relay fails with the reason
 * instead of ending as if the body were complete.
 */
function bodyAsTheRuntimeSendsIt (fetchOf: RuntimeFetch, request: unknown): Promise<SentBody> {
  return new Promise((resolve, reject) => {
    let taken = false
    const dispatcher = {
      dispatch (opts: { headers?: unknown, body?: unknown }, handler: RuntimeFetchHandler): boolean {
        taken = true
        let stopped: unknown = null
        const stop = (reason?: unknown): void => { stopped ??= reason ?? new DOMException('The operation was aborted.', 'AbortError') }
        const controller = { abort: stop, pause () {}, resume () {}, aborted: false, paused: false, reason: null }
        if (typeof handler.onRequestStart === 'function') handler.onRequestStart(controller, {})
        else handler.onConnect?.(stop)
        const finish = (): void => {
          try {
            if (typeof handler.onResponseError === 'function') handler.onResponseError(controller, HANDED_OVER)
            else handler.onError?.(HANDED_OVER)
          } catch {
            // The runtime's fetch is only being let go of; how it takes that is not conduit's request.
          }
        }
        resolve({ length: contentLengthOf(opts.headers), source: relayed(opts.body, () => stopped, finish) })
        return true
      }
    }
    fetchOf(request, { dispatcher }).catch((err: unknown) => {
      // Before the dispatcher saw the request, the runtime refused it: so would a send.
      if (!taken) reject((err as { cause?: unknown } | null)?.cause ?? err)
    })
  })
}

function relayed (body: unknown, stoppedWith: () => unknown, finish: () => void): BodySource {
  if (body instanceof Uint8Array) {
    finish()
    return { kind: 'bytes', data: body }
  }
  return { kind: 'iterable', data: relay(body as AsyncIterable<Uint8Array> | null | undefined, stoppedWith, finish) }
}

async function * relay (body: AsyncIterable<Uint8Array> | null | undefined, stoppedWith: () => unknown, finish: () => void): AsyncGenerator<Uint8Array> {
  try {
    if (body != null) {
      for await (const chunk of body) {
        const stopped = stoppedWith()
        if (stopped !== null) throw stopped
        yield chunk
      }
    }
    const stopped = stoppedWith()
    if (stopped !== null) throw stopped
  } finally {
    finish()
  }
}

/**
 * Reads `body` ahead up to {@link FOREIGN_BODY_READ_AHEAD} bytes. A body that ends within it
 * becomes bytes with a known length; otherwise it goes on as a stream of the chunks read so far
 * and then the rest. Rejects with the stream's own error.
 */
async function readAhead (body: ExtractedBody): Promise<void> {
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
