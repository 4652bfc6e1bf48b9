/**
 * Turning request state into dispatch options: the default headers fetch adds, the cache-mode
 * headers any RFC 9111 cache understands, the body as the transport takes it, and the caller tag
 * that names fetch to observability.
 * @module
 */

import type { DispatchBody, DispatchOptions } from '../contracts/dispatch-contract.js'
import type { RequestCache } from './constants.js'
import { sourceChunks } from './body.js'
import type { BodySource } from './body.js'
import { CACHE_MODE_OPTION, CONDITIONAL_HEADERS } from './constants.js'
import { tagCaller } from '../observability/caller-tag.js'
import { FETCH_NAMESPACE } from '../observability/debug-log.js'
import { ACCEPT_ENCODING } from '../content-coding/body-decoder.js'
import { headersInternals } from './headers.js'
import type { Headers } from './headers.js'
import { referrerFor } from './referrer.js'
import { withRedirectedFrom } from '../redirect/rules.js'
import type { RequestState } from './request-state.js'

/** The `user-agent` fetch sends when the caller set none. */
export const FETCH_USER_AGENT = 'conduit'

/** Header defaults fetch adds when absent, in the order they are sent. */
const DEFAULT_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['accept', '*/*'],
  ['accept-language', '*'],
  ['sec-fetch-mode', 'cors'],
  ['user-agent', FETCH_USER_AGENT]
]

/** Every default as `[name, value, ...]`, for the usual request that sets no header of its own. */
const ALL_DEFAULTS_FLAT: readonly string[] = [...DEFAULT_HEADERS.flat(), 'accept-encoding', ACCEPT_ENCODING]

/** True when the request's own headers hold `name` (lower-case); none of them when `empty`. */
function has (headers: Headers, empty: boolean, name: string): boolean {
  return !empty && headersInternals.lookup(headers, name) !== null
}

function cacheHeaders (state: RequestState, flat: string[], empty: boolean): RequestCache {
  let mode: RequestCache = state.cache
  const headers = state.headers
  // Fetch Standard, HTTP-network-or-cache fetch: conditional requests made by the caller bypass the cache.
  if (mode === 'default') {
    if (!empty && CONDITIONAL_HEADERS.some((name) => has(headers, false, name))) mode = 'no-store'
    else return mode
  }
  if (mode === 'no-cache' && !has(headers, empty, 'cache-control')) flat.push('cache-control', 'max-age=0')
  if (mode === 'no-store' || mode === 'reload') {
    if (!has(headers, empty, 'pragma')) flat.push('pragma', 'no-cache')
    if (!has(headers, empty, 'cache-control')) flat.push('cache-control', 'no-cache')
  }
  return mode
}

/** Dispatch options for the current hop of `state`. */
export function dispatchOptionsFor (state: RequestState): DispatchOptions {
  const url = state.urlList[state.urlList.length - 1]!
  const headers = state.headers
  // Most fetches set no header of their own: then every default applies, copied in one step.
  const empty = headersInternals.isEmpty(headers)
  let flat: string[]
  if (empty) {
    flat = ALL_DEFAULTS_FLAT.slice()
  } else {
    flat = headersInternals.toFlat(headers)
    for (let i = 0; i < DEFAULT_HEADERS.length; i++) {
      const [name, value] = DEFAULT_HEADERS[i]!
      if (!has(headers, false, name)) flat.push(name, value)
    }
    if (!has(headers, false, 'accept-encoding') && !has(headers, false, 'range')) flat.push('accept-encoding', ACCEPT_ENCODING)
  }
  const referer = referrerFor(state.referrer, state.referrerPolicy, url)
  if (referer !== null && !has(headers, empty, 'referer')) flat.push('referer', referer)

  let body: DispatchBody = null
  const extracted = state.body
  if (extracted !== null) {
    if (extracted.length !== null) {
      removeFlat(flat, 'content-length')
      flat.push('content-length', String(extracted.length))
    }
    const source = extracted.source
    body = dispatchBody(source)
  } else if (state.method === 'POST' || state.method === 'PUT') {
    removeFlat(flat, 'content-length')
    flat.push('content-length', '0')
  }
  const cacheMode = cacheHeaders(state, flat, empty)
  // The cache mode is the cache interceptor's option (it declares it on DispatchOptions).
  const opts: DispatchOptions & { [CACHE_MODE_OPTION]?: RequestCache } = {
    origin: url.origin,
    path: url.pathname + url.search,
    method: state.method,
    // A record of lower-case names, as undici's fetch hands a dispatcher: a custom dispatcher or
    // interceptor written for undici reads `opts.headers[name]`.
    headers: headerRecord(flat),
    body
  }
  tagCaller(opts, FETCH_NAMESPACE)
  if (cacheMode !== 'default') opts[CACHE_MODE_OPTION] = cacheMode
  if (state.urlList.length > 1) withRedirectedFrom(opts, state.urlList.slice(0, -1).map((hop) => hop.origin))
  return opts
}

/**
 * The body as the transport takes it. Bytes and Blobs go as they are; a form becomes one Blob
 * assembled from its parts, which references the parts' data instead of copying it, so large
 * files stream from where they are and the body can be sent again on a retry.
 */
function dispatchBody (source: BodySource): DispatchBody {
  switch (source.kind) {
    case 'bytes': return Buffer.from(source.data.buffer, source.data.byteOffset, source.data.byteLength)
    case 'blob': return source.data
    case 'multipart': return new Blob(source.data.parts as BlobPart[])
    default: return sourceChunks(source)
  }
}

/** `[name, value, ...]` as a record; a name given twice (only `set-cookie` can be) gets the list of its values. */
function headerRecord (flat: readonly string[]): Record<string, string | string[]> {
  const record: Record<string, string | string[]> = {}
  for (let i = 0; i < flat.length; i += 2) {
    const name = flat[i]!
    const earlier = Object.hasOwn(record, name) ? record[name]! : undefined
    const value = earlier === undefined ? flat[i + 1]! : [...(Array.isArray(earlier) ? earlier : [earlier]), flat[i + 1]!]
    // defineProperty, so that a field named `__proto__` is a field and not the record's prototype.
    if (name === '__proto__') Object.defineProperty(record, name, { value, enumerable: true, writable: true, configurable: true })
    else record[name] = value
  }
  return record
}

function removeFlat (flat: string[], name: string): void {
  for (let i = flat.length - 2; i >= 0; i -= 2) {
    if (flat[i] === name) flat.splice(i, 2)
  }
}
