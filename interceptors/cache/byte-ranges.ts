/**
 * Byte ranges (RFC 9110 §14): the `Range` request field, `Content-Range`, and the ranges a
 * stored partial response holds.
 * @module
 */

import { trimOws } from '../../src/handler.js'

/** An inclusive byte range of a representation. */
export interface ByteRange {
  start: number
  end: number
}

/** Upper bound on ranges in one request; more is treated as no Range at all (RFC 9110 §14.2 allows ignoring it). */
export const MAX_RANGES = 64

/** A requested range before it is resolved against a length: `first-[last]` or `-suffix`. */
export type RangeSpec = { first: number, last: number | undefined } | { suffix: number }

const SPEC = /^(?:(\d+)-(\d*)|-(\d+))$/

/** Parses `bytes=...`; undefined when the field is not a valid bytes range set (it is then ignored). */
export function parseRangeHeader (header: string | string[] | undefined): RangeSpec[] | undefined {
  if (header === undefined || Array.isArray(header)) return undefined
  const equals = header.indexOf('=')
  if (equals === -1 || trimOws(header.slice(0, equals)).toLowerCase() !== 'bytes') return undefined
  const specs: RangeSpec[] = []
  for (const part of header.slice(equals + 1).split(',')) {
    const text = trimOws(part)
    if (text === '') continue
    const match = SPEC.exec(text)
    if (match === null) return undefined
    if (match[3] !== undefined) {
      specs.push({ suffix: Number(match[3]) })
    } else {
      const first = Number(match[1])
      const last = match[2] === '' ? undefined : Number(match[2])
      if (last !== undefined && last < first) return undefined
      specs.push({ first, last })
    }
    if (specs.length > MAX_RANGES) return undefined
  }
  return specs.length === 0 ? undefined : specs
}

/**
 * Resolves requested ranges against a representation of `length` bytes: unsatisfiable ones are
 * dropped (§14.1.1), the rest clipped to the end. An empty result means 416.
 */
export function resolveRanges (specs: RangeSpec[], length: number): ByteRange[] {
  const out: ByteRange[] = []
  for (const spec of specs) {
    if ('suffix' in spec) {
      if (spec.suffix === 0 || length === 0) continue
      out.push({ start: Math.max(0, length - spec.suffix), end: length - 1 })
    } else {
      if (spec.first >= length) continue
      out.push({ start: spec.first, end: Math.min(spec.last ?? length - 1, length - 1) })
    }
  }
  return out
}

/** `bytes START-END/LENGTH`. */
export function formatContentRange (range: ByteRange, length: number): string {
  return `bytes ${range.start}-${range.end}/${length}`
}

/** Reads `bytes START-END/LENGTH` with a known length; undefined for anything else (`*`, other units, junk). */
export function parseContentRange (header: string | string[] | undefined): { range: ByteRange, length: number } | undefined {
  if (typeof header !== 'string') return undefined
  const match = /^\s*bytes\s+(\d+)-(\d+)\/(\d+)\s*$/i.exec(header)
  if (match === null) return undefined
  const range = { start: Number(match[1]), end: Number(match[2]) }
  const length = Number(match[3])
  if (range.end < range.start || range.end >= length) return undefined
  return { range, length }
}

/** Joins two held ranges when they overlap or touch; undefined when a gap separates them. */
export function joinRanges (a: ByteRange, b: ByteRange): ByteRange | undefined {
  if (b.start > a.end + 1 || a.start > b.end + 1) return undefined
  return { start: Math.min(a.start, b.start), end: Math.max(a.end, b.end) }
}
