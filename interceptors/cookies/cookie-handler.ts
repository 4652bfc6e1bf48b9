/**
 * The per-request half of the cookies interceptor: hands every `Set-Cookie` of the response to
 * the jar before the caller sees the response head, so a request started from that hook (the
 * next hop of a redirect) already sends them.
 * @module
 */

import { debuglog } from 'node:util'
import type { DispatchController, DispatchHandler, IncomingHeaders } from '../../src/handler.js'
import { DecoratorHandler } from '../../src/handler.js'
import type { JarAccess } from './cookie-jar.js'
import type { SameSiteContext } from './site-context.js'

/** `NODE_DEBUG=conduit:cookies`: counts and origins only, never a cookie name's value. */
export const log = debuglog('conduit:cookies')

/** Stores the response's cookies in the jar, then forwards every hook unchanged. */
export class CookieHandler extends DecoratorHandler {
  readonly #jar: JarAccess
  readonly #url: string
  readonly #sameSiteContext: SameSiteContext

  constructor (handler: DispatchHandler, jar: JarAccess, url: string, sameSiteContext: SameSiteContext) {
    super(handler)
    this.#jar = jar
    this.#url = url
    this.#sameSiteContext = sameSiteContext
  }

  override onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    const raw = headers['set-cookie']
    if (raw !== undefined) {
      const values = Array.isArray(raw) ? raw : [raw]
      // A store failure must not fail the response; its message is the jar's, and carries no cookie value we add.
      const handed = this.#jar.write(values, this.#url, this.#sameSiteContext, (err) => { log('the cookie jar failed to store a cookie from %s: %s', new URL(this.#url).origin, err.name) })
      log('storing %d Set-Cookie value(s) from %s (%d refused as malformed or too large)', handed, new URL(this.#url).origin, values.length - handed)
    }
    super.onResponseStart(controller, statusCode, headers, statusMessage)
  }
}
