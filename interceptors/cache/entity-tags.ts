/**
 * Entity tags (RFC 9110 §8.8.3): parsing the lists conditional headers carry, and the weak and
 * strong comparisons.
 * @module
 */

import { trimOws } from '../../src/handler.js'

const ENTITY_TAG = /(W\/)?"[^"]*"/g

/** The entity tags of an `If-None-Match` / `If-Match` value, or `'*'`. Malformed members are skipped. */
export function parseEntityTagList (header: string | string[] | undefined): string[] | '*' {
  if (header === undefined) return []
  const text = Array.isArray(header) ? header.join(',') : header
  if (trimOws(text) === '*') return '*'
  return text.match(ENTITY_TAG) ?? []
}

function opaque (tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag
}

/** Weak comparison: the opaque tags are equal, whether either is weak or not. */
export function weakMatch (a: string, b: string): boolean {
  return opaque(a) === opaque(b)
}

/** Strong comparison: both tags are strong and equal. */
export function strongMatch (a: string, b: string): boolean {
  return !a.startsWith('W/') && a === b
}

/** True for a strong entity tag (no `W/` prefix), usable to combine or slice byte ranges. */
export function isStrong (tag: string | undefined): tag is string {
  return tag !== undefined && tag.startsWith('"')
}
