/**
 * The context the caller's `onRequestStart` receives through `retry()`: the one the layer below
 * gave (a redirect's `{ history }`, the transport's), plus `retryCount`. The caller hears
 * `onRequestStart` once, but every attempt brings a context of its own: what the object shows is
 * the latest attempt's.
 * @module
 */

import type { RetryDispatchContext } from './retry-options.js'

/**
 * Makes the caller's context from the first attempt's `below`. A value below is copied; a getter
 * below (the redirect's `history`, computed when read) becomes a getter here reading the latest
 * attempt's context, so a redirect history read after a retry is the one of the attempt that
 * answered.
 */
export function retryContext (below: unknown, latest: () => object, retryCount: number): RetryDispatchContext {
  const context = {} as RetryDispatchContext
  copyContext(context, below, latest)
  context.retryCount = retryCount
  return context
}

/** Takes the values of a later attempt's context `below` into `context` (getters already follow `latest`). */
export function copyContext (context: RetryDispatchContext, below: unknown, latest: () => object): void {
  if (typeof below !== 'object' || below === null) return
  for (const key of Object.keys(below)) {
    if (key === 'retryCount') continue
    const own = Object.getOwnPropertyDescriptor(below, key)!
    if (own.get === undefined) {
      context[key] = own.value
    } else if (Object.getOwnPropertyDescriptor(context, key)?.get === undefined) {
      Object.defineProperty(context, key, { enumerable: true, configurable: true, get: () => (latest() as Record<string, unknown>)[key] })
    }
  }
}
