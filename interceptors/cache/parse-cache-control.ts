/**
 * `Cache-Control` parsing (RFC 9111 §5.2) for requests and responses alike.
 * @module
 */

import type { CacheControlDirectives } from '../../src/contracts/cache-store.js'

// RFC 9111 §1.2.2: a delta-seconds too large to represent is treated as 2^31.
const MAX_DELTA_SECONDS = 2_147_483_648

const NUMERIC = new Set(['max-age', 's-maxage', 'max-stale', 'min-fresh', 'stale-while-revalidate', 'stale-if-error'])
const FLAGS = new Set(['public', 'no-store', 'must-revalidate', 'proxy-revalidate', 'immutable', 'no-transform', 'must-understand', 'only-if-cached'])
const FIELD_LISTS = new Set(['no-cache', 'private'])

type Raw = Array<[name: string, value: string | undefined]>

/** Splits a header value into `[name, value]` pairs; commas inside quoted strings do not split. */
function tokenize (text: string): Raw {
  const out: Raw = []
  let i = 0
  const n = text.length
  while (i < n) {
    while (i < n && (text[i] === ',' || text[i] === ' ' || text[i] === '\t')) i++
    const nameStart = i
    while (i < n && text[i] !== '=' && text[i] !== ',') i++
    const name = text.slice(nameStart, i).trim().toLowerCase()
    let value: string | undefined
    if (i < n && text[i] === '=') {
      i++
      while (i < n && (text[i] === ' ' || text[i] === '\t')) i++
      if (text[i] === '"') {
        i++
        let quoted = ''
        while (i < n && text[i] !== '"') {
          if (text[i] === '\\' && i + 1 < n) i++
          quoted += text[i]
          i++
        }
        i++
        value = quoted
        while (i < n && text[i] !== ',') i++
      } else {
        const valueStart = i
        while (i < n && text[i] !== ',') i++
        value = text.slice(valueStart, i).trim()
      }
    }
    if (name !== '') out.push([name, value])
  }
  return out
}

function parseDeltaSeconds (value: string | undefined): number | undefined {
  if (value === undefined || !/^\d+$/.test(value)) return undefined
  return Math.min(Number(value), MAX_DELTA_SECONDS)
}

/**
 * Parses one or more `Cache-Control` header values. Names are case-insensitive; the first
 * occurrence of a directive wins (RFC 9111 §4.2.1). Numeric directives with an invalid value
 * become 0, so a response with broken freshness information counts as stale, as §4.2.1
 * encourages; `max-stale` without a value is `Infinity` (any staleness). `no-cache` and `private`
 * are `true`, or the lower-case field names they list. Unknown directives are ignored.
 */
export function parseCacheControl (header: string | string[] | undefined | null): CacheControlDirectives {
  const directives: CacheControlDirectives = {}
  if (header == null) return directives
  const text = Array.isArray(header) ? header.join(',') : header
  const target = directives as Record<string, unknown>
  for (const [name, value] of tokenize(text)) {
    if (Object.hasOwn(target, name)) continue
    if (NUMERIC.has(name)) {
      if (name === 'max-stale' && value === undefined) target[name] = Infinity
      else target[name] = parseDeltaSeconds(value) ?? 0
    } else if (FLAGS.has(name)) {
      target[name] = true
    } else if (FIELD_LISTS.has(name)) {
      if (value === undefined) {
        target[name] = true
      } else {
        const fields = value.split(',').map((field) => field.trim().toLowerCase()).filter((field) => field !== '')
        target[name] = fields.length === 0 ? true : fields
      }
    }
  }
  return directives
}
