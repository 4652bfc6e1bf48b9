/**
 * Playing a response no connection produced through the dispatch hooks: mock replies, snapshot
 * playback, and the cache's hits, revalidated entries and generated 504s all go through
 * {@link ResponsePlayer}. It keeps the handler invariants (start at most once, exactly one of
 * end/error, nothing after), honours pause/resume and abort (by controller or signal), and turns
 * a handler's exception into the reply's error instead of letting it out of `dispatch()`.
 * @module
 */

import { SimpleController } from '../handlers/simple-controller.js'
import type { ForwardingController } from '../handlers/forwarding-controller.js'
import type { AbortSignalLike, DispatchController, DispatchHandler, IncomingHeaders } from '../contracts/dispatch-contract.js'
import { RequestAbortedError } from '../errors.js'
import { reasonPhrase } from './reason-phrases.js'
import { chunkToBuffer, inMemoryChunks } from './played-body.js'
import type { PlayedBody } from './played-body.js'
import { queueMicrotask } from '../runtime/timers.js'
import { LARGE_READ_BYTES, keepPlayedBuffersInHeap, keepReadBuffersInHeap } from '../runtime/heap-settling.js'

export { replyBodyChunks } from './played-body.js'
export type { PlayedBody } from './played-body.js'

/** A complete response to play: head, body and trailers. */
export interface PlayedResponse {
  statusCode: number
  /** Defaults to the standard reason phrase of `statusCode`. */
  statusMessage?: string | undefined
  headers: IncomingHeaders
  /** In memory (played synchronously) or a stream (pulled, honouring pause). */
  body: PlayedBody
  /** Defaults to none. */
  trailers?: IncomingHeaders | undefined
}

/** Options of a {@link ResponsePlayer}; all optional. */
export interface ResponsePlayerOptions {
  /** Called once when the reply ended, either way. */
  onDone?: (() => void) | undefined
  /**
   * The controller the handler already holds, because an earlier dispatch (a revalidation sent
   * to the origin) gave it `onRequestStart`: the reply continues on it and does not start again.
   */
  controller?: ForwardingController | undefined
  /** The request's abort signal: firing it ends the reply with its reason. */
  signal?: AbortSignalLike | null | undefined
  /** The request method: a reply to `HEAD` delivers no body. */
  method?: string | undefined
  /** Told about an exception from `onResponseEnd` or `onResponseError`, which cannot end the reply any more. */
  onLateHandlerError?: ((hook: 'onResponseEnd' | 'onResponseError', err: Error) => void) | undefined
  /**
   * `play()` delivers the body and the end on a microtask, after the head: the order of a cache
   * hit from a synchronous store in undici, so a handler may still set up what its data and end
   * hooks need once `dispatch()` returned.
   * @defaultValue false: a body in memory is delivered before `play()` returns
   */
  deferBody?: boolean | undefined
}

/** The reason phrase of a status code, or `unknown` for codes without one. */
export function statusText (statusCode: number): string {
  return reasonPhrase(statusCode) ?? 'unknown'
}

function toError (thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(String(thrown))
}

function abortReason (reason: unknown): Error {
  return reason instanceof Error ? reason : new RequestAbortedError()
}

function isThenable<T> (value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T> | null)?.then === 'function'
}

/**
 * One reply in flight. {@link play} delivers it within the call (a body in memory ends there
 * unless the handler pauses); {@link run} starts it on a microtask, after an optional delay, so
 * `dispatch()` returns before any hook runs, as mocks do; {@link fail} ends it from outside.
 */
export class ResponsePlayer {
  readonly #handler: DispatchHandler
  readonly #options: ResponsePlayerOptions
  /** The controller this reply answers to (pause, resume, abort). */
  readonly #own: SimpleController
  /** The controller the handler's hooks receive: an existing one continued, or {@link #own}. */
  readonly #controller: DispatchController
  #ended = false
  #timer: ReturnType<typeof setTimeout> | null = null
  #trailers: IncomingHeaders | undefined
  #chunks: readonly Buffer[] | null = null
  #next = 0
  #source: AsyncIterator<unknown> | null = null
  #stream: unknown = null
  #held: Buffer | null = null
  #sourceDone = false
  #pulling = false
  #flowing = false
  #onSignal: (() => void) | null = null

  /** @param options - see {@link ResponsePlayerOptions} */
  constructor (handler: DispatchHandler, options: ResponsePlayerOptions = {}) {
    this.#handler = handler
    this.#options = options
    this.#own = new SimpleController({
      abort: (reason) => this.fail(reason),
      resume: () => this.#flow()
    })
    this.#controller = options.controller ?? this.#own
  }

  /** True once the handler got its last hook. */
  get ended (): boolean {
    return this.#ended
  }

  /**
   * Plays `response` now: start (unless continuing an existing controller), head, then the body;
   * a body in memory is delivered before this returns unless the handler pauses or `deferBody`
   * was given. Never throws.
   */
  play (response: PlayedResponse, context: unknown = {}): void {
    if (this.#start(context)) this.#respond(response, this.#options.deferBody === true)
  }

  /**
   * Starts the reply on a microtask: `onRequestStart`; when `sentChunks` is given, `onBodySent`
   * for each chunk and `onRequestSent` once (as undici 8's mocks report a request "written");
   * then `delayMs`, then the response `produce` gives (or the error it throws or rejects with).
   */
  run (produce: () => PlayedResponse | PromiseLike<PlayedResponse>, delayMs = 0, context: unknown = {}, sentChunks: ReadonlyArray<string | Uint8Array> | undefined = undefined): void {
    queueMicrotask(() => {
      if (!this.#start(context)) return
      if (sentChunks !== undefined) {
        for (const chunk of sentChunks) {
          if (!this.#call(() => this.#handler.onBodySent?.(chunk))) return
        }
        if (!this.#call(() => this.#handler.onRequestSent?.())) return
      }
      if (delayMs <= 0) {
        this.#produce(produce)
        return
      }
      this.#timer = setTimeout(() => {
        this.#timer = null
        this.#produce(produce)
      }, delayMs)
    })
  }

  /** Starts the dispatch on a microtask and fails it at once with `error` (mocked errors, unmatched requests). */
  runError (error: Error, context: unknown = {}): void {
    queueMicrotask(() => {
      if (this.#start(context)) this.fail(error)
    })
  }

  /** Ends the reply with `error` unless it already ended; stops any delay and pending stream. */
  fail (error: Error): void {
    if (this.#ended) return
    this.#finish()
    if (this.#timer !== null) {
      clearTimeout(this.#timer)
      this.#timer = null
    }
    this.#closeSource()
    try {
      this.#handler.onResponseError?.(this.#controller, error)
    } catch (thrown) {
      this.#options.onLateHandlerError?.('onResponseError', toError(thrown))
    } finally {
      this.#options.onDone?.()
    }
  }

  /** Gives the handler its controller and listens to the signal; false when the reply already ended. */
  #start (context: unknown): boolean {
    if (this.#ended) return false
    const existing = this.#options.controller
    if (existing !== undefined) {
      // Inherits a pause (or an abort) the caller made on the earlier attempt.
      existing.target = this.#own
    } else if (!this.#call(() => this.#handler.onRequestStart?.(this.#controller, context))) {
      return false
    }
    if (this.#ended) return false
    const signal = this.#options.signal
    if (signal != null) {
      if (signal.aborted) {
        this.fail(abortReason(signal.reason))
        return false
      }
      this.#onSignal = () => this.#controller.abort(abortReason(signal.reason))
      signal.addEventListener('abort', this.#onSignal, { once: true })
    }
    return true
  }

  #produce (produce: () => PlayedResponse | PromiseLike<PlayedResponse>): void {
    if (this.#ended) return
    let produced: PlayedResponse | PromiseLike<PlayedResponse>
    try {
      produced = produce()
    } catch (err) {
      this.fail(toError(err))
      return
    }
    if (!isThenable(produced)) {
      this.#respond(produced)
      return
    }
    produced.then((response) => this.#respond(response), (err: unknown) => this.fail(toError(err)))
  }

  #respond (response: PlayedResponse, deferBody = false): void {
    if (this.#ended) return
    let body = response.body
    if (this.#options.method === 'HEAD') {
      // A HEAD reply has no body; a stream that came with it is released rather than left open.
      (body as { destroy?: () => void } | null | undefined)?.destroy?.()
      body = null
    }
    try {
      // A generator body runs here, and may throw.
      const chunks = inMemoryChunks(body)
      if (chunks === null) {
        this.#stream = body
        this.#source = (body as AsyncIterable<unknown>)[Symbol.asyncIterator]()
      } else {
        this.#chunks = chunks
        // Once per process: a large body in memory (a cache hit, a snapshot) is the large read
        // no socket made here; see src/runtime/heap-settling.ts.
        keepPlayedBuffersInHeap(chunks)
      }
    } catch (err) {
      this.fail(toError(err))
      return
    }
    this.#trailers = response.trailers
    const statusMessage = response.statusMessage ?? statusText(response.statusCode)
    if (!this.#call(() => this.#handler.onResponseStart?.(this.#controller, response.statusCode, response.headers, statusMessage))) return
    if (deferBody) queueMicrotask(() => this.#flow())
    else this.#flow()
  }

  /** Delivers what is available while the handler is not paused; resume() comes back here. */
  #flow (): void {
    if (this.#flowing || this.#ended || (this.#chunks === null && this.#source === null)) return
    this.#flowing = true
    try {
      while (!this.#ended && !this.#own.paused) {
        let chunk: Buffer
        if (this.#chunks !== null) {
          if (this.#next >= this.#chunks.length) {
            this.#end()
            return
          }
          chunk = this.#chunks[this.#next++]
        } else if (this.#held !== null) {
          chunk = this.#held
          this.#held = null
        } else if (this.#sourceDone) {
          this.#end()
          return
        } else {
          this.#pull()
          return
        }
        if (!this.#call(() => this.#handler.onResponseData?.(this.#controller, chunk))) return
      }
    } finally {
      this.#flowing = false
    }
  }

  /** Asks the stream for its next chunk, which {@link #flow} delivers once the handler is not paused. */
  #pull (): void {
    if (this.#pulling || this.#source === null) return
    this.#pulling = true
    this.#source.next().then((step) => {
      this.#pulling = false
      if (this.#ended) return
      try {
        if (step.done === true) this.#sourceDone = true
        else {
          this.#held = chunkToBuffer(step.value)
          // A streamed body (a store reading from disk, a timed snapshot) hands out fresh buffers too.
          if (this.#held.length >= LARGE_READ_BYTES) keepReadBuffersInHeap()
        }
      } catch (err) {
        // A chunk whose text cannot be had (its toString throws) must not become an unhandled rejection.
        this.fail(toError(err))
        return
      }
      this.#flow()
    }, (err: unknown) => {
      this.#pulling = false
      this.fail(toError(err))
    })
  }

  #end (): void {
    this.#finish()
    try {
      this.#handler.onResponseEnd?.(this.#controller, this.#trailers ?? {})
    } catch (thrown) {
      this.#options.onLateHandlerError?.('onResponseEnd', toError(thrown))
    } finally {
      this.#options.onDone?.()
    }
  }

  /** Runs one handler hook; an exception ends the reply with it. False when the reply ended. */
  #call (hook: () => void): boolean {
    try {
      hook()
    } catch (err) {
      this.fail(toError(err))
    }
    return !this.#ended
  }

  #finish (): void {
    this.#ended = true
    if (this.#onSignal !== null) {
      this.#options.signal?.removeEventListener('abort', this.#onSignal)
      this.#onSignal = null
    }
  }

  #closeSource (): void {
    const stream = this.#stream as { destroy?: (err?: Error) => void } | null
    const source = this.#source
    this.#stream = null
    this.#source = null
    if (stream !== null && typeof stream.destroy === 'function') {
      stream.destroy()
    } else if (source !== null && typeof source.return === 'function') {
      // An async generator finishes its pending step first; its return value is of no interest.
      Promise.resolve(source.return()).catch(() => {})
    }
  }
}
