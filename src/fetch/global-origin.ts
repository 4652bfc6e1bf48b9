/**
 * The global origin: the base URL that relative URLs in `fetch()`, `new Request()` and
 * `Response.redirect()` resolve against, as a page's URL is in a browser. It lives on
 * `globalThis` under a registered symbol, so every copy of conduit loaded in one process shares it.
 * @module
 */

import { describeUrl } from '../observability/redaction.js'

const GLOBAL_ORIGIN = Symbol.for('conduit.globalOrigin.1')

type WithGlobalOrigin = typeof globalThis & { [GLOBAL_ORIGIN]?: URL | undefined }

/**
 * Sets the base URL of relative request URLs, or clears it with `undefined`.
 * @throws TypeError when `origin` is not a valid URL (the URL parser's failure), or not http: or https:
 * @example
 * setGlobalOrigin('http://127.0.0.1:3000')
 * const res = await fetch('/status') // http://127.0.0.1:3000/status
 */
export function setGlobalOrigin (origin: string | URL | undefined): void {
  const holder = globalThis as WithGlobalOrigin
  if (origin === undefined) {
    holder[GLOBAL_ORIGIN] = undefined
    return
  }
  let parsed: URL
  try {
    parsed = new URL(origin)
  } catch {
    // The parser's own error keeps the whole input (a password too), so it is not the cause.
    // The URL parser's code, so code that checks it sees the same error as from `new URL()`.
    throw Object.assign(new TypeError(`setGlobalOrigin: not a valid URL: ${describeUrl(origin)}`), { code: 'ERR_INVALID_URL' })
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(`setGlobalOrigin: only http: and https: URLs are allowed, got ${describeUrl(origin)}`)
  }
  holder[GLOBAL_ORIGIN] = parsed
}

/** The base URL set with {@link setGlobalOrigin}, or undefined when none is set. */
export function getGlobalOrigin (): URL | undefined {
  return (globalThis as WithGlobalOrigin)[GLOBAL_ORIGIN]
}
