/**
 * Invalidation by unsafe methods (RFC 9111 §4.4): a non-error response to POST, PUT, DELETE...
 * removes what is stored for the target URI and for same-origin Location and Content-Location.
 * @module
 */

import { DecoratorHandler, showOrigin } from '../../src/handler.js'
import type { CacheKey, CacheStore, DispatchController, DispatchHandler, IncomingHeaders } from '../../src/handler.js'
import { describeKey, log } from './log.js'
import { deleteQuietly } from './store-calls.js'
import { firstHeaderValue } from './header-value.js'

/** Deletes the affected URLs when the response is 2xx or 3xx, and holds the end until that is done. */
export class InvalidationHandler extends DecoratorHandler {
  readonly #store: CacheStore
  readonly #key: CacheKey
  #pending: Promise<unknown> | undefined

  constructor (store: CacheStore, key: CacheKey, handler: DispatchHandler) {
    super(handler)
    this.#store = store
    this.#key = key
  }

  override onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    if (statusCode >= 200 && statusCode < 400) {
      const keys = [this.#key]
      const base = `${this.#key.origin}${this.#key.path}`
      for (const name of ['location', 'content-location']) {
        const value = firstHeaderValue(headers[name])
        if (value === undefined) continue
        try {
          const url = new URL(value, base)
          // §4.4: only URIs with the same origin as the request may be invalidated.
          if (url.origin === this.#key.origin) keys.push({ origin: url.origin, method: 'GET', path: `${url.pathname}${url.search}` })
        } catch {
          log('ignoring an unparsable %s header %j on %s', name, value, describeKey(this.#key))
        }
      }
      const pending: Array<Promise<void>> = []
      for (const key of keys) {
        log('invalidating %s%s after %s answered %d', showOrigin(key.origin), key.path, this.#key.method, statusCode)
        const result = deleteQuietly(this.#store, key)
        if (result !== undefined) pending.push(result)
      }
      if (pending.length > 0) this.#pending = Promise.all(pending)
    }
    super.onResponseStart(controller, statusCode, headers, statusMessage)
  }

  override onResponseEnd (controller: DispatchController, trailers: IncomingHeaders): void {
    // With an asynchronous store the caller's next read must not race the deletion.
    if (this.#pending === undefined) super.onResponseEnd(controller, trailers)
    else {
      this.#pending.then(() => {
        try {
          super.onResponseEnd(controller, trailers)
        } catch (err) {
          log('handler threw in onResponseEnd: %s', (err as Error).message)
        }
      })
    }
  }
}
