/**
 * Happy-eyeballs failover of one request: when the connection to the chosen address is refused
 * or times out before any answer, the request is sent once more to an address of the other family.
 * @module
 */

import { AttemptSpanningHandler, copyOptions, fromUndiciCode, showOrigin } from '../../src/handler.js'
import type { Dispatch, DispatchController, DispatchHandler, DispatchOptions, IncomingHeaders } from '../../src/handler.js'
import type { DnsRecord } from './records.js'
import type { DnsResolver } from './resolver.js'
import { addressOrigin, log } from './resolver.js'

/** Connection errors that say "this address does not answer", worth trying the other family for. */
const FAILOVER_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'LIB_ERR_CONNECT_TIMEOUT'])

/** What one resolved request needs to fail over. */
export interface DnsAttempt {
  resolver: DnsResolver
  dispatch: Dispatch
  /** The origin as the caller gave it. */
  origin: URL
  /** The options sent to the first address. */
  opts: DispatchOptions
  /** The first address. */
  record: DnsRecord
  dualStack: boolean
}

/** Forwards everything; retries once on the other family when the first address refuses. */
export class DnsHandler extends AttemptSpanningHandler {
  readonly #attempt: DnsAttempt
  #answered = false
  #failedOver = false

  constructor (handler: DispatchHandler, attempt: DnsAttempt) {
    super(handler)
    this.#attempt = attempt
  }

  override onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    this.#answered = true
    super.onResponseStart(controller, statusCode, headers, statusMessage)
  }

  override onResponseError (controller: DispatchController, error: Error): void {
    const attempt = this.#attempt
    const code = (error as { code?: unknown }).code
    if (code === 'ENOTFOUND') attempt.resolver.forget(attempt.origin.hostname)
    const next = this.#failoverRecord(typeof code === 'string' ? fromUndiciCode(code) : '')
    if (next === null) {
      super.onResponseError(controller, error)
      return
    }
    this.#failedOver = true
    const origin = addressOrigin(attempt.origin, next)
    log('%s refused %s (%s); trying %s', showOrigin(attempt.opts.origin), attempt.origin.host, code, origin)
    try {
      const next = copyOptions(attempt.opts)
      next.origin = origin
      attempt.dispatch(next, this)
    } catch (err) {
      super.onResponseError(controller, err as Error)
    }
  }

  #failoverRecord (code: string): DnsRecord | null {
    const attempt = this.#attempt
    if (!attempt.dualStack || this.#failedOver || this.#answered || this.callerController.reason !== null || !FAILOVER_CODES.has(code)) return null
    return attempt.resolver.other(attempt.origin.hostname, attempt.record.family === 4 ? 6 : 4)
  }
}
