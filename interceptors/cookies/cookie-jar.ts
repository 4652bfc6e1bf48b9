/**
 * The cookie jar contract the cookies interceptor talks to (a tough-cookie `CookieJar` fits it),
 * and the access layer that orders writes before later reads.
 * @module
 */

/** The part of a tough-cookie store the interceptor looks at. */
export interface CookieStoreLike {
  /** True when the store answers synchronously (tough-cookie's MemoryCookieStore does). */
  synchronous?: boolean | undefined
}

/**
 * What the cookies interceptor needs from a jar: the methods of tough-cookie's `CookieJar`.
 * The `*Sync` methods are used when present and the jar's store is synchronous, so a cookie
 * set by one response is visible to the very next request without waiting a turn.
 */
export interface CookieJarLike {
  /** The `Cookie` header value for `url` (empty string for none). */
  getCookieString (url: string): Promise<string> | string
  /** Stores one `Set-Cookie` value received from `url`; a cookie the jar refuses is ignored. */
  setCookie (cookie: string, url: string, options?: { ignoreError?: boolean }): Promise<unknown> | unknown
  /** Synchronous form of `getCookieString`, for synchronous stores. */
  getCookieStringSync?: ((url: string) => string) | undefined
  /** Synchronous form of `setCookie`, for synchronous stores. */
  setCookieSync?: ((cookie: string, url: string, options?: { ignoreError?: boolean }) => unknown) | undefined
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
  read (url: string): string | Promise<string> {
    if (this.#sync && this.#pending === null) return this.#jar.getCookieStringSync!(url)
    const wait = this.#pending ?? Promise.resolve()
    return wait.then(async () => await this.#jar.getCookieString(url))
  }

  /**
   * Stores the `Set-Cookie` values received from `url`, in order. Cookies the jar refuses (bad
   * domain, bad syntax) are dropped by the jar; a failing store is reported to `onError`.
   */
  write (values: readonly string[], url: string, onError: (err: Error) => void): void {
    if (this.#sync && this.#pending === null) {
      for (const value of values) {
        try {
          this.#jar.setCookieSync!(value, url, { ignoreError: true })
        } catch (err) {
          onError(err as Error)
        }
      }
      return
    }
    const previous = this.#pending ?? Promise.resolve()
    const done: Promise<void> = previous.then(async () => {
      for (const value of values) {
        try {
          await this.#jar.setCookie(value, url, { ignoreError: true })
        } catch (err) {
          onError(err as Error)
        }
      }
    }).finally(() => {
      if (this.#pending === done) this.#pending = null
    })
    this.#pending = done
  }
}
