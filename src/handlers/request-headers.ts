/**
 * Reading request headers given in any of the accepted forms (record, flat array, pairs).
 * Interceptors use these so they never care which form the caller chose.
 * @module
 */

import type { IncomingHeaders, OutgoingHeaders } from '../contracts/dispatch-contract.js'
import { InvalidArgumentError } from '../errors.js'

function add (out: IncomingHeaders, name: string, value: string): void {
  const key = name.toLowerCase()
  const existing = out[key]
  if (existing === undefined) out[key] = value
  else if (Array.isArray(existing)) existing.push(value)
  else out[key] = [existing, value]
}

/**
 * True when headers given as an object are to be iterated (a Map, Headers, a generator) rather
 * than read as a record: the iterator must be the object's own or its class's, so a polluted
 * `Object.prototype[Symbol.iterator]` does not turn every plain record into an iterable.
 */
export function isHeadersIterable (headers: object): boolean {
  if (Object.prototype.hasOwnProperty.call(headers, Symbol.iterator)) return true
  const proto: unknown = Object.getPrototypeOf(headers)
  return proto !== null && proto !== Object.prototype && typeof (headers as Partial<Iterable<unknown>>)[Symbol.iterator] === 'function'
}

/** Adds one header's value as the transport reads it: dropped when absent, one field per array item. */
function addValue (out: IncomingHeaders, name: string, value: unknown): void {
  if (value === undefined || value === null) return
  if (Array.isArray(value)) for (const v of value) add(out, name, String(v))
  else add(out, name, String(value))
}

/**
 * Returns the headers as a fresh record with lower-case names; repeated names become arrays.
 * `undefined` and `null` values are dropped. Throws {@link InvalidArgumentError} on an odd flat array.
 */
export function normalizeHeaders (headers: OutgoingHeaders | null | undefined): IncomingHeaders {
  const out: IncomingHeaders = {}
  if (headers == null) return out
  if (Array.isArray(headers)) {
    if (headers.length > 0 && Array.isArray(headers[0])) {
      for (const pair of headers as unknown as Array<[string, string]>) add(out, String(pair[0]), String(pair[1]))
      return out
    }
    if (headers.length % 2 !== 0) {
      throw new InvalidArgumentError(`headers array must have an even number of entries, got ${headers.length}`)
    }
    for (let i = 0; i < headers.length; i += 2) add(out, String(headers[i]), String(headers[i + 1]))
    return out
  }
  if (isHeadersIterable(headers)) {
    for (const [name, value] of headers as Iterable<readonly [string, unknown]>) addValue(out, String(name), value)
    return out
  }
  for (const name of Object.keys(headers)) {
    addValue(out, name, (headers as Record<string, unknown>)[name])
  }
  return out
}

/** Returns the value of one request header (case-insensitive), joining repeats with `, `; undefined when absent. */
export function getRequestHeader (headers: OutgoingHeaders | null | undefined, name: string): string | undefined {
  if (headers == null) return undefined
  const value = normalizeHeaders(headers)[name.toLowerCase()]
  if (value === undefined) return undefined
  return Array.isArray(value) ? value.join(', ') : value
}
