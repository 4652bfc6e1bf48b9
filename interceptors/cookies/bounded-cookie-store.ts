/**
 * `BoundedCookieStore`: a memory store for a tough-cookie `CookieJar` with the limits RFC 6265bis
 * asks a cookie store to have (section 5.7): so many cookies per domain and in all, and
 * none whose name and value together pass the size a cookie may have. Past a limit it evicts
 * in the RFC's order: expired cookies first, then, in the domain that is over, cookies without
 * `Secure` before those with it, and the least recently used first throughout. Without it one
 * server that sends thousands of `Set-Cookie` for a parent domain makes every later request to
 * that domain carry all of them.
 * @module
 */

import { MAX_NAME_VALUE_LENGTH, failOption } from '../../src/handler.js'

/** A cookie as tough-cookie hands it to its store: the fields the store indexes and evicts by. */
export interface StoredCookie {
  /** The cookie's name. */
  key: string
  /** The cookie's value. */
  value: string
  /** The domain it is sent to (canonical, no leading dot). */
  domain: string | null
  /** The path it is sent under. */
  path: string | null
  /** Whether it goes over secure connections only. */
  secure: boolean
  /** When the jar last sent or set it. */
  lastAccessed?: Date | 'Infinity' | null | undefined
  /** Order of creation, the tie-break between cookies used at the same time. */
  creationIndex?: number | undefined
  /** When it expires (ms since the epoch); undefined for a session cookie. */
  expiryTime: (now?: Date) => number | undefined
}

/** The Node-style callback tough-cookie's store methods take when they are not awaited. */
export type CookieStoreCallback<T> = (error: Error | null, result?: T) => void

/** Options of {@link BoundedCookieStore}. */
export interface BoundedCookieStoreOptions {
  /**
   * Most cookies kept with one domain (the cookie's `Domain`, or its host for a host-only cookie).
   * @defaultValue 50
   */
  maxCookiesPerDomain?: number | undefined
  /**
   * Most cookies kept in all.
   * @defaultValue 3000
   */
  maxCookies?: number | undefined
}

/** RFC 6265bis section 5.7: a store keeps at least 50 cookies per domain and 3000 in all; these are its floors. */
export const DEFAULT_MAX_COOKIES_PER_DOMAIN = 50
/** See {@link DEFAULT_MAX_COOKIES_PER_DOMAIN}. */
export const DEFAULT_MAX_COOKIES = 3000

const WHO = 'BoundedCookieStore'

function limitOption (value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) failOption(WHO, name, 'a positive integer', value)
  return value
}

/** True when a cookie's name and value are too long to be stored (the rule `parseCookie` applies too). */
export function cookieTooLarge (cookie: Pick<StoredCookie, 'key' | 'value'>): boolean {
  return cookie.key.length + cookie.value.length > MAX_NAME_VALUE_LENGTH
}

// Which cookie goes first when a limit is passed: expired, then (in an overfull domain) not
// Secure, then the least recently used; the oldest created breaks ties.
function evictionRank (cookie: StoredCookie, now: number, preferInsecure: boolean): [number, number, number] {
  const expiry = cookie.expiryTime()
  const tier = expiry !== undefined && expiry <= now ? 0 : preferInsecure && !cookie.secure ? 1 : 2
  const used = cookie.lastAccessed instanceof Date ? cookie.lastAccessed.getTime() : cookie.lastAccessed === 'Infinity' ? Infinity : 0
  return [tier, used, cookie.creationIndex ?? 0]
}

function compareRanks (a: [number, number, number], b: [number, number, number]): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2]
}

/** RFC 6265 section 5.1.4: the cookie path is the request path, or a prefix of it ending at a `/`. */
function pathMatches (requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true
  if (!requestPath.startsWith(cookiePath)) return false
  return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/'
}

/** `domain` and each domain it is under (`a.b.example` gives `a.b.example`, `b.example`, `example`). */
function domainAndParents (domain: string): string[] {
  const found = [domain]
  for (let at = domain.indexOf('.'); at !== -1; at = domain.indexOf('.', at + 1)) found.push(domain.slice(at + 1))
  return found
}

function answer<T> (result: T, callback: CookieStoreCallback<T> | undefined): Promise<T> | undefined {
  if (callback === undefined) return Promise.resolve(result)
  callback(null, result)
  return undefined
}

/**
 * A synchronous in-memory store for tough-cookie's `CookieJar`, with RFC 6265bis limits. It is
 * the store of the jar `interceptors.cookies()` makes; give it to a jar of your own to keep the
 * limits with other jar options.
 * @example
 * import { CookieJar } from 'tough-cookie'
 * const jar = new CookieJar(new BoundedCookieStore({ maxCookiesPerDomain: 100 }), { allowSecureOnLocal: false })
 * const agent = new Agent().compose(interceptors.cookies({ jar }))
 */
export class BoundedCookieStore {
  /** tough-cookie reads this: the store answers in the same call, so the jar's `*Sync` methods work. */
  readonly synchronous = true
  /** Most cookies per domain. */
  readonly maxCookiesPerDomain: number
  /** Most cookies in all. */
  readonly maxCookies: number
  // domain -> path -> name -> cookie
  readonly #index = new Map<string, Map<string, Map<string, StoredCookie>>>()
  readonly #perDomain = new Map<string, number>()
  #count = 0

  /** @throws InvalidArgumentError when a limit is not a positive integer */
  constructor (options: BoundedCookieStoreOptions = {}) {
    if (options === null || typeof options !== 'object') failOption(WHO, 'options', 'an object', options)
    this.maxCookiesPerDomain = limitOption(options.maxCookiesPerDomain, 'maxCookiesPerDomain', DEFAULT_MAX_COOKIES_PER_DOMAIN)
    this.maxCookies = limitOption(options.maxCookies, 'maxCookies', DEFAULT_MAX_COOKIES)
  }

  /** How many cookies the store holds. */
  get size (): number {
    return this.#count
  }

  /** The cookie stored for this domain, path and name, if any. */
  findCookie (domain: string | null, path: string | null, key: string | null, callback?: CookieStoreCallback<StoredCookie | undefined>): Promise<StoredCookie | undefined> | undefined {
    const found = domain === null || path === null || key === null ? undefined : this.#index.get(domain)?.get(path)?.get(key)
    return answer(found, callback)
  }

  /** The cookies of `domain` and the domains above it whose path matches `path` (every path when null). */
  findCookies (domain: string | null, path: string | null, allowSpecialUseDomain?: boolean | CookieStoreCallback<StoredCookie[]>, callback?: CookieStoreCallback<StoredCookie[]>): Promise<StoredCookie[]> | undefined {
    const done = typeof allowSpecialUseDomain === 'function' ? allowSpecialUseDomain : callback
    const results: StoredCookie[] = []
    if (domain !== null && domain !== '') {
      // The jar checks domain and path again for each cookie; this only has to find every candidate.
      for (const candidate of domainAndParents(domain)) {
        const paths = this.#index.get(candidate)
        if (paths === undefined) continue
        for (const [cookiePath, cookies] of paths) {
          if (path === null || pathMatches(path, cookiePath)) results.push(...cookies.values())
        }
      }
    }
    return answer(results, done)
  }

  /** Stores a new cookie, evicting others past a limit; a cookie too large to keep is not stored. */
  putCookie (cookie: StoredCookie, callback?: CookieStoreCallback<undefined>): Promise<undefined> | undefined {
    this.#put(cookie)
    return answer(undefined, callback)
  }

  /** Replaces a stored cookie by a newer one with the same domain, path and name. */
  updateCookie (oldCookie: StoredCookie, newCookie: StoredCookie, callback?: CookieStoreCallback<undefined>): Promise<undefined> | undefined {
    void oldCookie
    this.#put(newCookie)
    return answer(undefined, callback)
  }

  /** Removes the cookie of this domain, path and name. */
  removeCookie (domain: string | null, path: string | null, key: string | null, callback?: CookieStoreCallback<undefined>): Promise<undefined> | undefined {
    if (domain !== null && path !== null && key !== null) this.#remove(domain, path, key)
    return answer(undefined, callback)
  }

  /** Removes the cookies of a domain, of one path in it or of all. */
  removeCookies (domain: string, path: string | null, callback?: CookieStoreCallback<undefined>): Promise<undefined> | undefined {
    const paths = this.#index.get(domain)
    if (paths !== undefined) {
      for (const [cookiePath, cookies] of [...paths]) {
        if (path !== null && cookiePath !== path) continue
        for (const key of [...cookies.keys()]) this.#remove(domain, cookiePath, key)
      }
    }
    return answer(undefined, callback)
  }

  /** Removes every cookie. */
  removeAllCookies (callback?: CookieStoreCallback<undefined>): Promise<undefined> | undefined {
    this.#index.clear()
    this.#perDomain.clear()
    this.#count = 0
    return answer(undefined, callback)
  }

  /** Every cookie, oldest first (what the jar serializes). */
  getAllCookies (callback?: CookieStoreCallback<StoredCookie[]>): Promise<StoredCookie[]> | undefined {
    return answer(this.#all().sort((a, b) => (a.creationIndex ?? 0) - (b.creationIndex ?? 0)), callback)
  }

  #all (): StoredCookie[] {
    const all: StoredCookie[] = []
    for (const paths of this.#index.values()) {
      for (const cookies of paths.values()) all.push(...cookies.values())
    }
    return all
  }

  #put (cookie: StoredCookie): void {
    const { domain, path, key } = cookie
    if (domain === null || path === null || typeof key !== 'string') return
    // RFC 6265bis section 5.6: a cookie this large is ignored entirely (one stored before stays).
    if (cookieTooLarge(cookie)) return
    let paths = this.#index.get(domain)
    if (paths === undefined) this.#index.set(domain, paths = new Map())
    let cookies = paths.get(path)
    if (cookies === undefined) paths.set(path, cookies = new Map())
    const replacing = cookies.has(key)
    cookies.set(key, cookie)
    if (replacing) return
    this.#count++
    const inDomain = (this.#perDomain.get(domain) ?? 0) + 1
    this.#perDomain.set(domain, inDomain)
    if (inDomain > this.maxCookiesPerDomain) this.#evict(this.#inDomain(domain), inDomain - this.maxCookiesPerDomain, true)
    if (this.#count > this.maxCookies) this.#evict(this.#all(), this.#count - this.maxCookies, false)
  }

  #inDomain (domain: string): StoredCookie[] {
    const found: StoredCookie[] = []
    for (const cookies of this.#index.get(domain)?.values() ?? []) found.push(...cookies.values())
    return found
  }

  #evict (candidates: StoredCookie[], excess: number, preferInsecure: boolean): void {
    const now = Date.now()
    const ranked = candidates.map((cookie) => ({ cookie, rank: evictionRank(cookie, now, preferInsecure) }))
    ranked.sort((a, b) => compareRanks(a.rank, b.rank))
    for (let i = 0; i < excess && i < ranked.length; i++) {
      const { domain, path, key } = ranked[i]!.cookie
      this.#remove(domain!, path!, key)
    }
  }

  #remove (domain: string, path: string, key: string): void {
    const paths = this.#index.get(domain)
    const cookies = paths?.get(path)
    if (cookies === undefined || !cookies.delete(key)) return
    this.#count--
    const left = (this.#perDomain.get(domain) ?? 1) - 1
    if (left === 0) this.#perDomain.delete(domain)
    else this.#perDomain.set(domain, left)
    if (cookies.size === 0) paths!.delete(path)
    if (paths!.size === 0) this.#index.delete(domain)
  }
}
