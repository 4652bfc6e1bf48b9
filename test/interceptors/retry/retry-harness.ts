/**
 * A scripted transport for driving RetryHandler by hand, and a recording handler that checks the
 * handler invariants (start at most once, exactly one of end/error, nothing after).
 */

import assert from 'node:assert/strict'
import type { Dispatch, DispatchHandler, DispatchOptions, IncomingHeaders } from '../../../src/handler.js'
import { SimpleController } from '../../../src/handler.js'

/** One dispatched attempt; the test plays the transport's part. */
export class Attempt {
  readonly opts: DispatchOptions
  readonly handler: DispatchHandler
  readonly controller: SimpleController
  ended = false
  aborts: Error[] = []
  pauses = 0
  resumes = 0

  constructor (opts: DispatchOptions, handler: DispatchHandler) {
    this.opts = opts
    this.handler = handler
    this.controller = new SimpleController({
      abort: (reason) => {
        this.aborts.push(reason)
        this.error(reason)
      },
      pause: () => { this.pauses++ },
      resume: () => { this.resumes++ }
    })
  }

  start (context: unknown = { transport: true }): this {
    this.handler.onRequestStart?.(this.controller, context)
    return this
  }

  head (statusCode: number, headers: IncomingHeaders = {}): this {
    if (!this.ended) this.handler.onResponseStart?.(this.controller, statusCode, headers, 'msg')
    return this
  }

  data (chunk: string | Buffer): this {
    if (!this.ended) this.handler.onResponseData?.(this.controller, Buffer.from(chunk))
    return this
  }

  end (trailers: IncomingHeaders = {}): this {
    if (this.ended) return this
    this.ended = true
    this.handler.onResponseEnd?.(this.controller, trailers)
    return this
  }

  error (err: Error): this {
    if (this.ended) return this
    this.ended = true
    this.handler.onResponseError?.(this.controller, err)
    return this
  }
}

/** A dispatch function that records each attempt for the test to drive. */
export function scriptedDispatch (): { dispatch: Dispatch, attempts: Attempt[] } {
  const attempts: Attempt[] = []
  const dispatch: Dispatch = (opts, handler) => {
    attempts.push(new Attempt(opts, handler))
    return true
  }
  return { dispatch, attempts }
}

/** An error with a code, as the transport raises for network failures. */
export function netError (code: string): Error {
  return Object.assign(new Error(`network failure ${code}`), { code })
}

/** The caller's handler: records what it sees and fails the test on a broken invariant. */
export class Recorder implements DispatchHandler {
  events: string[] = []
  context: unknown = undefined
  statusCode: number | undefined
  headers: IncomingHeaders | undefined
  body: Buffer[] = []
  error: (Error & { code?: string, statusCode?: number, data?: { count: number } }) | undefined
  controller: import('../../../src/handler.js').DispatchController | undefined
  #finished = false

  #check (event: string): void {
    assert.equal(this.#finished, false, `${event} after the dispatch ended (${this.events.join(', ')})`)
    this.events.push(event)
  }

  onRequestStart (controller: import('../../../src/handler.js').DispatchController, context: unknown): void {
    this.#check('start')
    this.controller = controller
    this.context = context
  }

  onRequestUpgrade (_c: unknown, statusCode: number): void {
    this.#check(`upgrade ${statusCode}`)
    this.#finished = true
  }

  onResponseStart (_c: unknown, statusCode: number, headers: IncomingHeaders): void {
    this.#check(`head ${statusCode}`)
    if (statusCode < 200) return
    assert.equal(this.statusCode, undefined, 'onResponseStart called twice')
    this.statusCode = statusCode
    this.headers = headers
  }

  onResponseData (_c: unknown, chunk: Buffer): void {
    this.#check('data')
    this.body.push(chunk)
  }

  onResponseEnd (): void {
    this.#check('end')
    this.#finished = true
  }

  onResponseError (_c: unknown, err: Error): void {
    this.#check('error')
    this.#finished = true
    this.error = err
  }

  get finished (): boolean {
    return this.#finished
  }

  get text (): string {
    return Buffer.concat(this.body).toString()
  }
}
