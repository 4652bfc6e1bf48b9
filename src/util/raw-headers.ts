/**
 * Raw header lists (`[name, value, name, value, ...]`, names and values as strings or Buffers)
 * read into an object of lower-case names, as undici's `util.parseHeaders` and
 * `util.headerNameToString` do, with the same results.
 * @module
 */

/** One entry of a raw header list: a string, a Buffer (read as latin1), or, for a value, a list of them. */
export type RawHeaderEntry = string | Buffer | ReadonlyArray<string | Buffer>

/** Headers by lower-case name; a repeated header is an array of its values in order. */
export type ParsedHeaders = Record<string, string | string[]>

/**
 * The lower-case name of a header given as a string or as bytes (read as latin1).
 * @example
 * headerNameToString(Buffer.from('Content-Type')) // 'content-type'
 */
export function headerNameToString (value: string | Buffer): string {
  return (typeof value === 'string' ? value : value.toString('latin1')).toLowerCase()
}

/** A first value as undici stores it: strings as they are, Buffers as latin1, lists element by element. */
function firstValue (value: RawHeaderEntry): string | string[] {
  if (typeof value === 'string') return value
  if (Array.isArray(value)) return value.map((item: string | Buffer) => typeof item === 'string' ? item : item.toString('latin1'))
  return (value as Buffer).toString('latin1')
}

/** A repeated value as undici appends it: a list is added as its `String()` form (comma-joined). */
function laterValue (value: RawHeaderEntry): string {
  return Buffer.isBuffer(value) ? value.toString('latin1') : String(value)
}

/**
 * Reads a raw header list into `obj` (a new object by default): names lower-cased, a repeated
 * name collected into an array. A name such as `constructor` or `__proto__` becomes an own
 * property, never a change of the object's prototype.
 * @example
 * parseHeaders(['Set-Cookie', 'a=1', 'set-cookie', 'b=2']) // { 'set-cookie': ['a=1', 'b=2'] }
 */
export function parseHeaders (headers: readonly RawHeaderEntry[], obj: ParsedHeaders = {}): ParsedHeaders {
  for (let i = 0; i < headers.length; i += 2) {
    const name = headerNameToString(headers[i] as string | Buffer)
    const value = headers[i + 1] as RawHeaderEntry
    const existing = Object.hasOwn(obj, name) ? obj[name] : undefined
    if (existing === undefined) {
      Object.defineProperty(obj, name, { value: firstValue(value), enumerable: true, configurable: true, writable: true })
    } else if (typeof existing === 'string') {
      obj[name] = [existing, laterValue(value)]
    } else {
      existing.push(laterValue(value))
    }
  }
  return obj
}
