/**
 * `Cache-Control` parsing (RFC 9111 §5.2) for requests and responses alike.
 * @module
 */

import type { CacheControlDirectives } from '../../src/handler.js'
import { parseDeltaSeconds } from './delta-seconds.js'

const NUMERIC = new Set(['max-age', 's-maxage', 'max-stale', 'min-fresh', 'stale-while-revalidate', 'stale-if-error'])
const FLAGS = new Set(['public', 'no-store', 'must-revalidate', 'proxy-revalidate', 'immutable', 'no-transform', 'must-understand', 'only-if-cached'])
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
    const name = rawName.trim().toLowerCase()
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
        if (text.slice(after, i).trim() !== '') malformed = true
        value = malformed ? MALFORMED : quoted
      } else {
        const valueStart = i
        while (i < n && text[i] !== ',') i++
        const bare = text.slice(valueStart, i).trim()
        value = malformed || !TOKEN.test(bare) ? MALFORMED : bare
      }
    }
    if (name !== '') out.push([name, value])
  }
  return out
}

function numericValue (name: string, value: string | undefined | typeof MALFORMED): number {
  if (name === 'max-stale' && value === undefined) return Infinity
  return value === MALFORMED ? 0 : parseDeltaSeconds(value) ?? 0
}

/**
 * Parses one or more `Cache-Control` header values. Names are case-insensitive; the first
 * occurrence of a directive wins (RFC 9111 §4.2.1). Numeric directives with an invalid value
 * (not digits, or written against the grammar such as `max-age = 5` or `max-age=5 junk`)
 * become 0, so a response with broken freshness information counts as stale, as §4.2.1
 * encourages; a malformed `no-cache` or `private` value applies to the whole response; `max-stale` without a value is `Infinity` (any staleness). `no-cache` and `private`
 * are `true`, or the lower-case field names they list. Unknown directives are ignored.
 */
export function parseCacheControl (header: string | string[] | undefined | null): CacheControlDirectives {
  const directives: CacheControlDirectives = {}
  if (header == null) return directives
  const text = Array.isArray(header) ? header.join(',') : header
  const byName = directives as Record<string, unknown>
  for (const [name, value] of tokenize(text)) {
    if (Object.hasOwn(byName, name)) continue
    if (NUMERIC.has(name)) {
      byName[name] = numericValue(name, value)
    } else if (FLAGS.has(name)) {
      byName[name] = true
    } else if (FIELD_LISTS.has(name)) {
      if (value === undefined || value === MALFORMED) {
        byName[name] = true
      } else {
        const fields = value.split(',').map((field) => field.trim().toLowerCase()).filter((field) => field !== '')
        byName[name] = fields.length === 0 ? true : fields
      }
    }
  }
  return directives
}
