/**
 * How a mock interceptor decides whether it answers a request: value matchers, path and query
 * normalisation, header and body comparison. Pure functions, so they are property-tested on their own.
 * @module
 */

import type { IncomingHeaders } from '../contracts/dispatch-contract.js'
import { serializePathWithQuery } from '../replay/path-with-query.js'

/** A value matcher: an exact string, a RegExp tested against the value, or a predicate. */
export type Matcher = string | RegExp | ((value: string) => boolean)

/** Header matchers: per-name value matchers, or one predicate over all (lower-cased) request headers. */
export type HeadersMatcher = Record<string, Matcher> | ((headers: Record<string, string | string[]>) => boolean)

/** A body matcher: exact string, RegExp, or a predicate over the request body as text. */
export type BodyMatcher = Matcher

/** What one interceptor expects of a request (the normalised `intercept()` options). */
export interface MockKey {
  path: Matcher
  method: Matcher
  body?: BodyMatcher | undefined
  headers?: HeadersMatcher | undefined
  ignoreTrailingSlash: boolean
}

/** The parts of a dispatched request that interceptors compare against. */
export interface MockRequestKey {
  /** Path with its query, query parameters sorted. */
  path: string
  method: string
  /** The body as UTF-8 text, or undefined when there is none. */
  body: string | undefined
  /** Request headers with lower-case names. */
  headers: IncomingHeaders
}

/** True when `value` satisfies `matcher`; a RegExp is reset first so a `g` flag cannot make it flaky. */
export function matchValue (matcher: unknown, value: string | undefined): boolean {
  if (typeof matcher === 'string') return matcher === value
  if (matcher instanceof RegExp) {
    if (value === undefined) return false
    matcher.lastIndex = 0
    return matcher.test(value)
  }
  if (typeof matcher === 'function') return matcher(value) === true
  return false
}

/** True for the three accepted matcher kinds. */
export function isMatcher (value: unknown): value is Matcher {
  return typeof value === 'string' || value instanceof RegExp || typeof value === 'function'
}

/** Sorts the query parameters of `path` so that their order never decides a match. */
export function sortQuery (path: string): string {
  const mark = path.indexOf('?')
  if (mark === -1) return path
  const params = new URLSearchParams(path.slice(mark + 1))
  params.sort()
  const search = params.toString()
  return search === '' ? path.slice(0, mark) : `${path.slice(0, mark)}?${search}`
}

/**
 * Removes trailing slashes from the path part (never from the query). An empty path and `/`
 * both become `/`, so `''` and `'/'` are the same path when trailing slashes are ignored.
 */
export function removeTrailingSlash (path: string): string {
  const mark = path.indexOf('?')
  let pathname = mark === -1 ? path : path.slice(0, mark)
  const search = mark === -1 ? '' : path.slice(mark)
  while (pathname.length > 1 && pathname.endsWith('/')) pathname = pathname.slice(0, -1)
  return (pathname === '' ? '/' : pathname) + search
}

const ABSOLUTE_URL = /^[a-z][a-z0-9+.-]*:\/\//i

/**
 * Normalises a path given to `intercept()`: an absolute URL is reduced to its path and query
 * (the pool already names the origin), the query object is serialised into it, and a fragment
 * is dropped, because clients never send fragments (RFC 3986, section 3.5).
 */
export function normalizeInterceptPath (path: string, query: Record<string, unknown> | undefined): string {
  let relative = path
  if (ABSOLUTE_URL.test(path) && URL.canParse(path)) {
    const url = new URL(path)
    relative = url.pathname + url.search
  }
  if (query != null) return serializePathWithQuery(relative, query)
  const hash = relative.indexOf('#')
  return hash === -1 ? relative : relative.slice(0, hash)
}

/**
 * Rewrites the query of `path` the way some server frameworks read it: `a[]=1` becomes `a=1`
 * and `a=1,2` becomes `a=1&a=2` (quoted values are kept whole).
 */
export function normalizeNonStandardQuery (path: string): string {
  const mark = path.indexOf('?')
  if (mark === -1) return path
  const out = new URLSearchParams()
  for (const [rawName, value] of new URLSearchParams(path.slice(mark + 1))) {
    const name = rawName.replace('[]', '')
    if (/^(['"]).*\1$/.test(value) || !value.includes(',')) out.append(name, value)
    else for (const part of value.split(',')) out.append(name, part)
  }
  return `${path.slice(0, mark)}?${out.toString()}`
}

function headerValue (headers: IncomingHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()]
  return Array.isArray(value) ? value.join(', ') : value
}

/** True when the request headers satisfy the interceptor's header matchers (absent matchers match). */
export function matchHeaders (matcher: HeadersMatcher | undefined, headers: IncomingHeaders): boolean {
  if (matcher === undefined) return true
  if (typeof matcher === 'function') return matcher({ ...headers }) === true
  for (const name of Object.keys(matcher)) {
    if (!matchValue(matcher[name], headerValue(headers, name))) return false
  }
  return true
}

/** True when the path of `key` matches the request path, honouring `ignoreTrailingSlash`. */
export function matchPath (key: MockKey, requestPath: string): boolean {
  if (typeof key.path !== 'string') {
    return matchValue(key.path, key.ignoreTrailingSlash ? removeTrailingSlash(requestPath) : requestPath) ||
      (key.ignoreTrailingSlash && matchValue(key.path, requestPath))
  }
  const expected = sortQuery(key.path)
  return key.ignoreTrailingSlash
    ? removeTrailingSlash(expected) === removeTrailingSlash(requestPath)
    : expected === requestPath
}

/** Which part of a request no interceptor accepted, checked in this order. */
export type MismatchStage = 'path' | 'method' | 'body' | 'headers'

/** The outcome of looking for an interceptor: the first one that matches, or the stage where all failed. */
export type MatchResult<T> = { match: T, stage?: undefined } | { match?: undefined, stage: MismatchStage }

/**
 * Returns the first candidate that matches `request` on path, method, body and headers, in that
 * order; when none does, the stage at which the last candidates dropped out (for the error message).
 */
export function findMatch<T extends { key: MockKey }> (candidates: readonly T[], request: MockRequestKey): MatchResult<T> {
  let left = candidates.filter((c) => matchPath(c.key, request.path))
  if (left.length === 0) return { stage: 'path' }
  left = left.filter((c) => matchValue(c.key.method, request.method))
  if (left.length === 0) return { stage: 'method' }
  left = left.filter((c) => c.key.body === undefined || matchValue(c.key.body, request.body))
  if (left.length === 0) return { stage: 'body' }
  left = left.filter((c) => matchHeaders(c.key.headers, request.headers))
  if (left.length === 0) return { stage: 'headers' }
  return { match: left[0]! }
}
