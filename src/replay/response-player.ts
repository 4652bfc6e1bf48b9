/**
 * Playing a response no connection produced through the dispatch hooks: delay, pause/resume,
 * abort, and the handler invariants (start at most once, exactly one of end/error, nothing
 * after). Mock replies and snapshot playback both go through {@link ResponsePlayer}.
 * @module
 */

import { STATUS_CODES } from 'node:http'
import { SimpleController } from '../handler.js'
import type { DispatchHandler, IncomingHeaders } from '../handler.js'

/** A complete response to replay: head, body chunks (or a stream of them) and trailers. */
export interface PlayedResponse {
  statusCode: number
  /** Defaults to the standard reason phrase of `statusCode`. */
  statusMessage?: string | undefined
  headers: IncomingHeaders
  /** Body chunks in delivery order, or an async source of chunks (a stream). */
  body: readonly Buffer[] | AsyncIterable<unknown>
  trailers: IncomingHeaders
}

/** The reason phrase of a status code, or `unknown` for codes without one. */
export function statusText (statusCode: number): string {
  return STATUS_CODES[statusCode] ?? 'unknown'
}

function chunkToBuffer (chunk: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk
  // Any view (Uint8Array, DataView, other typed arrays) stands for the bytes it covers.
  if (ArrayBuffer.isView(chunk)) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
  if (chunk instanceof ArrayBuffer) return Buffer.from(chunk)
  return Buffer.from(String(chunk), 'utf8')
}

/**
 * One reply in flight. `run()` starts it on a microtask, so `dispatch()` returns before any hook
 * runs (as with a real transport); `fail()` ends it with an error from outside (e.g. `destroy`).
 */
export class ResponsePlayer {
  readonly #handler: DispatchHandler
  readonly #controller: SimpleController
  readonly #onDone: () => void
  #ended = false
  #timer: ReturnType<typeof setTimeout> | null = null
  #wake: (() => void) | null = null
  #source: unknown = null

  /** @param onDone - called once when the reply ended, either way */
  constructor (handler: DispatchHandler, onDone: () => void = () => {}) {
    this.#handler = handler
    this.#onDone = onDone
    this.#controller = new SimpleController({
      abort: (reason) => this.fail(reason),
      resume: () => this.#wakeUp()
    })
  }

  /** True once the handler got its last hook. */
  get ended (): boolean {
    return this.#ended
  }

  /**
   * Starts the reply: `onRequestStart`, `onBodySent` with `sentBody` when there is one, then
   * `delayMs`, then the response `produce` gives (or the error it throws or rejects with).
   */
  run (produce: () => PlayedResponse | Promise<PlayedResponse>, delayMs = 0, context: unknown = {}, sentBody: string | Uint8Array | null | undefined = undefined): void {
    queueMicrotask(() => {
      this.#run(produce, delayMs, context, sentBody).catch((err: unknown) => this.fail(err instanceof Error ? err : new Error(String(err))))
    })
  }

  /** Starts the dispatch and fails it at once with `error` (mocked errors, unmatched requests). */
  runError (error: Error, context: unknown = {}): void {
    queueMicrotask(() => {
      if (this.#ended) return
      try {
        this.#handler.onRequestStart?.(this.#controller, context)
      } catch (err) {
        this.fail(err as Error)
        return
      }
      this.fail(error)
    })
  }

  /** Ends the reply with `error` unless it already ended; stops any delay and pending stream. */
  fail (error: Error): void {
    if (this.#ended) return
    this.#ended = true
    if (this.#timer !== null) {
      clearTimeout(this.#timer)
      this.#timer = null
    }
    const source = this.#source as { destroy?: (err?: Error) => void } | null
    if (source !== null && typeof source.destroy === 'function') source.destroy()
    this.#wakeUp()
    try {
      this.#handler.onResponseError?.(this.#controller, error)
    } finally {
      this.#onDone()
    }
  }

  #wakeUp (): void {
    const wake = this.#wake
    this.#wake = null
    wake?.()
  }

  async #run (produce: () => PlayedResponse | Promise<PlayedResponse>, delayMs: number, context: unknown, sentBody: string | Uint8Array | null | undefined): Promise<void> {
    // destroy() may have ended the reply between dispatch and this microtask.
    if (this.#ended) return
    this.#handler.onRequestStart?.(this.#controller, context)
    if (this.#ended) return
    // A real transport reports the request body as it writes it; the mock "writes" it whole.
    // There is no onRequestSent: the real transport never calls that hook either.
    if (sentBody != null && sentBody.length > 0) this.#handler.onBodySent?.(sentBody)
    if (this.#ended) return
    if (delayMs > 0) {
      await new Promise<void>((resolve) => {
        this.#wake = resolve
        this.#timer = setTimeout(() => {
          this.#timer = null
          this.#wakeUp()
        }, delayMs)
      })
      if (this.#ended) return
    }
    const response = await produce()
    if (this.#ended) return
    this.#source = response.body
    this.#handler.onResponseStart?.(this.#controller, response.statusCode, response.headers, response.statusMessage ?? statusText(response.statusCode))
    for await (const chunk of response.body) {
      if (this.#ended) return
      while (this.#controller.paused && !this.#ended) await new Promise<void>((resolve) => { this.#wake = resolve })
      if (this.#ended) return
      this.#handler.onResponseData?.(this.#controller, chunkToBuffer(chunk))
    }
    if (this.#ended) return
    this.#ended = true
    try {
      this.#handler.onResponseEnd?.(this.#controller, response.trailers)
    } finally {
      this.#onDone()
    }
  }
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
