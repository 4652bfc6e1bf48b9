/**
 * Vary selection shared by the stores: a stored response is selected for a request only when every
 * header named in its `vary` map has the same value in the request, and a `null` value means the
 * header was absent from the original request (so it must be absent now too).
 * @module
 */

import type { CacheKey, CacheValue } from '../src/handler.js'

/**
 * Content-negotiation fields whose list members are case-insensitive tokens and whose order
 * carries no meaning (preferences are given by q-values): their members are also lower-cased
 * and sorted before comparing.
 */
const UNORDERED_LISTS = new Set(['accept', 'accept-charset', 'accept-encoding', 'accept-language'])

/** Splits at commas that are not inside a quoted string. */
function listMembers (text: string): string[] {
  const members: string[] = []
  let start = 0
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const char = text[i]
    if (char === '"') quoted = !quoted
    else if (char === '\\' && quoted) i++
    else if (char === ',' && !quoted) {
      members.push(text.slice(start, i))
      start = i + 1
    }
  }
  members.push(text.slice(start))
  return members
}

/**
 * The form of a request field value that `Vary` compares (RFC 9111 §4.1 allows normalizing):
 * repeated lines joined, whitespace around list commas, `;` and `=` removed, runs of spaces
 * collapsed, empty members dropped; for the content-negotiation lists, members lower-cased and
 * sorted too. Other fields keep their case and order, since for some (Cookie, Authorization)
 * they are the whole meaning.
 */
export function normalizeVaryValue (name: string, value: string | string[]): string {
  const text = Array.isArray(value) ? value.join(',') : value
  const members = listMembers(text)
    .map((member) => member.trim().replace(/\s*([;=])\s*/g, '$1').replace(/\s+/g, ' '))
    .filter((member) => member !== '')
  if (!UNORDERED_LISTS.has(name)) return members.join(',')
  return members.map((member) => member.toLowerCase()).sort().join(',')
}

function sameValue (name: string, stored: string | string[], current: string | string[]): boolean {
  if (typeof stored === 'string' && stored === current) return true
  return normalizeVaryValue(name, stored) === normalizeVaryValue(name, current)
}

/**
 * True when the request headers of `key` select a response stored with this `vary` map, values
 * compared in their {@link normalizeVaryValue} form.
 * Header names in both are lower-case (the interceptor normalizes them before any store sees them).
 */
export function varyMatches (vary: CacheValue['vary'], headers: CacheKey['headers']): boolean {
  if (vary == null) return true
  for (const name of Object.keys(vary)) {
    const stored = vary[name]
    const current = headers?.[name]
    if (stored === null || stored === undefined) {
      if (current !== undefined) return false
    } else if (current === undefined || !sameValue(name, stored, current)) {
      return false
    }
  }
  return true
}

/** The store-level identity of a URL: origin plus path (with query). */
export function urlOf (key: CacheKey): string {
  return `${key.origin}${key.path}`
}
