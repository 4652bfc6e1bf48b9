/**
 * `Vary` (RFC 9110 §12.5.5, RFC 9111 §4.1): which request headers select a stored response.
 * @module
 */

import type { IncomingHeaders } from '../../src/handler.js'
import { trimOws } from '../../src/handler.js'

/** The lower-case header names a `Vary` value lists, or `'*'` when it contains the wildcard. */
export function parseVary (header: string | string[] | undefined): string[] | '*' {
  if (header === undefined) return []
  const text = Array.isArray(header) ? header.join(',') : header
  const names: string[] = []
  for (const part of text.split(',')) {
    const name = trimOws(part).toLowerCase()
    if (name === '*') return '*'
    if (name !== '' && !names.includes(name)) names.push(name)
  }
  return names
}

/** The request's value of each named header; `null` records that the request did not send it. */
export function varyValues (names: string[], requestHeaders: IncomingHeaders): Record<string, string | string[] | null> | undefined {
  if (names.length === 0) return undefined
  const values: Record<string, string | string[] | null> = {}
  for (const name of names) values[name] = requestHeaders[name] ?? null
  return values
}
