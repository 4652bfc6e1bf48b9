/**
 * Which request headers the redirect interceptor sends on the next hop, as undici's redirect
 * handler decides it: `Host` never (the next hop derives it from its own target), the body's
 * `Content-*` fields when the body goes, credentials when the hop leaves the origin, and the
 * headers the caller asked to strip. fetch() follows the Fetch Standard's own rules instead.
 * @module
 */

import { CROSS_ORIGIN_STRIPPED_HEADERS, InvalidArgumentError, describeValue, failOption } from '../../src/handler.js'
import type { IncomingHeaders } from '../../src/handler.js'

/** What a hop changes about the request. */
export interface HopChange {
  /** True when the redirect drops the body description: a 303, or a POST turned into a GET by a 301 or 302. */
  dropBodyHeaders: boolean
  /** True when the next hop is on another origin. */
  crossOrigin: boolean
  /** Lower-case names removed on every followed redirect (`stripHeadersOnRedirect`). */
  strip: ReadonlySet<string> | null
  /** Lower-case names removed when the redirect leaves the origin (`stripHeadersOnCrossOriginRedirect`). */
  stripCrossOrigin: ReadonlySet<string> | null
}

/** True when undici's redirect handler removes `name` (lower-case) for `change`. */
function removed (name: string, change: HopChange): boolean {
  if (name === 'host') return true
  if (change.strip?.has(name) === true) return true
  if (change.crossOrigin && change.stripCrossOrigin?.has(name) === true) return true
  if (change.dropBodyHeaders && name.startsWith('content-')) return true
  return change.crossOrigin && (CROSS_ORIGIN_STRIPPED_HEADERS as readonly string[]).includes(name)
}

/** The headers (lower-case names) of the next hop: `headers` without those `change` removes. */
export function nextHopHeaders (headers: IncomingHeaders, change: HopChange): IncomingHeaders {
  const out: IncomingHeaders = {}
  for (const name of Object.keys(headers)) {
    if (!removed(name, change)) out[name] = headers[name]
  }
  return out
}

/**
 * Reads `stripHeadersOnRedirect` / `stripHeadersOnCrossOriginRedirect`: null when not given,
 * otherwise the lower-case names.
 * @throws InvalidArgumentError when the value is not an array of header names, as undici does
 */
export function readStripHeaders (value: unknown, option: string, who: string): ReadonlySet<string> | null {
  if (value == null) return null
  if (!Array.isArray(value)) failOption(who, option, 'an array of header names', value)
  const names = new Set<string>()
  for (const name of value as unknown[]) {
    if (typeof name !== 'string') throw new InvalidArgumentError(`${who}: ${option} must contain header names, got ${describeValue(name)}`)
    names.add(name.toLowerCase())
  }
  return names
}
