/**
 * What `reply()` returns: one registered reply, tuned with `delay`, `persist` and `times`.
 * @module
 */

import { InvalidArgumentError } from '../errors.js'
import { MAX_TIMER_MS } from '../validation/timer-limit.js'
import type { MockKey } from './mock-matching.js'
import type { DispatchOptions, IncomingHeaders } from '../contracts/dispatch-contract.js'
import { describeValue } from '../validation/describe-value.js'

/** The request as reply callbacks see it: dispatch options with lower-case headers and the body as text. */
export interface MockRequestOptions extends DispatchOptions {
  headers: IncomingHeaders
  /**
   * The request body: as text when it was given in memory; a streamed one (a stream, an
   * iterable) as an async iterable of the chunks sent, as undici gives it.
   */
  body: string | AsyncIterable<string | Uint8Array> | undefined
}

/** A reply as registered: status, body (or a function of the request giving it), headers, trailers. */
export interface RegisteredReply {
  statusCode: number
  data: unknown
  headers: IncomingHeaders
  trailers: IncomingHeaders
  /** Add a `content-length` header computed from the body. */
  withLength: boolean
}

/** How a registered interceptor answers. */
export type MockReplySpec =
  | ({ kind: 'static' } & RegisteredReply)
  | { kind: 'callback', produce: (opts: MockRequestOptions) => RegisteredReply | Promise<RegisteredReply> }
  | { kind: 'error', error: Error }

/** One registered interceptor with its reply and usage counters. */
export interface MockDispatchRecord {
  key: MockKey
  /** The query object given to `intercept()`, kept for `pendingInterceptors()`. */
  query: Record<string, unknown> | undefined
  reply: MockReplySpec
  /** How many matching requests it answers before it is used up. */
  times: number
  /** When true it is never used up. */
  persist: boolean
  /** Milliseconds to wait before replying. */
  delay: number
  timesInvoked: number
}

/** The interceptors of one origin (shared by every pool whose origin a RegExp or function key matched). */
export class MockDispatchList {
  /** Registered interceptors that are not used up, in registration order. */
  items: MockDispatchRecord[] = []
  /** How many were ever registered (for error messages). */
  total = 0

  /** Registers an interceptor. */
  add (record: MockDispatchRecord): void {
    this.items.push(record)
    this.total++
  }

  /** Counts one use of `record` and drops it once it is used up (unless it persists). */
  use (record: MockDispatchRecord): void {
    record.timesInvoked++
    if (!record.persist && record.timesInvoked >= record.times) {
      const index = this.items.indexOf(record)
      if (index !== -1) this.items.splice(index, 1)
    }
  }
}

function positiveInteger (method: string, name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    throw new InvalidArgumentError(`MockScope.${method}(): ${name} must be a positive integer, got ${describeValue(value)}`)
  }
  return value
}

/**
 * A registered reply. Replies answer one request unless `times` or `persist` say otherwise.
 * @example
 * mockPool.intercept({ path: '/users' }).reply(200, []).times(2).delay(10)
 */
export class MockScope<TData extends object = object> {
  // `TData` is the type of the reply's data, as undici's MockScope carries it for its callers.
  declare private readonly replyData?: TData

  readonly #record: MockDispatchRecord

  /** @internal Built by `reply()` and `replyWithError()`. */
  constructor (record: MockDispatchRecord) {
    this.#record = record
  }

  /** Waits `waitInMs` milliseconds (a positive integer) before replying, or before failing after `replyWithError()`. */
  delay (waitInMs: number): this {
    this.#record.delay = positiveInteger('delay', 'waitInMs', waitInMs)
    if (waitInMs > MAX_TIMER_MS) throw new InvalidArgumentError(`MockScope.delay(): waitInMs must be at most ${MAX_TIMER_MS}, got ${waitInMs}`)
    return this
  }

  /** Keeps answering every matching request; the reply is never used up. */
  persist (): this {
    this.#record.persist = true
    return this
  }

  /** Answers `repeatTimes` matching requests (a positive integer) before it is used up. */
  times (repeatTimes: number): this {
    this.#record.times = positiveInteger('times', 'repeatTimes', repeatTimes)
    return this
  }
}
