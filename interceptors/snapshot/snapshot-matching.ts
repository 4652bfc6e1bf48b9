/**
 * How a request becomes a snapshot key: the matched parts of the request (method, URL, chosen
 * headers, body) and their hash. The hash is computed exactly as undici's SnapshotAgent computes
 * it, so the two libraries find each other's recordings.
 * @module
 */

import { createHash } from 'node:crypto'
import { isCredentialHeader, serializePathWithQuery, showHeaderValue, showOrigin } from '../../src/handler.js'
import type { DispatchOptions, OutgoingHeaders } from '../../src/handler.js'
import type { SnapshotHeaders, SnapshotRequest } from '../../stores/snapshot-file-store.js'
import type { ResolvedSnapshotOptions } from './snapshot-options.js'
import { withSharedFetchDefaults } from './fetch-defaults.js'
import { redactUrlQuery, secretParameterTest } from './query-redaction.js'
import type { QueryParameterTest } from './query-redaction.js'

/** The header lists and the query rule, prepared once. */
export interface HeaderFilters {
  match: Set<string> | null
  ignore: Set<string>
  /**
   * True for a header never stored nor matched: a credential header not kept, or one of
   * `excludeHeaders`. Takes a lower-case name: exclusion protects secrets and must not depend on spelling.
   */
  excluded: (lowerName: string) => boolean
  /** Credential headers the user kept (lower-case): their values are not scanned for secrets either. */
  keptCredentials: ReadonlySet<string>
  /** Whether a query parameter's value is redacted. */
  secretParameter: QueryParameterTest
  caseSensitive: boolean
}

/** Prepares the header lists of the options. */
export function createHeaderFilters (opts: ResolvedSnapshotOptions): HeaderFilters {
  const key = (name: string): string => opts.caseSensitive ? name : name.toLowerCase()
  const exclude = new Set(opts.excludeHeaders.map((name) => name.toLowerCase()))
  const kept = new Set(opts.keepCredentialHeaders.filter((name) => !exclude.has(name)))
  return {
    match: opts.matchHeaders === null || opts.matchHeaders.length === 0 ? null : new Set(opts.matchHeaders.map(key)),
    ignore: new Set(opts.ignoreHeaders.map(key)),
    excluded: (lower) => exclude.has(lower) || (isCredentialHeader(lower) && !kept.has(lower)),
    keptCredentials: kept,
    secretParameter: secretParameterTest(opts.redactQueryParameters, opts.keepQueryParameters),
    caseSensitive: opts.caseSensitive
  }
}

function addHeader (out: SnapshotHeaders, name: string, value: string): void {
  const existing = out[name]
  out[name] = existing === undefined ? value : `${Array.isArray(existing) ? existing.join(', ') : existing}, ${value}`
}

/** Request headers as one record (repeated names joined with `, `); names lower-cased unless `caseSensitive`. */
export function flattenHeaders (headers: OutgoingHeaders | null | undefined, caseSensitive: boolean): SnapshotHeaders {
  const out: SnapshotHeaders = {}
  if (headers == null) return out
  const name = (n: unknown): string => caseSensitive ? String(n) : String(n).toLowerCase()
  if (Array.isArray(headers)) {
    if (headers.length > 0 && Array.isArray(headers[0])) {
      for (const [n, v] of headers as unknown as Array<[string, string]>) addHeader(out, name(n), String(v))
    } else {
      for (let i = 0; i + 1 < headers.length; i += 2) addHeader(out, name(headers[i]), String(headers[i + 1]))
    }
    return out
  }
  if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function') {
    for (const [n, v] of headers as Iterable<readonly [string, string]>) addHeader(out, name(n), String(v))
    return out
  }
  const record = headers as Record<string, unknown>
  for (const n of Object.keys(record)) {
    const v = record[n]
    if (v == null) continue
    addHeader(out, name(n), Array.isArray(v) ? v.map(String).join(', ') : String(v))
  }
  return out
}

/** Drops excluded headers (for storage: the response headers and trailers). */
export function withoutExcluded (headers: SnapshotHeaders, filters: HeaderFilters): SnapshotHeaders {
  const out: SnapshotHeaders = {}
  for (const name of Object.keys(headers)) if (!filters.excluded(name.toLowerCase())) out[name] = headers[name]!
  return out
}

/** Keeps the headers that take part in matching: not excluded, not ignored, and listed in `matchHeaders` if given. */
export function headersForMatching (headers: SnapshotHeaders, filters: HeaderFilters): SnapshotHeaders {
  const out: SnapshotHeaders = {}
  for (const name of Object.keys(headers)) {
    if (filters.excluded(name.toLowerCase()) || filters.ignore.has(name)) continue
    if (filters.match !== null && !filters.match.has(name)) continue
    out[name] = headers[name]!
  }
  return out
}

/**
 * The absolute URL of a request (its `query` option serialised into the path), without user
 * information: the transport never sends it, and snapshot files are meant to be committed.
 */
export function requestUrl (opts: DispatchOptions): URL {
  const url = new URL(serializePathWithQuery(opts.path, opts.query), opts.origin === undefined ? undefined : String(opts.origin))
  url.username = ''
  url.password = ''
  return url
}

function bodyForMatching (body: unknown, opts: ResolvedSnapshotOptions): string {
  if (!opts.matchBody) return ''
  const raw = body == null ? body : typeof body === 'string' ? body : Buffer.isBuffer(body) ? body : body instanceof Uint8Array ? Buffer.from(body.buffer, body.byteOffset, body.byteLength) : String(body)
  if (opts.normalizeBody !== null) return String(opts.normalizeBody(raw as string | Buffer | null | undefined))
  if (raw == null || raw === '' || (Buffer.isBuffer(raw) && raw.length === 0)) return ''
  return typeof raw === 'string' ? raw : raw.toString('utf8')
}

/** The request as it is matched and stored: method, URL (query per the options), matched headers, body. */
export function formatRequest (opts: DispatchOptions, resolved: ResolvedSnapshotOptions, filters: HeaderFilters): SnapshotRequest {
  const url = requestUrl(opts)
  let key: string
  if (!resolved.matchQuery) {
    key = `${url.origin}${url.pathname}`
  } else if (resolved.normalizeQuery !== null) {
    const query = String(resolved.normalizeQuery(new URLSearchParams(url.search))).replace(/^\?/, '')
    key = `${url.origin}${url.pathname}${query === '' ? '' : `?${query}`}`
  } else {
    key = url.toString()
  }
  return {
    method: typeof opts.method === 'string' && opts.method !== '' ? opts.method : 'GET',
    url: redactUrlQuery(key, filters.secretParameter),
    headers: headersForMatching(withSharedFetchDefaults(flattenHeaders(opts.headers as OutgoingHeaders | undefined, filters.caseSensitive)), filters),
    body: bodyForMatching(opts.body, resolved)
  }
}

/**
 * A request read from a file, keyed by today's rules: headers excluded, ignored or not matched
 * now are dropped and secret query values redacted, so a file recorded with other options (or
 * by undici, which keeps credential headers) is matched as requests are now. Bodies were
 * normalised when they were recorded and are kept as they are.
 */
export function rekeyRecorded (request: SnapshotRequest, filters: HeaderFilters): SnapshotRequest {
  const headers: SnapshotHeaders = {}
  for (const name of Object.keys(request.headers)) {
    Object.defineProperty(headers, filters.caseSensitive ? name : name.toLowerCase(), { value: request.headers[name], enumerable: true, writable: true, configurable: true })
  }
  return { method: request.method, url: redactUrlQuery(request.url, filters.secretParameter), headers: headersForMatching(headers, filters), body: request.body ?? '' }
}

/**
 * A request with only the headers `matchHeaders` names (none without it): how requests are
 * matched against entries another tool recorded, whose other headers (a browser's user-agent,
 * `sec-ch-ua`...) no test sends.
 */
export function withNamedHeadersOnly (request: SnapshotRequest, filters: HeaderFilters): SnapshotRequest {
  const headers: SnapshotHeaders = {}
  if (filters.match !== null) {
    for (const name of Object.keys(request.headers)) if (filters.match.has(name)) headers[name] = request.headers[name]!
  }
  return { ...request, headers }
}

/**
 * The snapshot key of a formatted request: SHA-256 (base64url) over method, URL, sorted header
 * names with their sorted values, and body, joined with `|` (undici's recipe, kept for file compatibility).
 */
export function hashRequest (request: SnapshotRequest): string {
  const parts: string[] = [request.method, request.url]
  for (const name of Object.keys(request.headers).sort()) {
    const value = request.headers[name]!
    parts.push(name)
    for (const v of (Array.isArray(value) ? [...value] : [value]).sort()) parts.push(String(v))
  }
  parts.push(request.body ?? '')
  return createHash('sha256').update(parts.join('|')).digest('base64url')
}

/** Builds the `excludeUrls` test: strings as case-insensitive substrings, RegExps tested against the URL. */
export function urlExclusion (patterns: ReadonlyArray<string | RegExp>): (url: string) => boolean {
  if (patterns.length === 0) return () => false
  const strings = patterns.filter((p): p is string => typeof p === 'string').map((p) => p.toLowerCase())
  const regexps = patterns.filter((p): p is RegExp => p instanceof RegExp)
  return (url) => {
    const lower = url.toLowerCase()
    if (strings.some((s) => lower.includes(s))) return true
    return regexps.some((r) => {
      r.lastIndex = 0
      return r.test(url)
    })
  }
}

/** The fields in which two formatted requests differ, for a playback miss message. */
export function describeDifferences (wanted: SnapshotRequest, recorded: SnapshotRequest): string[] {
  const diffs: string[] = []
  if (wanted.method !== recorded.method) diffs.push(`method (${wanted.method} vs recorded ${recorded.method})`)
  const a = new URL(wanted.url)
  const b = new URL(recorded.url)
  if (a.origin !== b.origin) diffs.push(`origin (${showOrigin(a)} vs recorded ${showOrigin(b)})`)
  if (a.pathname !== b.pathname) diffs.push(`path (${a.pathname} vs recorded ${b.pathname})`)
  if (a.search !== b.search) diffs.push(`query (${a.search || '(none)'} vs recorded ${b.search || '(none)'})`)
  const names = new Set([...Object.keys(wanted.headers), ...Object.keys(recorded.headers)])
  for (const name of [...names].sort()) {
    const x = wanted.headers[name]
    const y = recorded.headers[name]
    if (String(x) === String(y)) continue
    diffs.push(x === undefined ? `header ${name} (only in the recording)` : y === undefined ? `header ${name} (not in the recording)` : `header ${name} (${showHeaderValue(name, x)} vs recorded ${showHeaderValue(name, y)})`)
  }
  if ((wanted.body ?? '') !== (recorded.body ?? '')) diffs.push(`body (${(wanted.body ?? '').length} vs recorded ${(recorded.body ?? '').length} characters)`)
  return diffs
}
