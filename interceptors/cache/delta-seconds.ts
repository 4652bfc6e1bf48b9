/**
 * `delta-seconds` (RFC 9111 §1.2.2) and the `Age` field built on it (§5.1).
 * @module
 */

import { trimOws } from '../../src/handler.js'

/** RFC 9111 §1.2.2: a delta-seconds too large to represent is treated as 2^31. */
export const MAX_DELTA_SECONDS = 2_147_483_648

const DIGITS = /^\d+$/

/** The value of a delta-seconds text (digits only, nothing around them), capped at 2^31; undefined when malformed. */
export function parseDeltaSeconds (text: string | undefined): number | undefined {
  if (text === undefined || !DIGITS.test(text)) return undefined
  return Math.min(Number(text), MAX_DELTA_SECONDS)
}

/**
 * Reads an `Age` field: undefined when absent or invalid, otherwise seconds. Several values (a
 * list or repeated lines) use the first one, and parameters after `;` are ignored, so `7200, 0`
 * and `7200;src=edge` are 7200. A first value that is not a delta-seconds (negative, fractional,
 * junk) is undefined: RFC 9111 §5.1 says a cache SHOULD ignore such a field, so the response is
 * as fresh as it would be without one.
 */
export function parseAge (header: string | string[] | undefined): number | undefined {
  if (header === undefined) return undefined
  const first = Array.isArray(header) ? header[0] : header
  if (first === undefined) return undefined
  const comma = first.indexOf(',')
  const member = comma === -1 ? first : first.slice(0, comma)
  const semicolon = member.indexOf(';')
  const value = trimOws(semicolon === -1 ? member : member.slice(0, semicolon))
  return parseDeltaSeconds(value)
}
