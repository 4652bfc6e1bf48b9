/**
 * `Headers`: the Fetch Standard's header list with guards, sorted iteration, combined values
 * and `getSetCookie()`. Response headers from the network are adopted without re-validation.
 * @module
 */

import type { IncomingHeaders } from '../handler.js'
import { describeValue } from '../validation/describe-value.js'

/** What `new Headers(init)` and `RequestInit.headers` accept (the runtime's own Headers included). */
export type HeadersInit =
  | Headers
  | globalThis.Headers
  | Iterable<readonly [string, string] | readonly string[]>
  | Record<string, string | readonly string[]>

/** Who may change a header list: `immutable` lists (fetched responses) refuse every change. */
export type HeadersGuard = 'none' | 'request' | 'request-no-cors' | 'response' | 'immutable'

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const INVALID_VALUE = /[\0\r\n\u0100-\uffff]/
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g

function checkName (name: string, method: string): string {
  if (!TOKEN.test(name)) throw new TypeError(`Headers.${method}: invalid header name ${JSON.stringify(name)}`)
  return name.toLowerCase()
}

function normalizeValue (value: string, name: string, method: string): string {
  const trimmed = value.replace(EDGE_WHITESPACE, '')
  if (INVALID_VALUE.test(trimmed)) {
    throw new TypeError(`Headers.${method}: invalid value for header "${name}": ${JSON.stringify(value)}`)
  }
  return trimmed
}

/** Internal access for the other fetch modules; not part of the public surface. */
export interface HeadersInternals {
  guard (headers: Headers, guard: HeadersGuard): void
  fromIncoming (record: IncomingHeaders, guard: HeadersGuard): Headers
  toFlat (headers: Headers): string[]
  lookup (headers: Headers, lowerName: string): string | null
  remove (headers: Headers, lowerName: string): void
  put (headers: Headers, lowerName: string, value: string): void
}

// Assigned in the static block below: only code inside the class body can reach private fields.
let internals: HeadersInternals

/**
 * A list of HTTP headers, iterated as `[name, value]` pairs sorted by lower-case name.
 * Repeated names read back combined with `, `, except `set-cookie` (see {@link Headers.getSetCookie}).
 * @example
 * const headers = new Headers({ accept: 'application/json' })
 * headers.append('x-trace', 'a')
 * headers.get('Accept') // 'application/json'
 */
export class Headers {
  #map = new Map<string, string>()
  #cookies: string[] | null = null
  #guard: HeadersGuard = 'none'
  #sorted: Array<[string, string]> | null = null

  /** @param init - headers to copy: a Headers (this library's or the runtime's), a record, or `[name, value]` pairs. */
  constructor (init?: HeadersInit) {
    if (init === undefined || init === null) {
      if (init === null) throw new TypeError('Headers: init must be an object or iterable, got null')
      return
    }
    if (init instanceof Headers) {
      for (const [name, value] of init.#map) this.#map.set(name, value)
      if (init.#cookies !== null) this.#cookies = [...init.#cookies]
      return
    }
    if (typeof init !== 'object' && typeof init !== 'function') {
      throw new TypeError(`Headers: init must be an object or iterable, got ${describeValue(init)}`)
    }
    const iterator = (init as Partial<Iterable<unknown>>)[Symbol.iterator]
    if (typeof iterator === 'function') {
      for (const pair of init as Iterable<unknown>) {
        if (typeof pair !== 'object' || pair === null || typeof (pair as Iterable<unknown>)[Symbol.iterator] !== 'function') {
          throw new TypeError(`Headers: each header must be a [name, value] pair, got ${typeof pair === 'string' ? JSON.stringify(pair) : String(pair)}`)
        }
        const entry = [...(pair as Iterable<unknown>)]
        if (entry.length !== 2) throw new TypeError(`Headers: each header must be a [name, value] pair, got ${entry.length} items`)
        this.append(String(entry[0]), String(entry[1]))
      }
      return
    }
    for (const name of Object.keys(init)) {
      const value = (init as Record<string, unknown>)[name]
      this.append(name, String(value))
    }
  }

  #mutable (method: string): void {
    if (this.#guard === 'immutable') throw new TypeError(`Headers.${method}: these headers are immutable`)
    this.#sorted = null
  }

  /** Adds `value` to the values of `name`, keeping the existing ones. */
  append (name: string, value: string): void {
    const key = checkName(String(name), 'append')
    const normalized = normalizeValue(String(value), key, 'append')
    this.#mutable('append')
    const existing = this.#map.get(key)
    this.#map.set(key, existing === undefined ? normalized : `${existing}, ${normalized}`)
    if (key === 'set-cookie') (this.#cookies ??= []).push(normalized)
  }

  /** Replaces every value of `name` with `value`. */
  set (name: string, value: string): void {
    const key = checkName(String(name), 'set')
    const normalized = normalizeValue(String(value), key, 'set')
    this.#mutable('set')
    this.#map.set(key, normalized)
    if (key === 'set-cookie') this.#cookies = [normalized]
  }

  /** Removes `name`. */
  delete (name: string): void {
    const key = checkName(String(name), 'delete')
    this.#mutable('delete')
    this.#map.delete(key)
    if (key === 'set-cookie') this.#cookies = null
  }

  /** The combined values of `name` (joined with `, `), or null when absent. */
  get (name: string): string | null {
    return this.#map.get(checkName(String(name), 'get')) ?? null
  }

  /** True when `name` is present. */
  has (name: string): boolean {
    return this.#map.has(checkName(String(name), 'has'))
  }

  /** Every `Set-Cookie` value as its own string (they cannot be combined safely). */
  getSetCookie (): string[] {
    return this.#cookies === null ? [] : [...this.#cookies]
  }

  #list (): Array<[string, string]> {
    if (this.#sorted !== null) return this.#sorted
    const names = [...this.#map.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    const list: Array<[string, string]> = []
    for (const name of names) {
      if (name === 'set-cookie' && this.#cookies !== null) {
        for (const cookie of this.#cookies) list.push([name, cookie])
      } else {
        list.push([name, this.#map.get(name)!])
      }
    }
    this.#sorted = list
    return list
  }

  /** Calls `callback(value, name, headers)` for each header, in sorted order. */
  forEach (callback: (value: string, name: string, headers: Headers) => void, thisArg?: unknown): void {
    if (typeof callback !== 'function') throw new TypeError(`Headers.forEach: callback must be a function, got ${describeValue(callback)}`)
    for (const [name, value] of this.#list()) callback.call(thisArg, value, name, this)
  }

  /** `[name, value]` pairs sorted by name. */
  * entries (): IterableIterator<[string, string]> {
    for (const [name, value] of this.#list()) yield [name, value]
  }

  /** Header names, sorted. */
  * keys (): IterableIterator<string> {
    for (const [name] of this.#list()) yield name
  }

  /** Header values in name order. */
  * values (): IterableIterator<string> {
    for (const [, value] of this.#list()) yield value
  }

  /** Same as {@link Headers.entries}. */
  [Symbol.iterator] (): IterableIterator<[string, string]> {
    return this.entries()
  }

  /** `'Headers'`, so `Object.prototype.toString` recognises instances as the runtime's classes do. */
  get [Symbol.toStringTag] (): string {
    return 'Headers'
  }

  /** Shows the headers as a plain object in `util.inspect` and `console.log`. */
  [Symbol.for('nodejs.util.inspect.custom')] (): object {
    return Object.fromEntries(this.#list().map(([name, value]) => [name, value]))
  }

  static {
    internals = {
      guard (headers, guard) { headers.#guard = guard },
      fromIncoming (record, guard) {
        const headers = new Headers()
        for (const name in record) {
          const value = record[name]!
          if (typeof value === 'string') {
            headers.#map.set(name, value)
            if (name === 'set-cookie') headers.#cookies = [value]
          } else {
            headers.#map.set(name, value.join(', '))
            if (name === 'set-cookie') headers.#cookies = [...value]
          }
        }
        headers.#guard = guard
        return headers
      },
      toFlat (headers) {
        const flat: string[] = []
        for (const [name, value] of headers.#map) {
          if (name === 'set-cookie' && headers.#cookies !== null) {
            for (const cookie of headers.#cookies) flat.push(name, cookie)
          } else {
            flat.push(name, value)
          }
        }
        return flat
      },
      lookup (headers, lowerName) { return headers.#map.get(lowerName) ?? null },
      remove (headers, lowerName) {
        headers.#sorted = null
        headers.#map.delete(lowerName)
        if (lowerName === 'set-cookie') headers.#cookies = null
      },
      put (headers, lowerName, value) {
        headers.#sorted = null
        headers.#map.set(lowerName, value)
      }
    }
  }
}

/** Internal helpers shared with request, response and fetch. */
export const headersInternals: HeadersInternals = internals!
