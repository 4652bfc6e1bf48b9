/**
 * `HedgedRequest`: one request sent as several attempts, a copy after each delay while none has
 * answered. The first attempt whose response starts wins and is delivered; the others are
 * aborted at once, so each loser's connection is closed (or, not yet written, left in its pool)
 * rather than kept busy reading an answer nobody wants.
 * @module
 */

import { debuglog } from 'node:util'
import type { Duplex } from 'node:stream'
import { ForwardingController, RequestAbortedError, showRequest } from '../../src/handler.js'
import type { Dispatch, DispatchController, DispatchHandler, DispatchOptions, IncomingHeaders } from '../../src/handler.js'
import type { DeadlineBudget } from '../deadline/index.js'
import type { HedgeBudget } from './hedge-budget.js'

const debug = debuglog('conduit:hedge')

/** What one hedged request needs from its interceptor. */
export interface HedgePlan {
  readonly dispatch: Dispatch
  readonly opts: DispatchOptions
  /** The wait before each copy, in milliseconds. */
  readonly delayMs: number
  /** Copies this request may send. */
  readonly maxHedges: number
  readonly budget: HedgeBudget
  /** The deadline the request runs under, if one is composed outside. */
  readonly deadline: DeadlineBudget | undefined
  /** Told the winner's latency (dispatch to response head), in milliseconds. */
  readonly recordLatency: (ms: number) => void
}

/** One attempt: reports its hooks to the request, which decides what reaches the caller. */
class HedgeAttempt implements DispatchHandler {
  readonly index: number
  readonly startedAt = Date.now()
  controller: DispatchController | null = null
  readonly #request: HedgedRequest

  constructor (request: HedgedRequest, index: number) {
    this.#request = request
    this.index = index
  }

  onRequestStart (controller: DispatchController, context: unknown): void {
    this.controller = controller
    this.#request.started(this, controller, context)
  }

  onBodySent (chunk: Uint8Array | string): void { this.#request.bodySent(this, chunk) }
  onRequestSent (): void { this.#request.requestSent(this) }

  onResponseInformation (_controller: DispatchController, statusCode: number, headers: IncomingHeaders): void {
    this.#request.forward(this)?.onResponseInformation?.(this.#request.caller, statusCode, headers)
  }

  onResponseStart (_controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    this.#request.forward(this)?.onResponseStart?.(this.#request.caller, statusCode, headers, statusMessage)
  }

  onResponseData (_controller: DispatchController, chunk: Buffer): void {
    this.#request.forward(this)?.onResponseData?.(this.#request.caller, chunk)
  }

  onResponseEnd (_controller: DispatchController, trailers: IncomingHeaders): void {
    this.#request.forward(this)?.onResponseEnd?.(this.#request.caller, trailers)
  }

  onRequestUpgrade (_controller: DispatchController, statusCode: number, headers: IncomingHeaders, socket: Duplex): void {
    const handler = this.#request.forward(this)
    if (handler === undefined) socket.destroy()
    else handler.onRequestUpgrade?.(this.#request.caller, statusCode, headers, socket)
  }

  onResponseError (_controller: DispatchController, error: Error): void {
    this.#request.failed(this, error)
  }
}

/** The attempts of one request, the timer of the next copy, and which attempt won. */
export class HedgedRequest {
  /** The controller the caller sees: it follows the winner, and an abort ends every attempt. */
  readonly caller: ForwardingController
  readonly #plan: HedgePlan
  readonly #handler: DispatchHandler
  readonly #live = new Set<HedgeAttempt>()
  #sent = 0
  #winner: HedgeAttempt | null = null
  #reporter: HedgeAttempt | null = null
  #timer: ReturnType<typeof setTimeout> | null = null
  #startedCaller = false
  #done = false

  constructor (plan: HedgePlan, handler: DispatchHandler) {
    this.#plan = plan
    this.#handler = handler
    this.caller = new ForwardingController({ onAbort: (reason) => this.#abortAll(reason) })
  }

  /** Sends the first attempt and arms the timer of the first copy; returns what the dispatch below did. */
  start (): boolean {
    const accepted = this.#launch()
    this.#arm()
    return accepted
  }

  /** An attempt started: the caller hears of the first one only. */
  started (attempt: HedgeAttempt, controller: DispatchController, context: unknown): void {
    if (this.#done && attempt !== this.#winner) {
      controller.abort(this.caller.reason ?? new RequestAbortedError())
      return
    }
    if (this.#startedCaller) return
    this.#startedCaller = true
    this.#handler.onRequestStart?.(this.caller, context)
  }

  /** The request body goes out once per attempt: the caller hears it from one of them. */
  bodySent (attempt: HedgeAttempt, chunk: Uint8Array | string): void {
    this.#reporter ??= attempt
    if (attempt === this.#reporter) this.#handler.onBodySent?.(chunk)
  }

  requestSent (attempt: HedgeAttempt): void {
    this.#reporter ??= attempt
    if (attempt === this.#reporter) this.#handler.onRequestSent?.()
  }

  /**
   * The caller's handler when `attempt` may deliver (it answered first, now or before), else
   * undefined. The first answer makes its attempt the winner and aborts the others.
   */
  forward (attempt: HedgeAttempt): DispatchHandler | undefined {
    if (this.#winner === null && !this.#done) this.#win(attempt)
    return attempt === this.#winner ? this.#handler : undefined
  }

  /** An attempt failed: the winner's error is the caller's, and without a winner the last attempt's. */
  failed (attempt: HedgeAttempt, error: Error): void {
    this.#live.delete(attempt)
    if (this.#winner !== null) {
      if (attempt === this.#winner) this.#handler.onResponseError?.(this.caller, error)
      return
    }
    if (this.#live.size > 0) {
      if (debug.enabled) debug('attempt %d of %s failed (%s); %d still in flight', attempt.index, this.#shown(), error.message, this.#live.size)
      return
    }
    // Nothing left in flight: the failure is the request's, and retrying it is retry()'s job.
    this.#finish()
    this.#handler.onResponseError?.(this.caller, error)
  }

  #launch (): boolean {
    const attempt = new HedgeAttempt(this, this.#sent++)
    this.#live.add(attempt)
    try {
      return this.#plan.dispatch(this.#plan.opts, attempt)
    } catch (err) {
      this.#live.delete(attempt)
      // The first attempt's throw is the caller's; a copy's is one attempt that never ran.
      if (attempt.index === 0) {
        this.#finish()
        throw err
      }
      this.failed(attempt, err as Error)
      return false
    }
  }

  #arm (): void {
    if (this.#done || this.#sent > this.#plan.maxHedges) return
    // A copy that the deadline would end before it could answer is only extra load.
    const deadline = this.#plan.deadline
    if (deadline !== undefined && !deadline.allows(this.#plan.delayMs)) return
    // A pacing wait, not an I/O bound: it follows the caller's clock, so a fake one moves it.
    this.#timer = setTimeout(() => this.#hedge(), this.#plan.delayMs)
  }

  #hedge (): void {
    this.#timer = null
    if (this.#done || this.#winner !== null || this.caller.aborted) return
    const refusal = this.#plan.budget.withdraw(Date.now())
    if (refusal !== null) {
      if (debug.enabled) debug('%s not hedged: %s', this.#shown(), refusal)
      return
    }
    if (debug.enabled) debug('%s unanswered after %dms: sending copy %d', this.#shown(), this.#plan.delayMs, this.#sent)
    this.#launch()
    this.#arm()
  }

  #win (attempt: HedgeAttempt): void {
    this.#winner = attempt
    this.#finish()
    this.caller.target = attempt.controller
    this.#plan.recordLatency(Date.now() - attempt.startedAt)
    if (this.#sent > 1 && debug.enabled) debug('attempt %d of %s answered first', attempt.index, this.#shown())
    if (this.#live.size === 1) return
    const lost = new RequestAbortedError(`hedge(): another attempt of ${this.#shown()} answered first`)
    for (const other of this.#live) {
      if (other !== attempt) other.controller?.abort(lost)
    }
  }

  #abortAll (reason: Error): void {
    this.#finish()
    const winner = this.#winner
    if (winner !== null) {
      winner.controller?.abort(reason)
      return
    }
    for (const attempt of [...this.#live]) attempt.controller?.abort(reason)
  }

  // Made only for a log line or a loser's abort: most requests never need it.
  #shown (): string {
    return showRequest(this.#plan.opts)
  }

  #finish (): void {
    this.#done = true
    if (this.#timer !== null) clearTimeout(this.#timer)
    this.#timer = null
  }
}
