/**
 * Credentials presented to a proxy: which source wins, and the rule that a request may not
 * carry its own `proxy-authorization` (it would leak to whatever the request reaches).
 * @module
 */

import { InvalidArgumentError } from '../../src/handler.js'
import type { IncomingHeaders } from '../../src/handler.js'

/** Where proxy credentials may come from; the URI parts are already URL-decoded. */
export interface ProxyCredentials {
  token?: string | undefined
  auth?: string | undefined
  username?: string | undefined
  password?: string | undefined
}

/**
 * Returns the `proxy-authorization` value: `token` as given, else `Basic <auth>`, else
 * `Basic base64(user:password)` from the URI, else undefined.
 */
export function proxyAuthorization (credentials: ProxyCredentials): string | undefined {
  if (credentials.token !== undefined) return credentials.token
  if (credentials.auth !== undefined) return `Basic ${credentials.auth}`
  const username = credentials.username ?? ''
  const password = credentials.password ?? ''
  if (username === '' && password === '') return undefined
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`
}

/** Throws {@link InvalidArgumentError} when normalized request headers carry `proxy-authorization`. */
export function assertNoProxyAuthorization (headers: IncomingHeaders): void {
  if (headers['proxy-authorization'] !== undefined) {
    throw new InvalidArgumentError(
      'proxy: a request must not carry its own proxy-authorization header; give credentials through the token or auth option'
    )
  }
}
