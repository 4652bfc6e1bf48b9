/**
 * The internal state of a request and how `RequestInit` builds it (Fetch Standard, the Request
 * constructor steps). `fetch(url, init)` builds this state directly, without a Request object.
 * @module
 */

import type { Dispatcher } from '../dispatcher/dispatcher.js'
import type { TransferProgressCallback } from '../api/transfer-progress.js'
import { bodyInternals, extractBody, isStreamSource } from './body.js'
import type { BodyInit, BodyMixin, ExtractedBody } from './body.js'
import {
  CORS_SAFE_METHODS, FORBIDDEN_METHODS, NORMALIZED_METHODS, REFERRER_POLICY, REQUEST_CACHE,
  REQUEST_CREDENTIALS, REQUEST_DUPLEX, REQUEST_MODE, REQUEST_PRIORITY, REQUEST_REDIRECT
} from './constants.js'
import type {
  ReferrerPolicy, RequestCache, RequestCredentials, RequestDuplex, RequestMode, RequestPriority, RequestRedirect
} from './constants.js'
import { Headers, headersInternals } from './headers.js'
import type { HeadersInit } from './headers.js'
import { describeValue } from '../validation/describe-value.js'
import { redactUserinfo } from '../observability/redaction.js'
import { getGlobalOrigin } from './global-origin.js'
import { markForeignBody } from './foreign-body.js'

/** The second argument of `fetch()` and of `new Request()`. */
export interface RequestInit {
  /** Request body. @defaultValue `null` */
  body?: BodyInit | null
  /** Cache mode; acted on by a cache interceptor composed on the dispatcher. @defaultValue `'default'` */
  cache?: RequestCache
  /** Credentials mode; accepted for compatibility (there are no ambient credentials here). @defaultValue `'same-origin'` */
  credentials?: RequestCredentials
  /** Dispatcher that sends the request (fetch only). @defaultValue the global dispatcher */
  dispatcher?: Dispatcher
  /** Must be `'half'` when the body is a stream. */
  duplex?: RequestDuplex
  /** Called as the request body is written, throttled, and once at its end (fetch only; not kept by `new Request()`). */
  onUploadProgress?: TransferProgressCallback | null
  /** Called as the response body arrives, throttled, and once at its end (fetch only; not kept by `new Request()`). */
  onDownloadProgress?: TransferProgressCallback | null
  /** Request headers. */
  headers?: HeadersInit
  /** Subresource integrity metadata, e.g. `sha256-<base64>`. @defaultValue `''` */
  integrity?: string
  /** Accepted for compatibility; a streaming body is refused with it. @defaultValue `false` */
  keepalive?: boolean
  /** Request method; not defaulted when absent (the input's method, or GET, applies). */
  method?: string
  /** Request mode. @defaultValue `'cors'` */
  mode?: RequestMode
  /** Priority hint; checked, but it changes nothing outside a browser. @defaultValue `'auto'` */
  priority?: RequestPriority
  /** Redirect handling. @defaultValue `'follow'` */
  redirect?: RequestRedirect
  /** Referrer URL, `''` for none, or `'about:client'`. @defaultValue `'about:client'` */
  referrer?: string
  /** Referrer policy. @defaultValue `''` (strict-origin-when-cross-origin applies) */
  referrerPolicy?: ReferrerPolicy
  /** Aborts the request and the reading of its response body. @defaultValue `null` */
  signal?: AbortSignal | null
  /** Only `null` is accepted (there is no window outside a browser). */
  window?: null
}

/** Everything a request carries between construction, dispatch and redirects. */
export interface RequestState {
  method: string
  /** Every URL the request visited; the last is the current one. */
  urlList: URL[]
  headers: Headers
  body: ExtractedBody | null
  cache: RequestCache
  credentials: RequestCredentials
  mode: RequestMode
  redirect: RequestRedirect
  integrity: string
  keepalive: boolean
  /** `'client'`, `'no-referrer'` or a URL. */
  referrer: 'client' | 'no-referrer' | URL
  referrerPolicy: ReferrerPolicy
  signal: AbortSignal | null
  dispatcher: Dispatcher | undefined
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
/** The methods the standard normalizes, in their normal (upper-case) form. */
const STANDARD_METHODS: ReadonlySet<string> = new Set(NORMALIZED_METHODS.values())

function checkEnum<T extends string> (value: unknown, allowed: readonly T[], field: string, what: string): T {
  if (typeof value !== 'string' || !allowed.includes(value as T)) {
    throw new TypeError(`${what}: ${field} must be one of ${allowed.map((v) => `'${v}'`).join(', ')}, got ${typeof value === 'string' ? `'${value}'` : String(value)}`)
  }
  return value as T
}

/** Parses a URL the way fetch does: relative to the global origin when one is set, no embedded credentials. */
export function parseRequestUrl (input: string, what: string): URL {
  // The input may hold a password (`user:pass@host`), so messages show it without user
  // information, and the parser's own error (whose `input` keeps the whole string) is no cause.
  let url: URL
  try {
    url = new URL(input, getGlobalOrigin())
  } catch {
    throw new TypeError(`${what}: failed to parse URL from ${redactUserinfo(input)}`)
  }
  if (url.username !== '' || url.password !== '') {
    throw new TypeError(`${what}: a request URL may not include credentials: ${redactUserinfo(input)}`)
  }
  return url
}

/** Normalizes and checks a method name: a token, not CONNECT/TRACE/TRACK. */
export function normalizeMethod (method: unknown, what: string): string {
  // The usual methods, already in their normal form, need no token check or case mapping.
  if (typeof method === 'string' && STANDARD_METHODS.has(method)) return method
  const text = String(method)
  if (!TOKEN.test(text)) throw new TypeError(`${what}: invalid method ${JSON.stringify(text)}`)
  const normalized = NORMALIZED_METHODS.get(text.toLowerCase()) ?? text
  if (FORBIDDEN_METHODS.has(normalized.toUpperCase())) throw new TypeError(`${what}: method ${text} is forbidden`)
  return normalized
}

function freshState (url: URL): RequestState {
  return {
    method: 'GET',
    urlList: [url],
    headers: new Headers(),
    body: null,
    cache: 'default',
    credentials: 'same-origin',
    mode: 'cors',
    redirect: 'follow',
    integrity: '',
    keepalive: false,
    referrer: 'client',
    referrerPolicy: '',
    signal: null,
    dispatcher: undefined
  }
}

/** A Request made by the runtime's own Fetch implementation (accepted as input). */
interface ForeignRequest {
  url: string, method: string, headers: Iterable<[string, string]>, body: ReadableStream<Uint8Array> | null,
  bodyUsed: boolean, cache: string, credentials: string, mode: string, redirect: string,
  integrity: string, keepalive: boolean, referrer: string, referrerPolicy: string, signal: AbortSignal
}

/** True for a Request made by the runtime's global class. */
export function isForeignRequest (value: unknown): value is ForeignRequest {
  return typeof value === 'object' && value !== null &&
    Object.prototype.toString.call(value) === '[object Request]' &&
    typeof (value as ForeignRequest).url === 'string' && typeof (value as ForeignRequest).method === 'string'
}

function fromForeign (input: ForeignRequest, what: string): RequestState {
  const state = freshState(parseRequestUrl(input.url, what))
  state.method = input.method
  state.headers = new Headers(input.headers)
  state.cache = input.cache as RequestCache
  state.credentials = input.credentials as RequestCredentials
  state.mode = input.mode as RequestMode
  state.redirect = input.redirect as RequestRedirect
  state.integrity = input.integrity
  state.keepalive = input.keepalive
  state.referrerPolicy = input.referrerPolicy as ReferrerPolicy
  state.referrer = input.referrer === 'about:client' || input.referrer === '' ? (input.referrer === '' ? 'no-referrer' : 'client') : new URL(input.referrer)
  state.signal = input.signal
  if (input.body !== null) {
    if (input.bodyUsed || input.body.locked) throw new TypeError(`${what}: the Request body has already been consumed`)
    state.body = markForeignBody({ source: { kind: 'stream', data: input.body }, length: null, type: null }, input)
  }
  return state
}

function copyState (input: RequestState): RequestState {
  return { ...input, urlList: [...input.urlList], headers: new Headers(input.headers), body: input.body === null ? null : { ...input.body } }
}

/**
 * Builds the state of a request from `input` and `init`, validating every field.
 * `inputState` and `inputHost` recognise this library's Requests; they are passed in because
 * request.ts imports this module, and importing it back would make a cycle.
 */
export function buildRequestState (
  input: unknown,
  init: RequestInit | undefined,
  what: string,
  inputState: ((value: unknown) => RequestState | null),
  inputHost: ((value: unknown) => BodyMixin | null)
): RequestState {
  // A string (the usual input) can be neither kind of Request, so those checks are skipped.
  const own = typeof input === 'string' ? null : inputState(input)
  let state: RequestState
  let fromRequest = true
  if (own !== null) {
    state = copyState(own)
  } else if (typeof input !== 'string' && isForeignRequest(input)) {
    state = fromForeign(input, what)
  } else {
    state = freshState(parseRequestUrl(typeof input === 'string' ? input : String(input), what))
    fromRequest = false
  }
  const inputBody = state.body
  if (init === undefined || init === null) {
    takeInputBody(input, inputHost, inputBody, what)
    return state
  }
  if (typeof init !== 'object') throw new TypeError(`${what}: init must be an object, got ${describeValue(init)}`)

  // Each member is read once, as a WebIDL dictionary is: a getter on `init` runs once.
  const windowMember = init.window
  if (windowMember !== undefined && windowMember !== null) throw new TypeError(`${what}: window must be null, got ${describeValue(windowMember)}`)
  // Fetch Standard, Request constructor: a non-empty init starts a new request from the input's
  // current URL. A request made from a URL is in that starting state already.
  if (fromRequest && hasDefinedMember(init)) {
    if (state.mode === 'navigate') state.mode = 'same-origin'
    state.referrer = 'client'
    state.referrerPolicy = ''
    state.urlList = [state.urlList[state.urlList.length - 1]!]
  }
  const initReferrer = init.referrer
  if (initReferrer !== undefined) {
    const referrer = String(initReferrer)
    if (referrer === '') state.referrer = 'no-referrer'
    else {
      let parsed: URL
      try {
        parsed = new URL(referrer, getGlobalOrigin())
      } catch {
        // The parser's error keeps the whole input (a password included): it is not passed on as the cause.
        throw new TypeError(`${what}: referrer is not a valid URL: ${redactUserinfo(referrer)}`)
      }
      // 'about:client' may also be written with an authority ('about://client'): both mean the client.
      const isClient = parsed.protocol === 'about:' && (parsed.pathname === 'client' || (parsed.hostname === 'client' && parsed.pathname === ''))
      state.referrer = isClient ? 'client' : parsed
    }
  }
  const referrerPolicyMember = init.referrerPolicy
  if (referrerPolicyMember !== undefined) state.referrerPolicy = checkEnum(referrerPolicyMember, REFERRER_POLICY, 'referrerPolicy', what)
  const modeMember = init.mode
  if (modeMember !== undefined) {
    const mode = checkEnum(modeMember, REQUEST_MODE, 'mode', what)
    if (mode === 'navigate') throw new TypeError(`${what}: mode 'navigate' cannot be set from script`)
    state.mode = mode
  }
  const credentialsMember = init.credentials
  if (credentialsMember !== undefined) state.credentials = checkEnum(credentialsMember, REQUEST_CREDENTIALS, 'credentials', what)
  const cacheMember = init.cache
  if (cacheMember !== undefined) state.cache = checkEnum(cacheMember, REQUEST_CACHE, 'cache', what)
  if (state.cache === 'only-if-cached' && state.mode !== 'same-origin') {
    throw new TypeError(`${what}: cache 'only-if-cached' requires mode 'same-origin', got mode '${state.mode}'`)
  }
  const redirectMember = init.redirect
  if (redirectMember !== undefined) state.redirect = checkEnum(redirectMember, REQUEST_REDIRECT, 'redirect', what)
  const integrity = init.integrity
  if (integrity !== undefined) state.integrity = String(integrity)
  const keepalive = init.keepalive
  if (keepalive !== undefined) state.keepalive = Boolean(keepalive)
  const method = init.method
  if (method !== undefined) state.method = normalizeMethod(method, what)
  const signal = init.signal
  if (signal !== undefined) {
    if (signal !== null && !(signal instanceof AbortSignal)) {
      throw new TypeError(`${what}: signal must be an AbortSignal or null, got ${describeValue(signal)}`)
    }
    state.signal = signal
  }
  const duplex = init.duplex
  if (duplex !== undefined) checkEnum(duplex, REQUEST_DUPLEX, 'duplex', what)
  const priority = init.priority
  if (priority !== undefined) checkEnum(priority, REQUEST_PRIORITY, 'priority', what)
  const dispatcher = init.dispatcher
  if (dispatcher !== undefined) {
    const candidate = dispatcher as { dispatch?: unknown } | null
    if (candidate === null || typeof candidate !== 'object' || typeof candidate.dispatch !== 'function') {
      throw new TypeError(`${what}: dispatcher must be a Dispatcher, got ${describeValue(candidate)}`)
    }
    state.dispatcher = dispatcher
  }
  const headers = init.headers
  if (headers !== undefined) state.headers = new Headers(headers)
  if (state.mode === 'no-cors' && !CORS_SAFE_METHODS.has(state.method)) {
    throw new TypeError(`${what}: method ${state.method} is not allowed in 'no-cors' mode`)
  }

  const initBody = init.body
  const hasInitBody = initBody !== undefined && initBody !== null
  if ((hasInitBody || inputBody !== null) && (state.method === 'GET' || state.method === 'HEAD')) {
    throw new TypeError(`${what}: a ${state.method} request cannot have a body`)
  }
  let body = inputBody
  if (hasInitBody) {
    body = extractBody(initBody, what)
    if (state.keepalive && isStreamSource(body.source)) throw new TypeError(`${what}: keepalive cannot be used with a streaming body`)
    if (body.type !== null && headersInternals.lookup(state.headers, 'content-type') === null) {
      state.headers.append('content-type', body.type)
    }
    if (isStreamSource(body.source) && duplex === undefined) {
      throw new TypeError(`${what}: duplex: 'half' is required when the body is a stream`)
    }
  } else {
    takeInputBody(input, inputHost, inputBody, what)
  }
  state.body = body
  return state
}

function hasDefinedMember (init: object): boolean {
  for (const key in init) {
    if (Object.hasOwn(init, key) && (init as Record<string, unknown>)[key] !== undefined) return true
  }
  return false
}

// A Request built from another Request (or sent by fetch) moves the body out of the input.
function takeInputBody (input: unknown, inputHost: (value: unknown) => BodyMixin | null, inputBody: ExtractedBody | null, what: string): void {
  if (inputBody === null) return
  const host = inputHost(input)
  if (host === null) return
  const source = bodyInternals.take(host, what)
  if (source !== null) inputBody.source = source
}
