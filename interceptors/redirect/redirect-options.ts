/**
 * The checks of the redirect options, shared by `redirect()` (its own options and each request's)
 * and `RedirectHandler` (public, so a caller who builds one directly is checked the same way).
 * @module
 */

import { failOption } from '../../src/handler.js'

/** `maxRedirections`: absent (undefined, null) or a non-negative integer. */
export function checkMaxRedirections (value: unknown, who: string): number | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    failOption(who, 'maxRedirections', 'a non-negative integer', value)
  }
  return value
}

/** `throwOnMaxRedirect`: absent (undefined, null) or a boolean. */
export function checkThrowOnMaxRedirect (value: unknown, who: string): boolean | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'boolean') failOption(who, 'throwOnMaxRedirect', 'a boolean', value)
  return value
}
