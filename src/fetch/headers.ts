/**
 * `Headers`: the Fetch Standard's header list with guards, sorted iteration, combined values
 * and `getSetCookie()`. Response headers from the network are adopted without re-validation.
 * @module
 */

import type { IncomingHeaders } from '../contracts/dispatch-contract.js'
import { describeValue } from '../validation/describe-value.js'
import { LiveIterator, PAIR_PROJECTIONS } from './live-iterator.js'
import type { SpecIterableIterator } from './spec-iterator.js'
import { describeBadHeaderValue } from '../observability/redaction.js'
import { enumerableMembers, requireArguments, toByteString, toDOMString } from './webidl.js'
import { trimHttpWhitespace } from './whitespace.js'

/** What `new Headers(init)` and `RequestInit.headers` accept (the runtime's own Headers included). */
export type HeadersInit =
  | Headers
  | globalThis.Headers
  | Iterable<readonly [string, string]>
  | Record<string, string | readonly string[]>

/** Who may change a header list: `immutable` lists (fetched responses) refuse every change. */
export type HeadersGuard = 'none' | 'request' | 'request-no-cors' | 'response' | 'immutable'

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const INVALID_VALUE = /[\0\r\n\u0100-\uffff]/

function checkName (value: unknown, method: string): string {
  const name = toDOMString(value, `Headers.${method}`)
  if (!TOKEN.test(name)) throw new TypeError(`Headers.${method}: invalid header name ${describeValue(name)}`)
  return name.toLowerCase()
}

function normalizeValue (value: unknown, name: string, method: string): string {
  const text = toDOMString(value, `Headers.${method}`)
  const trimmed = trimHttpWhitespace(text)
  if (INVALID_VALUE.test(trimmed)) {
    throw new TypeError(`Headers.${method}: invalid value for header "${name}": ${describeBadHeaderValue(trimmed, INVALID_VALUE)}`)
  }
  return trimmed
}

/** Internal access for the other fetch modules; not part of the public surface. */
export interface HeadersInternals {
  guard (headers: Headers, guard: HeadersGuard): void
  fromIncoming (record: IncomingHeaders, guard: HeadersGuard): Headers
  toFlat (headers: Headers): string[]
  lookup (headers: Headers, lowerName: string): string | null
  isEmpty (headers: Headers): boolean
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
  // Made on the first write: most request header lists (a fetch of a URL) stay empty.
  #map: Map<string, string> | null = null
  #cookies: string[] | null = null
  #guard: HeadersGuard = 'none'
  #sorted: Array<[string, string]> | null = null

  /** @param init - headers to copy: a Headers (this library's or the runtime's), a record, or `[name, value]` pairs. */
  // The default keeps `Headers.length` at 0: WebIDL counts only required arguments.
  constructor (init: HeadersInit | undefined = undefined) {
    if (init === undefined || init === null) {
      if (init === null) throw new TypeError('Headers: init must be an object or iterable, got null')
      return
    }
    if (typeof init !== 'object' && typeof init !== 'function') {
      throw new TypeError(`Headers: init must be an object or iterable, got ${describeValue(init)}`)
    }
    // WebIDL reads @@iterator first and nothing before it (a brand check triggers no proxy trap).
    const iterator = (init as Partial<Iterable<unknown>>)[Symbol.iterator]
    if (#map in init && iterator === ENTRIES) {
      // A Headers whose iterator nobody replaced: its entries are copied without iterating.
      const source = init as Headers
      if (source.#map !== null) this.#map = new Map(source.#map)
      if (source.#cookies !== null) this.#cookies = [...source.#cookies]
      return
    }
    if (iterator !== undefined && iterator !== null) {
      if (typeof iterator !== 'function') throw new TypeError(`Headers: init[Symbol.iterator] must be a function, got ${describeValue(iterator)}`)
      for (const pair of init as Iterable<unknown>) {
        if (typeof pair !== 'object' || pair === null || typeof (pair as Iterable<unknown>)[Symbol.iterator] !== 'function') {
          throw new TypeError(`Headers: each header must be a [name, value] pair, got ${describeValue(pair)}`)
        }
        const entry = [...(pair as Iterable<unknown>)]
        if (entry.length !== 2) throw new TypeError(`Headers: each header must be a [name, value] pair, got ${entry.length} items`)
        this.append(entry[0] as string, entry[1] as string)
      }
      return
    }
    // A WebIDL record takes every own enumerable key, Symbols included (which then fail to
    // convert): each key is converted before its value is read, and the whole record is read
    // before any header is checked and added.
    const record: Array<[string, string]> = []
    for (const key of Reflect.ownKeys(init)) {
      const descriptor = Reflect.getOwnPropertyDescriptor(init, key)
      if (descriptor === undefined || descriptor.enumerable !== true) continue
      const name = toByteString(key, 'Headers')
      record.push([name, toByteString((init as Record<PropertyKey, unknown>)[key], 'Headers')])
    }
    for (const [name, value] of record) this.append(name, value)
  }

  #mutable (method: string): void {
    if (this.#guard === 'immutable') throw new TypeError(`Headers.${method}: these headers are immutable`)
    this.#sorted = null
  }

  /** Adds `value` to the values of `name`, keeping the existing ones. */
  append (name: string, value: string): void {
    requireArguments(arguments.length, 2, 'Headers.append')
    const key = checkName(name, 'append')
    const normalized = normalizeValue(value, key, 'append')
    this.#mutable('append')
    const map = this.#map ??= new Map()
    const existing = map.get(key)
    map.set(key, existing === undefined ? normalized : `${existing}, ${normalized}`)
    if (key === 'set-cookie') (this.#cookies ??= []).push(normalized)
  }

  /** Replaces every value of `name` with `value`. */
  set (name: string, value: string): void {
    requireArguments(arguments.length, 2, 'Headers.set')
    const key = checkName(name, 'set')
    const normalized = normalizeValue(value, key, 'set')
    this.#mutable('set')
    ;(this.#map ??= new Map()).set(key, normalized)
    if (key === 'set-cookie') this.#cookies = [normalized]
  }

  /** Removes `name`. */
  delete (name: string): void {
    requireArguments(arguments.length, 1, 'Headers.delete')
    const key = checkName(name, 'delete')
    this.#mutable('delete')
    this.#map?.delete(key)
    if (key === 'set-cookie') this.#cookies = null
  }

  /** The combined values of `name` (joined with `, `), or null when absent. */
  get (name: string): string | null {
    requireArguments(arguments.length, 1, 'Headers.get')
    const key = checkName(name, 'get')
    return this.#map?.get(key) ?? null
  }

  /** True when `name` is present. */
  has (name: string): boolean {
    requireArguments(arguments.length, 1, 'Headers.has')
    const key = checkName(name, 'has')
    return this.#map?.has(key) ?? false
  }

  /** Every `Set-Cookie` value as its own string (they cannot be combined safely). */
  getSetCookie (): string[] {
    return this.#cookies === null ? [] : [...this.#cookies]
  }

  #list (): Array<[string, string]> {
    if (this.#sorted !== null) return this.#sorted
    const map = this.#map
    const list: Array<[string, string]> = []
    if (map === null) {
      this.#sorted = list
      return list
    }
    const names = [...map.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    for (const name of names) {
      if (name === 'set-cookie' && this.#cookies !== null) {
        for (const cookie of this.#cookies) list.push([name, cookie])
      } else {
        list.push([name, map.get(name)!])
      }
    }
    this.#sorted = list
    return list
  }

  /**
   * Calls `callback(value, name, headers)` for each header, in sorted order. Like the iterators it
   * re-reads the list at each step, so headers changed by the callback are seen.
   */
  forEach (callback: (value: string, name: string, headers: Headers) => void, thisArg: unknown = undefined): void {
    requireArguments(arguments.length, 1, 'Headers.forEach')
    if (typeof callback !== 'function') throw new TypeError(`Headers.forEach: callback must be a function, got ${describeValue(callback)}`)
    for (let index = 0; index < this.#list().length; index++) {
      const [name, value] = this.#list()[index]!
      callback.call(thisArg, value, name, this)
    }
  }

  // A private method call is also the brand check: another receiver throws a TypeError up front.
  #iterate<Item> (project: (pair: [string, string]) => Item): SpecIterableIterator<Item> {
    // The iterator inherits %IteratorPrototype%, whose helpers (map, filter...) the type names: Node 22 and later have them.
    return new LiveIterator('Headers Iterator', () => this.#list(), project) as unknown as SpecIterableIterator<Item>
  }

  /** `[name, value]` pairs sorted by name, read live: a header added during the loop is visited if it sorts later. */
  entries (): SpecIterableIterator<[string, string]> {
    return this.#iterate(PAIR_PROJECTIONS.entries<string, string>)
  }

  /** Header names, sorted. */
  keys (): SpecIterableIterator<string> {
    return this.#iterate(PAIR_PROJECTIONS.keys<string, string>)
  }

  /** Header values in name order. */
  values (): SpecIterableIterator<string> {
    return this.#iterate(PAIR_PROJECTIONS.values<string, string>)
  }

  /** The same function as {@link Headers.entries}, as WebIDL requires (assigned below the class). */
  declare [Symbol.iterator]: () => SpecIterableIterator<[string, string]>

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
        const map = headers.#map = new Map()
        for (const name in record) {
          const value = record[name]!
          if (typeof value === 'string') {
            map.set(name, value)
            if (name === 'set-cookie') headers.#cookies = [value]
          } else {
            map.set(name, value.join(', '))
            if (name === 'set-cookie') headers.#cookies = [...value]
          }
        }
        headers.#guard = guard
        return headers
      },
      toFlat (headers) {
        const flat: string[] = []
        if (headers.#map === null) return flat
        for (const [name, value] of headers.#map) {
          if (name === 'set-cookie' && headers.#cookies !== null) {
            for (const cookie of headers.#cookies) flat.push(name, cookie)
          } else {
            flat.push(name, value)
          }
        }
        return flat
      },
      lookup (headers, lowerName) { return headers.#map?.get(lowerName) ?? null },
      isEmpty (headers) { return headers.#map === null || headers.#map.size === 0 },
      remove (headers, lowerName) {
        headers.#sorted = null
        headers.#map?.delete(lowerName)
        if (lowerName === 'set-cookie') headers.#cookies = null
      },
      put (headers, lowerName, value) {
        headers.#sorted = null
        ;(headers.#map ??= new Map()).set(lowerName, value)
      }
    }
  }
}

enumerableMembers(Headers.prototype)
const ENTRIES = Headers.prototype.entries
Object.defineProperty(Headers.prototype, Symbol.iterator, {
  value: ENTRIES, writable: true, enumerable: false, configurable: true
})

/** Internal helpers shared with request, response and fetch. */
export const headersInternals: HeadersInternals = internals!
