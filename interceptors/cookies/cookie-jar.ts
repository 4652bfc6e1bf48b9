/**
 * The cookie jar contract the cookies interceptor talks to (a tough-cookie `CookieJar` fits it),
 * and the access layer that orders writes before later reads, tells the jar each request's
 * SameSite context, and hands it only the `Set-Cookie` values a cookie parser accepts.
 * @module
 */

import { storableSetCookie } from '../../src/handler.js'
import type { SameSiteContext } from './site-context.js'

/** The part of a tough-cookie store the interceptor looks at. */
export interface CookieStoreLike {
  /** True when the store answers synchronously (tough-cookie's MemoryCookieStore does). */
  synchronous?: boolean | undefined
}

/** What the interceptor passes when it reads cookies: the request's SameSite context. */
export interface GetCookieOptions {
  /** `strict` for a same-site request; `none` (or `lax`) for one that a cross-site redirect led to. */
  sameSiteContext?: SameSiteContext
}

/** What the interceptor passes when it stores a cookie. */
export interface SetCookieOptions {
  /** Always true: a cookie the jar refuses is dropped, not an error. */
  ignoreError?: boolean
  /** The SameSite context of the request whose response set the cookie. */
  sameSiteContext?: SameSiteContext
}

/**
 * What the cookies interceptor needs from a jar: the methods of tough-cookie's `CookieJar`.
 * The `*Sync` methods are used when present and the jar's store is synchronous, so a cookie
 * set by one response is visible to the very next request without waiting a turn.
 */
export interface CookieJarLike {
  /** The `Cookie` header value for `url` (empty string for none). */
  getCookieString (url: string, options?: GetCookieOptions): Promise<string> | string
  /** Stores one `Set-Cookie` value received from `url`; a cookie the jar refuses is ignored. */
  setCookie (cookie: string, url: string, options?: SetCookieOptions): Promise<unknown> | unknown
  /** Synchronous form of `getCookieString`, for synchronous stores. */
  getCookieStringSync?: ((url: string, options?: GetCookieOptions) => string) | undefined
  /** Synchronous form of `setCookie`, for synchronous stores. */
  setCookieSync?: ((cookie: string, url: string, options?: SetCookieOptions) => unknown) | undefined
  /** tough-cookie's store; `synchronous: true` allows the `*Sync` methods. */
  store?: CookieStoreLike | undefined
}

/** Reads and writes one jar so that a write is always seen by the reads that start after it. */
export class JarAccess {
  readonly #jar: CookieJarLike
  readonly #sync: boolean
  // Writes still running on an asynchronous jar; reads wait for them.
  #pending: Promise<void> | null = null

  constructor (jar: CookieJarLike) {
    this.#jar = jar
    this.#sync = jar.store?.synchronous === true && typeof jar.getCookieStringSync === 'function' && typeof jar.setCookieSync === 'function'
  }

  /** The Cookie header value for `url`: a string when it is known now, else a promise of it. */
  read (url: string, sameSiteContext: SameSiteContext): string | Promise<string> {
    const options: GetCookieOptions = { sameSiteContext }
    if (this.#sync && this.#pending === null) return this.#jar.getCookieStringSync!(url, options)
    const wait = this.#pending ?? Promise.resolve()
    return wait.then(async () => await this.#jar.getCookieString(url, options))
  }

  /**
   * Stores the `Set-Cookie` values received from `url`, in order. A value a cookie parser refuses
   * (a control character, a name and value over 4096 characters) never reaches the jar; cookies
   * the jar refuses (bad domain, SameSite in a cross-site context) are dropped by the jar; a
   * failing store is reported to `onError`. Returns how many values were handed to the jar.
   */
  write (values: readonly string[], url: string, sameSiteContext: SameSiteContext, onError: (err: Error) => void): number {
    const storable: string[] = []
    for (const value of values) {
      const cookie = typeof value === 'string' ? storableSetCookie(value) : null
      if (cookie !== null) storable.push(cookie)
    }
    if (storable.length === 0) return 0
    const options: SetCookieOptions = { ignoreError: true, sameSiteContext }
    if (this.#sync && this.#pending === null) {
      for (const value of storable) {
        try {
          this.#jar.setCookieSync!(value, url, options)
        } catch (err) {
          onError(err as Error)
        }
      }
      return storable.length
    }
    const previous = this.#pending ?? Promise.resolve()
    const done: Promise<void> = previous.then(async () => {
      for (const value of storable) {
        try {
          await this.#jar.setCookie(value, url, options)
        } catch (err) {
          onError(err as Error)
        }
      }
    }).finally(() => {
      if (this.#pending === done) this.#pending = null
    })
    this.#pending = done
    return storable.length
  }
}
