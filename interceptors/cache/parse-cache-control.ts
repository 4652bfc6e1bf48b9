/**
 * `Cache-Control` parsing (RFC 9111 §5.2) for requests and responses alike.
 * @module
 */

import { trimOws } from '../../src/handler.js'
import type { CacheControlDirectives } from '../../src/handler.js'
import { parseDeltaSeconds } from './delta-seconds.js'

const NUMERIC = new Set(['max-age', 's-maxage', 'max-stale', 'min-fresh', 'stale-while-revalidate', 'stale-if-error'])
const FLAGS = new Set(['public', 'must-revalidate', 'proxy-revalidate', 'immutable', 'no-transform', 'must-understand', 'only-if-cached'])
const FIELD_LISTS = new Set(['no-cache', 'private'])

/** A directive written against the grammar (RFC 9110 §5.6.2 token, `=` without spaces, one value). */
const MALFORMED = Symbol('malformed')

type Raw = Array<[name: string, value: string | undefined | typeof MALFORMED]>

const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/i

function isSpace (char: string | undefined): boolean {
  return char === ' ' || char === '\t'
}

/**
 * Splits a header value into `[name, value]` pairs; commas inside quoted strings do not split.
 * A value that breaks the grammar (whitespace around `=`, text after a quoted string, an
 * unterminated quote, a bare value that is not a token) is {@link MALFORMED}.
 */
function tokenize (text: string): Raw {
  const out: Raw = []
  let i = 0
  const n = text.length
  while (i < n) {
    while (i < n && (text[i] === ',' || isSpace(text[i]))) i++
    const nameStart = i
    while (i < n && text[i] !== '=' && text[i] !== ',') i++
    const rawName = text.slice(nameStart, i)
    // Only HTTP's own whitespace is trimmed: a non-breaking space is part of the name.
    const name = trimOws(rawName).toLowerCase()
    let value: string | undefined | typeof MALFORMED
    if (i < n && text[i] === '=') {
      i++
      let malformed = isSpace(rawName[rawName.length - 1]) || isSpace(text[i])
      while (i < n && isSpace(text[i])) i++
      if (text[i] === '"') {
        i++
        let quoted = ''
        while (i < n && text[i] !== '"') {
          if (text[i] === '\\' && i + 1 < n) i++
          quoted += text[i]
          i++
        }
        if (i >= n) malformed = true
        i++
        const after = i
        while (i < n && text[i] !== ',') i++
        if (trimOws(text.slice(after, i)) !== '') malformed = true
        value = malformed ? MALFORMED : quoted
      } else {
        const valueStart = i
        while (i < n && text[i] !== ',') i++
        const bare = trimOws(text.slice(valueStart, i))
        value = malformed || !TOKEN.test(bare) ? MALFORMED : bare
      }
    }
    if (name !== '') out.push([name, value])
  }
  return out
}

/** Directives that only ever forbid something: a malformed spelling of one still applies. */
const RESTRICTIVE = ['no-store', 'private', 'no-cache']

/**
 * The restrictive directive a malformed name stands for (`private` followed by a non-breaking
 * space, `no-\u00a0store`), or undefined. Reading it as the directive is the safe side: taking
 * it for an unknown directive would let a response meant for one user into a shared cache.
 */
function restrictiveSpelling (name: string): string | undefined {
  if (TOKEN.test(name)) return undefined
  const prefix = RESTRICTIVE.find((directive) => name.startsWith(directive) && !TOKEN.test(name[directive.length]))
  if (prefix !== undefined) return prefix
  const tokenChars = [...name].filter((char) => TOKEN.test(char)).join('')
  return RESTRICTIVE.includes(tokenChars) ? tokenChars : undefined
}

function numericValue (name: string, value: string | undefined | typeof MALFORMED): number {
  if (name === 'max-stale' && value === undefined) return Infinity
  return value === MALFORMED ? 0 : parseDeltaSeconds(value) ?? 0
}

/** Of two values of one numeric directive, the more restrictive: the larger `min-fresh`, otherwise the smaller. */
function moreRestrictive (name: string, a: number, b: number): number {
  return name === 'min-fresh' ? Math.max(a, b) : Math.min(a, b)
}

/** The fields a `no-cache` or `private` value lists, or true for the whole response (no value, or one that is not a list of field names). */
function fieldList (value: string | undefined | typeof MALFORMED): true | string[] {
  if (value === undefined || value === MALFORMED) return true
  const fields = value.split(',').map((field) => trimOws(field).toLowerCase()).filter((field) => field !== '')
  return fields.length === 0 || !fields.every((field) => TOKEN.test(field)) ? true : fields
}

/**
 * Parses one or more `Cache-Control` header values. Names are case-insensitive. Where the text
 * breaks the grammar or contradicts itself, the reading is the most restrictive one, so a
 * malformed header never lets a response be stored or reused more widely than a correct one:
 * - a numeric directive given twice keeps its most restrictive value (the smaller, or the
 *   larger `min-fresh`); an invalid value (not digits, or written against the grammar such as
 *   `max-age = 5` or `max-age=5 junk`) is 0, so broken freshness information counts as stale,
 *   as RFC 9111 §4.2.1 encourages; `max-stale` without a value is `Infinity` (any staleness);
 * - a directive that takes no argument but is given one (`public =`, `must-revalidate=1`) is
 *   absent, every occurrence of it; `no-store` applies whatever follows it;
 * - `no-cache` and `private` are `true`, or the lower-case field names they list; a value that
 *   is not a list of field names applies to the whole response, and `true` outlasts any list;
 * - a misspelling of `no-store`, `no-cache` or `private` by characters outside the token
 *   grammar (a trailing non-breaking space) is that directive.
 * Unknown directives are ignored.
 */
export function parseCacheControl (header: string | string[] | undefined | null): CacheControlDirectives {
  const directives: CacheControlDirectives = {}
  if (header == null) return directives
  const text = Array.isArray(header) ? header.join(',') : header
  const byName = directives as Record<string, unknown>
  const refused = new Set<string>()
  for (const [written, value] of tokenize(text)) {
    const restrictive = restrictiveSpelling(written)
    const name = restrictive ?? written
    if (restrictive !== undefined || name === 'no-store') {
      byName[name] = true
    } else if (NUMERIC.has(name)) {
      const parsed = numericValue(name, value)
      const previous = byName[name] as number | undefined
      byName[name] = previous === undefined ? parsed : moreRestrictive(name, previous, parsed)
    } else if (FLAGS.has(name)) {
      if (value !== undefined) refused.add(name)
      if (refused.has(name)) delete byName[name]
      else byName[name] = true
    } else if (FIELD_LISTS.has(name)) {
      const fields = fieldList(value)
      const previous = byName[name] as true | string[] | undefined
      byName[name] = previous === true || fields === true ? true : [...(previous ?? []), ...fields]
    }
  }
  return directives
}
