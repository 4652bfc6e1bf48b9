/**
 * What a Cache holds (its request-response list) and how a query selects from it: the Service
 * Workers "query cache" and "request matches cached item" steps, Vary included.
 * @module
 */

import { Headers, headersInternals } from '../fetch/headers.js'
import { Request } from '../fetch/request.js'
import { Response, createResponse, responseState } from '../fetch/response.js'
import type { ResponseState } from '../fetch/response.js'

/** The options of `match`, `matchAll`, `delete` and `keys`. */
export interface CacheQueryOptions {
  /** Compare URLs without their query. @defaultValue false */
  ignoreSearch?: boolean
  /** Match a query Request whatever its method (otherwise only GET matches). @defaultValue false */
  ignoreMethod?: boolean
  /** Ignore the stored response's Vary header. @defaultValue false */
  ignoreVary?: boolean
}

/** The options of `caches.match`: the query options and the one cache to look in. */
export interface MultiCacheQueryOptions extends CacheQueryOptions {
  /** Look only in the cache of this name. */
  cacheName?: string
}

/** The query options after conversion: every flag present. */
export type QueryFlags = Required<CacheQueryOptions>

/** The forms of a URL a query compares: without fragment, and also without query (for `ignoreSearch`). */
export interface UrlKeys {
  url: string
  path: string
}

/** A stored request: a private copy, so later changes to the caller's Request do not reach the cache. */
export interface StoredRequest {
  url: string
  /** Its URL as queries compare it, worked out once when it is stored. */
  keys: UrlKeys
  method: string
  headers: Headers
  request: Request
}

/** A stored response: its state and its body bytes, read once when it was put. */
export interface StoredResponse {
  state: ResponseState
  body: Uint8Array | null
}

/** One entry of a cache's request-response list. */
export interface CacheEntry {
  request: StoredRequest
  response: StoredResponse
}

/** What a query compares: a URL, a method and request headers. */
export interface RequestQuery {
  url: string
  method: string
  headers: Headers
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/** The header names a Vary value lists (names that are not tokens are skipped, as browsers do). */
export function varyFieldNames (vary: string): string[] {
  return vary.split(',').map((name) => name.trim()).filter((name) => TOKEN.test(name))
}

/** True when a response's Vary lists `*`, which no later request can be said to match. */
export function hasVaryStar (headers: Headers): boolean {
  const vary = headers.get('vary')
  return vary !== null && varyFieldNames(vary).includes('*')
}

/** `href` without its fragment, and without its query and fragment. */
export function urlKeys (href: string): UrlKeys {
  const url = new URL(href)
  url.hash = ''
  const withQuery = url.href
  url.search = ''
  return { url: withQuery, path: url.href }
}

/**
 * Whether a stored entry of the query's URL answers it: the request headers its response's Vary
 * names are equal, unless `ignoreVary`. (Which entries share the query's URL is the list's job.)
 */
export function entryMatches (query: RequestQuery, entry: CacheEntry, flags: QueryFlags | null): boolean {
  if (flags?.ignoreVary === true) return true
  const vary = headersInternals.lookup(entry.response.state.headers!, 'vary')
  if (vary === null) return true
  for (const name of varyFieldNames(vary)) {
    if (name === '*') return false
    if (entry.request.headers.get(name) !== query.headers.get(name)) return false
  }
  return true
}

/** Copies a Request for storage; its body is not kept (only GET requests are stored). */
export function storeRequest (request: Request): StoredRequest {
  const copy = new Request(request.url, { method: request.method, headers: request.headers, mode: request.mode, credentials: request.credentials, cache: request.cache, redirect: request.redirect, integrity: request.integrity, referrerPolicy: request.referrerPolicy })
  return { url: request.url, keys: urlKeys(request.url), method: request.method, headers: new Headers(request.headers), request: copy }
}

/** Copies a Response's state for storage with the body bytes already read from it. */
export function storeResponse (response: Response, body: Uint8Array | null): StoredResponse {
  const state = responseState(response)
  const headers = new Headers(response.headers)
  return { state: { ...state, urlList: [...state.urlList], rawHeaders: null, headers, guard: 'immutable' }, body }
}

/** A new Response for a stored one: immutable headers, its own copy of the body. */
export function replayResponse (stored: StoredResponse): Response {
  const headers = new Headers(stored.state.headers!)
  headersInternals.guard(headers, 'immutable')
  const state: ResponseState = { ...stored.state, urlList: [...stored.state.urlList], headers, rawHeaders: null, guard: 'immutable' }
  return createResponse(state, stored.body === null ? null : { kind: 'bytes', data: stored.body })
}

/** A new Request for a stored one, with immutable headers (what `keys()` returns). */
export function replayRequest (stored: StoredRequest): Request {
  const request = new Request(stored.request)
  headersInternals.guard(request.headers, 'immutable')
  return request
}
