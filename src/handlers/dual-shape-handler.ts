/**
 * The older hooks (onConnect, onHeaders, onData, onComplete, onError, onUpgrade) on a handler of
 * the dispatch contract: an interceptor written for undici 6 or 7 calls them on the handler it
 * wraps, and every handler conduit hands an interceptor answers them by running its own hooks.
 * @module
 */

import type { Duplex } from 'node:stream'
import type { DispatchHandler, IncomingHeaders } from '../contracts/dispatch-contract.js'
import { SimpleController } from './simple-controller.js'
import { parseHeaders } from '../util/raw-headers.js'
import type { RawHeaderEntry } from '../util/raw-headers.js'

/**
 * One dispatch seen through the older shape: the `abort` onConnect gave, the `resume` onHeaders
 * gave, and the contract controller built on them (pausing is answered by a `false` return).
 */
class LegacyCall {
  #abort: ((err?: Error) => void) | null
  #resume: (() => void) | null = null
  readonly controller: SimpleController

  constructor (abort: unknown) {
    this.#abort = typeof abort === 'function' ? abort as (err?: Error) => void : null
    this.controller = new SimpleController({ abort: (reason) => this.#abort?.(reason), resume: () => this.#resume?.() })
  }

  /** Keeps the `resume` an onHeaders call gave, which the controller's `resume()` calls. */
  resumeWith (resume: unknown): void {
    if (typeof resume === 'function') this.#resume = resume as () => void
  }
}

/** Raw `[name, value, ...]` headers (Buffers or strings), or an object of them, as the dispatch contract's object. */
function headersOf (raw: unknown): IncomingHeaders {
  if (raw == null) return {}
  if (Array.isArray(raw)) return parseHeaders(raw as RawHeaderEntry[]) as IncomingHeaders
  return raw as IncomingHeaders
}

/**
 * A base for handlers of the dispatch contract that also answers the older hook shape, for
 * interceptors written for undici 6 and 7: each older call runs the contract hook it stands for,
 * with a controller built from the `abort` of `onConnect` (pausing is `false` from `onHeaders`
 * or `onData`, resuming the `resume` that `onHeaders` gave).
 */
export abstract class DualShapeHandler {
  #legacy: LegacyCall | null = null

  #call (): LegacyCall {
    this.#legacy ??= new LegacyCall(null)
    return this.#legacy
  }

  /** Older shape: the request is about to be sent; `abort` cancels it. */
  onConnect (abort: (err?: Error) => void, context?: unknown): void {
    this.#legacy = new LegacyCall(abort)
    ;(this as DispatchHandler).onRequestStart?.(this.#legacy.controller, context)
  }

  /** Older shape: a response head (an informational one below 200); `false` asks to pause. */
  onHeaders (statusCode: number, rawHeaders: unknown, resume: () => void, statusText?: string): boolean {
    const call = this.#call()
    call.resumeWith(resume)
    const self = this as DispatchHandler
    if (statusCode < 200) self.onResponseInformation?.(call.controller, statusCode, headersOf(rawHeaders))
    else self.onResponseStart?.(call.controller, statusCode, headersOf(rawHeaders), statusText)
    return !call.controller.paused
  }

  /** Older shape: a body chunk; `false` asks to pause. */
  onData (chunk: Buffer): boolean {
    const controller = this.#call().controller
    ;(this as DispatchHandler).onResponseData?.(controller, chunk)
    return !controller.paused
  }

  /** Older shape: the response completed, with its trailers. */
  onComplete (rawTrailers: unknown): void {
    ;(this as DispatchHandler).onResponseEnd?.(this.#call().controller, headersOf(rawTrailers))
  }

  /** Older shape: the dispatch failed. */
  onError (err: Error): void {
    ;(this as DispatchHandler).onResponseError?.(this.#call().controller, err)
  }

  /** Older shape: the server switched protocols. */
  onUpgrade (statusCode: number, rawHeaders: unknown, socket: Duplex): void {
    ;(this as DispatchHandler).onRequestUpgrade?.(this.#call().controller, statusCode, headersOf(rawHeaders), socket)
  }
}
