/**
 * `RetryHandler`: the per-request state machine of retrying. It serves one dispatch, re-issues
 * the request after retryable failures, resumes partly delivered bodies, and shows the caller's
 * handler exactly one response (or one error).
 * @module
 */

import { debuglog } from 'node:util'
import type { Duplex } from 'node:stream'
import { DecoratorHandler, InvalidArgumentError, copyOptions, RequestAbortedError, RequestRetryError, ForwardingController, redactHeaders } from '../../src/handler.js'
import type { Dispatch, DispatchController, DispatchHandler, DispatchOptions, IncomingHeaders } from '../../src/handler.js'
import { checkRetryHandlerArgs, resolveRetryOptions } from './retry-options.js'
import type { ResolvedRetryOptions, RetryDispatchContext, RetryHandlerOptions, RetryHandlers } from './retry-options.js'
import { copyContext, retryContext } from './retry-context.js'
import { askRetry, defaultRetry, describeFailure, describeRequest, planRetry } from './retry-strategy.js'
import { BodyProgress, checkResumed, partialStartError, rangeFor, resumeHeaders } from './resume.js'
import type { ResumePoint } from './resume.js'
import { PrefixCheck, checkRestarted } from './restart.js'
import type { RestartPoint } from './restart.js'
import { isStatefulBody, statefulBodyError } from './stateful-body.js'
import { RetryWait } from './retry-wait.js'
import { HeldResponse } from './held-response.js'
import type * as retryOptions from './retry-options.js'
import { deadlineBudgetOf } from '../deadline/index.js'
import type { RetryBudget } from './retry-budget.js'

const debug = debuglog('conduit:retry')

const EMPTY_CONTEXT: object = Object.freeze({})

/**
 * Retries one dispatch: exponential backoff, `Retry-After`, eligibility by
 * method, status and error code, and `Range` resume guarded by the original strong `ETag`.
 * Dispatch it as the handler of the first attempt; it issues the later ones through `dispatch`.
 * @example
 * const handler = new RetryHandler(
 *   { ...opts, retryOptions: { maxRetries: 3 } },
 *   { dispatch: (o, h) => agent.dispatch(o, h), handler: callerHandler }
 * )
 * agent.dispatch(opts, handler)
 */
export class RetryHandler extends DecoratorHandler {
  /** The built-in `retry` callback, for custom callbacks that want to delegate to it. */
  static readonly defaultRetry = defaultRetry

  readonly #dispatch: Dispatch
  readonly #options: ResolvedRetryOptions
  readonly #baseOpts: DispatchOptions
  readonly #controller: ForwardingController
  readonly #startedAt: number
  #opts: DispatchOptions
  // True from an attempt's dispatch to its end, error or upgrade (the first attempt is dispatched by the caller).
  #attemptOpen = true
  #retries = 0
  #decision = 0
  #context: RetryDispatchContext | null = null
  /** The context the current attempt's layer below gave, which getters of {@link #context} read. */
  #below: object = EMPTY_CONTEXT
  readonly #latestBelow = (): object => this.#below
  #headersSent = false
  readonly #progress = new BodyProgress()
  // Set while a restarted body's first bytes are compared with the delivered ones.
  #prefix: PrefixCheck | null = null
  #failing: HeldResponse | null = null
  #ready = false
  #dispatching = false
  // Created on the first failure: most requests never wait.
  #wait: RetryWait | null = null
  #done = false
  readonly #onSettled: (() => void) | undefined
  readonly #budget: RetryBudget | undefined

  /**
   * @param opts - dispatch options; `opts.retryOptions` configures this request
   * @param handlers - `dispatch` for each attempt and the caller's `handler`
   * @param defaults - resolved options used when `opts.retryOptions` is absent (what an interceptor resolved once)
   * @param onSettled - called once, just before the caller's handler hears the end of the dispatch
   * (its end, error or upgrade): the interceptor keeps track of retried dispatches with it
   * @param budget - the retry budget of the interceptor, which every retry is taken from
   */
  constructor (opts: RetryHandlerOptions, handlers: RetryHandlers, defaults?: ResolvedRetryOptions, onSettled?: () => void, budget?: RetryBudget) {
    checkRetryHandlerArgs(opts, handlers)
    super(handlers.handler)
    const retryOptions = opts.retryOptions
    // The attempts must not carry retryOptions to a retry interceptor further down; a copy with the
    // key cleared keeps the object's shape fast, where deleting the key would not.
    let rest: DispatchOptions = opts
    if (retryOptions !== undefined || opts.method === undefined) {
      rest = copyOptions(opts)
      rest.retryOptions = undefined
      rest.method = opts.method ?? 'GET'
    }
    this.#options = retryOptions === undefined && defaults !== undefined
      ? defaults
      : resolveRetryOptions(retryOptions, defaultRetry, 'RetryHandler')
    this.#startedAt = this.#options.deadlineMs === undefined ? 0 : Date.now()
    this.#dispatch = handlers.dispatch
    this.#baseOpts = rest
    this.#opts = rest
    this.#controller = new ForwardingController({ onAbort: (reason) => this.#abort(reason) })
    this.#onSettled = onSettled
    this.#budget = budget
  }

  /** Ends the retried dispatch now: a pending wait is cancelled, a running attempt aborted. */
  abort (reason: Error): void {
    this.#controller.abort(reason)
  }

  // Hooks this handler does not override (1xx information, body-sent) reach the caller with the
  // controller that outlives the attempts.
  protected override controllerFor (): DispatchController {
    return this.#controller
  }

  // Attempts follow one another: the next is dispatched only once the previous one ended, and the
  // contract allows nothing after an end, so "is an attempt open" is the one check every hook makes.
  #current (): boolean {
    return this.#attemptOpen && !this.#done
  }

  override onRequestStart (controller: DispatchController, context: unknown): void {
    if (!this.#current()) {
      controller.abort(this.#controller.reason ?? new RequestAbortedError('retry: the retried request already ended'))
      return
    }
    this.#controller.target = controller
    this.#below = typeof context === 'object' && context !== null ? context : EMPTY_CONTEXT
    if (this.#context !== null) {
      copyContext(this.#context, context, this.#latestBelow)
      this.#context.retryCount = this.#retries
      return
    }
    this.#context = retryContext(context, this.#latestBelow, this.#retries)
    this.handler.onRequestStart?.(this.#controller, this.#context)
  }

  override onRequestUpgrade (_controller: DispatchController, statusCode: number, headers: IncomingHeaders, socket: Duplex): void {
    if (!this.#current()) {
      socket.destroy()
      return
    }
    this.#attemptOpen = false
    this.#settle()
    this.handler.onRequestUpgrade?.(this.#controller, statusCode, headers, socket)
  }

  override onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    if (!this.#current()) return
    if (statusCode < 200) {
      if (!this.#headersSent) this.handler.onResponseStart?.(this.#controller, statusCode, headers, statusMessage)
      return
    }
    if (this.#options.statusCodes.includes(statusCode)) {
      // The caller's pause and resume must not reach a response it may never see.
      this.#controller.target = null
      this.#failing = new HeldResponse(controller, statusCode, headers, statusMessage)
      this.#decide(new RequestRetryError(`retry(): ${describeRequest(this.#opts)} failed with status ${statusCode}`, statusCode, {
        headers: redactHeaders(headers) as IncomingHeaders,
        data: { count: this.#attempt() }
      }))
      return
    }
    if (!this.#headersSent) {
      const mismatch = statusCode === 206 ? partialStartError(describeRequest(this.#opts), headers, this.#attempt()) : undefined
      if (mismatch !== undefined) return this.#finishError(mismatch, controller)
      this.#deliverHead(statusCode, headers, statusMessage)
      return
    }
    const point = this.#progress.point() as ResumePoint | RestartPoint
    if ('restart' in point) {
      const problem = checkRestarted(point, statusCode, headers)
      if (problem !== undefined) return this.#cannotContinue(point.delivered, problem, statusCode, headers, controller)
      this.#prefix = new PrefixCheck(point, statusCode, headers)
      this.#log(`restarted ${describeRequest(this.#opts)}: comparing its first ${point.delivered} bytes with the delivered ones`)
      return
    }
    const problem = checkResumed(point, statusCode, headers)
    if (problem !== undefined) return this.#cannotContinue(point.next, problem, statusCode, headers, controller)
    this.#log(`resumed ${describeRequest(this.#opts)} at byte ${point.next}`)
  }

  // The answer to a resume or a restart does not continue the delivered body: fail rather than splice.
  #cannotContinue (at: number, problem: string, statusCode: number, headers: IncomingHeaders, controller: DispatchController): void {
    const err = new RequestRetryError(`retry(): cannot continue ${describeRequest(this.#opts)} at byte ${at}: ${problem}`, statusCode, {
      headers: redactHeaders(headers) as IncomingHeaders,
      data: { count: this.#attempt() }
    })
    this.#log(`giving up on ${describeRequest(this.#opts)}: cannot continue at byte ${at}: ${problem}`)
    this.#finishError(err, controller)
  }

  override onResponseData (controller: DispatchController, chunk: Buffer): void {
    if (!this.#current()) return
    const failing = this.#failing
    if (failing !== null) {
      failing.hold(chunk)
      return
    }
    const prefix = this.#prefix
    if (prefix !== null && !prefix.matched) {
      const rest = prefix.take(chunk)
      if (typeof rest === 'string') return this.#cannotContinue(prefix.at, rest, prefix.statusCode, prefix.headers, controller)
      if (rest.length === 0) return
      chunk = rest
    }
    this.#deliverData(chunk)
  }

  override onResponseEnd (controller: DispatchController, trailers: IncomingHeaders): void {
    if (!this.#current()) return
    this.#attemptOpen = false
    const failing = this.#failing
    const short = failing === null ? this.#prefix?.ended() : undefined
    if (short !== undefined) {
      this.#cannotContinue(this.#prefix!.at, short, this.#prefix!.statusCode, this.#prefix!.headers, controller)
    } else if (failing === null) {
      this.#finishEnd(trailers)
    } else if (failing.draining) {
      this.#failing = null
      this.#maybeNext()
    } else {
      failing.ended = trailers ?? {}
    }
  }

  override onResponseError (_controller: DispatchController, error: Error): void {
    if (!this.#current()) return
    this.#attemptOpen = false
    this.#attemptFailed(error)
  }

  #deliverHead (statusCode: number, headers: IncomingHeaders, statusMessage: string | undefined): void {
    this.#headersSent = true
    this.#progress.started(this.#baseOpts.method, statusCode, headers)
    this.handler.onResponseStart?.(this.#controller, statusCode, headers, statusMessage)
  }

  #deliverData (chunk: Buffer): void {
    this.#progress.delivered(chunk)
    this.handler.onResponseData?.(this.#controller, chunk)
  }

  // The open attempt failed (or its dispatch threw).
  #attemptFailed (err: Error): void {
    const failing = this.#failing
    if (failing !== null) {
      if (!failing.draining) {
        failing.error = err
        return
      }
      this.#failing = null
      this.#maybeNext()
      return
    }
    const point = this.#headersSent ? this.#progress.point() : null
    if (typeof point === 'string') {
      this.#log(`giving up on ${describeRequest(this.#opts)}: ${describeFailure(err)} after the response started, cannot resume: ${point}`)
      this.#finishError(err)
      return
    }
    this.#decide(err)
  }

  #decide (err: Error): void {
    this.#wait ??= new RetryWait()
    this.#wait.watch(this.#opts.signal, (reason) => this.#abort(reason))
    if (this.#done) return
    const counter = this.#retries + 1
    if (this.#options.retry === defaultRetry) {
      const plan = planRetry(err, counter, this.#opts.method, this.#options, Date.now())
      if (plan.retry) this.#approve(err, counter, plan.delayMs, plan.reason, true)
      else this.#giveUp(err, plan.reason)
      return
    }
    const token = ++this.#decision
    const askedAt = Date.now()
    const opts = copyOptions(this.#opts) as DispatchOptions & { retryOptions: ResolvedRetryOptions }
    opts.retryOptions = this.#options
    const context = { state: { counter }, opts }
    askRetry(this.#options.retry, err, context, (stop) => {
      if (token !== this.#decision || this.#done) return
      if (stop === null) this.#approve(err, counter, Date.now() - askedAt, 'the retry callback asked for it', false)
      else this.#giveUp(stop, 'the retry callback stopped')
    })
  }

  // A retry is wanted; `wait` tells whether `delayMs` is still to be waited (built-in) or already was (callback).
  #approve (err: Error, counter: number, delayMs: number, reason: string, wait: boolean): void {
    if (isStatefulBody(this.#opts.body)) {
      this.#giveUp(statefulBodyError(describeRequest(this.#opts), this.#opts.body, err, this.#attempt()), 'the request body is stateful', false)
      return
    }
    const deadline = this.#options.deadlineMs
    if (deadline !== undefined && Date.now() + (wait ? delayMs : 0) > this.#startedAt + deadline) {
      this.#giveUp(err, `the retry would start after deadlineMs (${deadline}ms)`)
      return
    }
    // A deadline composed outside bounds every attempt: a wait it would outlast is not begun.
    const budget = deadlineBudgetOf(this.#opts)
    if (budget !== undefined && !budget.allows(wait ? delayMs : 0)) {
      this.#giveUp(budget.retryRefused(wait ? delayMs : 0, err), `the deadline (${budget.timeoutMs}ms) has ${Math.floor(budget.leftMs())}ms left, not enough for the wait and an attempt`)
      return
    }
    // Taken last, so a retry refused for another reason spends nothing.
    const spent = this.#budget?.withdraw(Date.now())
    if (spent != null) {
      this.#giveUp(err, spent)
      return
    }
    try {
      this.#options.onRetry?.(err, { counter, delayMs })
    } catch (thrown) {
      this.#giveUp(thrown instanceof Error ? thrown : err, 'onRetry threw')
      return
    }
    // onRetry may have aborted the request or destroyed the dispatcher.
    if (this.#done) return
    this.#log(`retrying ${describeRequest(this.#opts)} in ${wait ? delayMs : 0}ms (retry ${counter} of ${this.#options.maxRetries}): ${reason}`)
    this.#discardFailing()
    // An answer given while the previous attempt is still being dispatched (a dispatcher that
    // fails synchronously) waits one turn, so a callback that always retries cannot overflow the stack.
    if (!wait && !this.#dispatching) {
      this.#ready = true
      this.#maybeNext()
      return
    }
    if (budget !== undefined) budget.phase = 'retry-wait'
    this.#wait!.sleep(wait ? delayMs : 0, () => {
      this.#ready = true
      this.#maybeNext()
    })
  }

  #giveUp (err: Error, reason: string, passThrough = true): void {
    this.#log(`giving up on ${describeRequest(this.#opts)}: ${reason}`)
    const failing = this.#failing
    if (failing !== null && passThrough && !this.#options.throwOnError && !this.#headersSent) {
      this.#passThrough(failing)
      return
    }
    // With throwOnError the failing response is not shown to the caller: it is dropped with its connection.
    this.#finishError(err, failing?.controller)
  }

  #passThrough (failing: HeldResponse): void {
    this.#failing = null
    this.#wait?.clear()
    this.#controller.target = failing.controller
    this.#deliverHead(failing.statusCode, failing.headers, failing.statusMessage)
    for (const chunk of failing.chunks) {
      if (this.#done) return
      this.#deliverData(chunk)
    }
    if (failing.ended !== null) this.#finishEnd(failing.ended)
    else if (failing.error !== null) this.#finishError(failing.error)
    else if (!this.#done && !this.#controller.paused) failing.controller.resume()
  }

  // The failing response's body is read and dropped, so its connection can serve the next attempt.
  #discardFailing (): void {
    if (this.#failing?.settled === true) this.#failing = null
    else this.#failing?.drain()
  }

  #maybeNext (): void {
    if (!this.#ready || this.#failing !== null || this.#done) return
    this.#ready = false
    this.#wait?.clear()
    this.#retries++
    this.#attemptOpen = true
    this.#controller.target = null
    if (this.#context !== null) this.#context.retryCount = this.#retries
    this.#prefix = null
    const point = this.#headersSent ? this.#progress.point() as ResumePoint | RestartPoint : null
    if (point !== null && 'restart' in point) {
      this.#opts = this.#baseOpts
      // Without a strong ETag a Range could splice two representations: the whole body is asked for again.
      this.#log(`asking for all of ${describeRequest(this.#opts)} again, ${point.delivered} bytes of it already delivered`)
    } else if (point !== null) {
      this.#opts = copyOptions(this.#baseOpts)
      this.#opts.headers = resumeHeaders(this.#baseOpts.headers, point)
      this.#log(`asking for ${rangeFor(point)} of ${describeRequest(this.#opts)} with If-Match ${point.etag}`)
    }
    this.#dispatching = true
    try {
      const accepted = this.#dispatch(this.#opts, this)
      const budget = deadlineBudgetOf(this.#opts)
      if (budget !== undefined && budget.phase === 'retry-wait') budget.phase = accepted ? 'connect' : 'queue'
    } catch (err) {
      if (this.#current()) {
        this.#attemptOpen = false
        this.#attemptFailed(err instanceof Error ? err : new InvalidArgumentError(`retry(): dispatch threw ${String(err)}`))
      }
    } finally {
      this.#dispatching = false
    }
  }

  #abort (reason: Error): void {
    if (this.#done) return
    this.#log(`${describeRequest(this.#opts)} aborted: ${reason.message}`)
    this.#finishError(reason, this.#failing?.controller ?? this.#controller.target ?? undefined)
  }

  #settle (): void {
    this.#done = true
    this.#onSettled?.()
    this.#failing = null
    this.#wait?.clear()
  }

  #finishEnd (trailers: IncomingHeaders): void {
    if (this.#done) return
    this.#settle()
    this.handler.onResponseEnd?.(this.#controller, trailers ?? {})
  }

  #finishError (err: Error, attempt?: DispatchController): void {
    if (this.#done) return
    this.#settle()
    if (attempt !== undefined && !attempt.aborted) attempt.abort(err)
    this.handler.onResponseError?.(this.#controller, err)
  }

  // The number of the attempt running now (1 for the first), which undici reports as `data.count`.
  #attempt (): number {
    return this.#retries + 1
  }

  #log (message: string): void {
    if (debug.enabled) debug(message)
  }
}

/** undici's names for the retry types (`RetryHandler.RetryCallback`). */
export declare namespace RetryHandler {
  /** {@link retryOptions.RetryOptions}. */
  export type RetryOptions = retryOptions.RetryOptions
  /** {@link retryOptions.RetryCallback}. */
  export type RetryCallback = retryOptions.RetryCallback
  /** What a retry callback calls back: no error to retry, an error to stop. */
  export type OnRetryCallback = Parameters<retryOptions.RetryCallback>[2]
  /** {@link retryOptions.RetryContext}. */
  export type RetryContext = retryOptions.RetryContext
  /** {@link retryOptions.RetryHandlers}. */
  export type RetryHandlers = retryOptions.RetryHandlers
  /** {@link retryOptions.RetryState}. */
  export type RetryState = retryOptions.RetryState
}
