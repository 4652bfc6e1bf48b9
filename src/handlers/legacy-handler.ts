/**
 * The older handler shape (onConnect/onHeaders/onData/onComplete/onError, as the runtime's own
 * fetch and undici before v7 pass) run on the dispatch contract. Adapted once, where a handler
 * enters conduit through a public `dispatch()`.
 * @module
 */

import type { Duplex } from 'node:stream'
import type { DispatchController, DispatchHandler, IncomingHeaders, LegacyDispatchHandler } from '../contracts/dispatch-contract.js'
import { RequestAbortedError } from '../errors.js'
import { describeValue } from '../validation/describe-value.js'
import { toRawHeaders } from './raw-headers.js'
import { RawHeadHandler, readsRawHead } from './raw-head-handler.js'
import { DualShapeHandler } from './dual-shape-handler.js'

export { toRawHeaders }

// onRequestUpgrade says nothing about the shape: the runtime's fetch on Node 24 (undici 7) passes
// a handler with it next to the older hooks, and that handler must be adapted.
const NEW_HOOKS = ['onRequestStart', 'onResponseStart', 'onResponseData', 'onResponseEnd', 'onResponseError'] as const
const LEGACY_HOOKS = ['onConnect', 'onHeaders', 'onData', 'onComplete', 'onError', 'onUpgrade'] as const

/** True when `handler` implements only the older hook shape (onConnect/onHeaders/...). */
export function isLegacyHandler (handler: object): boolean {
  const h = handler as Record<string, unknown>
  for (const name of NEW_HOOKS) if (typeof h[name] === 'function') return false
  for (const name of LEGACY_HOOKS) if (typeof h[name] === 'function') return true
  return false
}

/** Adapts a handler of the older shape to the dispatch contract; other handlers are returned as they are. */
export function toDispatchHandler (handler: DispatchHandler | LegacyDispatchHandler): DispatchHandler {
  if (typeof handler !== 'object' || handler === null) {
    throw new TypeError(`dispatch: handler must be an object, got ${describeValue(handler)}`)
  }
  // A hook that is present but not callable would fail later, deep inside the transport. One
  // pass checks them and learns the shape: this runs once per request at the public boundary, so
  // each hook is read by its own name (a loop over names makes one keyed load see five names,
  // which V8 cannot inline and looks up generically on every request).
  const h = handler as DispatchHandler
  const contract = (contractHook('onRequestStart', h.onRequestStart) |
    contractHook('onResponseStart', h.onResponseStart) |
    contractHook('onResponseData', h.onResponseData) |
    contractHook('onResponseEnd', h.onResponseEnd) |
    contractHook('onResponseError', h.onResponseError)) !== 0
  if (contract && readsRawHead(h)) return new RawHeadHandler(h)
  return contract || !isLegacyHandler(handler) ? h : new LegacyHandlerAdapter(handler as LegacyDispatchHandler)
}

/**
 * 1 when a hook of the dispatch contract is present, 0 when it is absent (numbers, so that every
 * hook is checked, not only those before the first one found).
 * @throws TypeError when the hook is present but not a function
 */
function contractHook (name: typeof NEW_HOOKS[number], hook: unknown): number {
  if (hook == null) return 0
  if (typeof hook !== 'function') throw new TypeError(`dispatch: handler.${name} must be a function, got ${describeValue(hook)}`)
  return 1
}

/** Runs an older-shape handler on the dispatch contract (abort function, raw headers, `false` to pause). */
export class LegacyHandlerAdapter extends DualShapeHandler implements DispatchHandler {
  readonly #handler: LegacyDispatchHandler

  constructor (handler: LegacyDispatchHandler) {
    super()
    this.#handler = handler
  }

  onRequestStart (controller: DispatchController, context: unknown): void {
    this.#handler.onConnect?.((err?: Error) => controller.abort(err ?? new RequestAbortedError()), context)
  }

  onRequestUpgrade (_controller: DispatchController, statusCode: number, headers: IncomingHeaders, socket: Duplex): void {
    this.#handler.onUpgrade?.(statusCode, toRawHeaders(headers), socket)
  }

  onResponseInformation (controller: DispatchController, statusCode: number, headers: IncomingHeaders): void {
    // The older shape saw informational heads through onHeaders, before the final one.
    this.#handler.onHeaders?.(statusCode, toRawHeaders(headers), () => controller.resume())
  }

  onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    this.#handler.onResponseStarted?.()
    const keepGoing = this.#handler.onHeaders?.(statusCode, toRawHeaders(headers), () => controller.resume(), statusMessage)
    if (keepGoing === false) controller.pause()
  }

  onResponseData (controller: DispatchController, chunk: Buffer): void {
    if (this.#handler.onData?.(chunk) === false) controller.pause()
  }

  onResponseEnd (_controller: DispatchController, trailers: IncomingHeaders): void {
    this.#handler.onComplete?.(toRawHeaders(trailers))
  }

  onResponseError (_controller: DispatchController, error: Error): void {
    this.#handler.onError?.(error)
  }

  onBodySent (chunk: Uint8Array | string): void {
    this.#handler.onBodySent?.(chunk)
  }

  onRequestSent (): void {
    this.#handler.onRequestSent?.()
  }
}
