/**
 * One origin request answering several identical callers. Every caller gets its own
 * controller and its own copy of the body: one pausing holds only its own copy back (up to
 * `maxBufferSize`), and the network pauses only when every caller has paused.
 * @module
 */

import { SimpleController, RequestAbortedError, DualShapeHandler } from '../../src/handler.js'
import type { DispatchController, DispatchHandler, IncomingHeaders } from '../../src/handler.js'

type Pending = { kind: 'data', chunk: Buffer } | { kind: 'end', trailers: IncomingHeaders } | { kind: 'error', error: Error }

/** One caller of a shared request. */
class Waiter {
  readonly handler: DispatchHandler
  readonly controller: SimpleController
  readonly #owner: SharedResponse
  readonly #maxBuffer: number
  #queue: Pending[] = []
  #buffered = 0
  done = false

  constructor (handler: DispatchHandler, owner: SharedResponse, maxBuffer: number) {
    this.handler = handler
    this.#owner = owner
    this.#maxBuffer = maxBuffer
    this.controller = new SimpleController({
      abort: (reason) => this.#leave(reason),
      pause: () => owner.updateFlow(),
      resume: () => {
        this.#flush()
        owner.updateFlow()
      }
    })
  }

  get active (): boolean { return !this.done }

  push (event: Pending): void {
    if (this.done) return
    if (this.controller.paused || this.#queue.length > 0) {
      if (event.kind === 'data') {
        this.#buffered += event.chunk.length
        if (this.#buffered > this.#maxBuffer) {
          this.#leave(new RequestAbortedError(`deduplicate(): a paused caller held more than maxBufferSize (${this.#maxBuffer} bytes) of a shared response`))
          return
        }
      }
      this.#queue.push(event)
      return
    }
    this.#deliver(event)
  }

  #flush (): void {
    while (this.#queue.length > 0 && !this.controller.paused && !this.done) {
      const event = this.#queue.shift()!
      if (event.kind === 'data') this.#buffered -= event.chunk.length
      this.#deliver(event)
    }
  }

  #deliver (event: Pending): void {
    switch (event.kind) {
      case 'data':
        this.handler.onResponseData?.(this.controller, event.chunk)
        return
      case 'end':
        this.done = true
        this.handler.onResponseEnd?.(this.controller, event.trailers)
        return
      case 'error':
        this.done = true
        this.handler.onResponseError?.(this.controller, event.error)
    }
  }

  #leave (reason: Error): void {
    if (this.done) return
    this.done = true
    this.#queue = []
    this.handler.onResponseError?.(this.controller, reason)
    this.#owner.left()
  }
}

/** The handler of the one origin request; fans every event out to the waiters. */
export class SharedResponse extends DualShapeHandler implements DispatchHandler {
  readonly #waiters: Waiter[] = []
  readonly #maxBuffer: number
  readonly #onSettled: () => void
  #upstream: DispatchController | null = null
  #context: unknown = undefined
  #started = false
  #answered = false
  #upstreamPaused = false

  /**
   * @param first - the handler of the request that goes out
   * @param maxBuffer - most bytes held for one paused waiter
   * @param onSettled - called once no caller can join any more (the answer began, or failed)
   */
  constructor (first: DispatchHandler, maxBuffer: number, onSettled: () => void) {
    super()
    this.#maxBuffer = maxBuffer
    this.#onSettled = onSettled
    this.#waiters.push(new Waiter(first, this, maxBuffer))
  }

  /** Callers sharing this request. */
  get size (): number { return this.#waiters.length }

  /** Adds a caller; false when the answer already began and the caller must send its own request. */
  join (handler: DispatchHandler): boolean {
    if (this.#answered) return false
    const waiter = new Waiter(handler, this, this.#maxBuffer)
    this.#waiters.push(waiter)
    if (this.#started) waiter.handler.onRequestStart?.(waiter.controller, this.#context)
    // A caller that is not paused lifts a pause the earlier callers put on the network.
    this.updateFlow()
    return true
  }

  /** Pauses the network while every remaining caller is paused, resumes it otherwise. */
  updateFlow (): void {
    const upstream = this.#upstream
    if (upstream === null) return
    const active = this.#waiters.filter((w) => w.active)
    const allPaused = active.length > 0 && active.every((w) => w.controller.paused)
    if (allPaused && !this.#upstreamPaused) {
      this.#upstreamPaused = true
      upstream.pause()
    } else if (!allPaused && this.#upstreamPaused) {
      this.#upstreamPaused = false
      upstream.resume()
    }
  }

  /** A caller aborted; once none is left the origin request is aborted too. */
  left (): void {
    if (this.#waiters.some((w) => w.active)) {
      this.updateFlow()
      return
    }
    this.#settle()
    this.#upstream?.abort(new RequestAbortedError('deduplicate(): every caller of the shared request aborted'))
  }

  #settle (): void {
    if (this.#answered) return
    this.#answered = true
    this.#onSettled()
  }

  onRequestStart (controller: DispatchController, context: unknown): void {
    this.#upstream = controller
    this.#started = true
    this.#context = context
    for (const waiter of this.#waiters) if (waiter.active) waiter.handler.onRequestStart?.(waiter.controller, context)
  }

  onResponseInformation (_controller: DispatchController, statusCode: number, headers: IncomingHeaders): void {
    for (const waiter of this.#waiters) if (waiter.active) waiter.handler.onResponseInformation?.(waiter.controller, statusCode, { ...headers })
  }

  onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    this.#upstream = controller
    this.#settle()
    for (const waiter of this.#waiters) if (waiter.active) waiter.handler.onResponseStart?.(waiter.controller, statusCode, { ...headers }, statusMessage)
  }

  onResponseData (_controller: DispatchController, chunk: Buffer): void {
    for (const waiter of this.#waiters) waiter.push({ kind: 'data', chunk })
  }

  onResponseEnd (_controller: DispatchController, trailers: IncomingHeaders): void {
    for (const waiter of this.#waiters) waiter.push({ kind: 'end', trailers })
  }

  onResponseError (_controller: DispatchController, error: Error): void {
    this.#settle()
    for (const waiter of this.#waiters) waiter.push({ kind: 'error', error })
  }
}
