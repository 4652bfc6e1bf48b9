/**
 * `RateLimitHandler`: frees its request's slot when the request ends, and shows the limiter the
 * server's answer (`Retry-After`, `RateLimit`, `RateLimit-Policy`) when the head arrives.
 * @module
 */

import type { Duplex } from 'node:stream'
import { DecoratorHandler } from '../../src/handler.js'
import type { DispatchController, DispatchHandler, IncomingHeaders } from '../../src/handler.js'
import { retryAfterMs } from '../retry/index.js'
import type { Limiter } from './limiter.js'
import { parseRateLimit, parseRateLimitPolicy } from './ratelimit-fields.js'

/** Watches one request the limiter let through. */
export class RateLimitHandler extends DecoratorHandler {
  readonly #limiter: Limiter
  readonly #adaptive: boolean
  #released = false

  constructor (handler: DispatchHandler, limiter: Limiter, adaptive: boolean) {
    super(handler)
    this.#limiter = limiter
    this.#adaptive = adaptive
  }

  override onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    if (this.#adaptive && statusCode >= 200 && headers !== null && typeof headers === 'object') {
      const now = Date.now()
      const h = headers as Record<string, string | string[] | undefined>
      this.#limiter.observe(now, statusCode, retryAfterMs(h['retry-after'], now), parseRateLimit(h.ratelimit), parseRateLimitPolicy(h['ratelimit-policy']))
    }
    super.onResponseStart(controller, statusCode, headers, statusMessage)
  }

  override onRequestUpgrade (controller: DispatchController, statusCode: number, headers: IncomingHeaders, socket: Duplex): void {
    this.#release()
    super.onRequestUpgrade(controller, statusCode, headers, socket)
  }

  override onResponseEnd (controller: DispatchController, trailers: IncomingHeaders): void {
    this.#release()
    super.onResponseEnd(controller, trailers)
  }

  override onResponseError (controller: DispatchController, error: Error): void {
    this.#release()
    super.onResponseError(controller, error)
  }

  /** The dispatch threw before the request started: its slot is given back. */
  release (): void {
    this.#release()
  }

  #release (): void {
    if (this.#released) return
    this.#released = true
    this.#limiter.release()
  }
}
