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

/** `NODE_DEBUG=conduit:cookies`: counts and origins only, never a cookie name's value. */
export const log = debuglog('conduit:cookies')

/** Stores the response's cookies in the jar, then forwards every hook unchanged. */
export class CookieHandler extends DecoratorHandler {
  readonly #jar: JarAccess
  readonly #url: string

  constructor (handler: DispatchHandler, jar: JarAccess, url: string) {
    super(handler)
    this.#jar = jar
    this.#url = url
  }

  override onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    const raw = headers['set-cookie']
    if (raw !== undefined) {
      const values = Array.isArray(raw) ? raw : [raw]
      log('storing %d Set-Cookie value(s) from %s', values.length, new URL(this.#url).origin)
      // A store failure must not fail the response; its message is the jar's, and carries no cookie value we add.
      this.#jar.write(values, this.#url, (err) => { log('the cookie jar failed to store a cookie from %s: %s', new URL(this.#url).origin, err.name) })
    }
    super.onResponseStart(controller, statusCode, headers, statusMessage)
  }
}
