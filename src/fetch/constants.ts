/**
 * The Fetch Standard's enumerations, status sets and header lists, in one place.
 * Every other fetch module reads these instead of repeating a literal.
 * @module
 */

/** Allowed values of `RequestInit.cache`. */
export const REQUEST_CACHE = ['default', 'no-store', 'reload', 'no-cache', 'force-cache', 'only-if-cached'] as const
/** Allowed values of `RequestInit.credentials`. */
export const REQUEST_CREDENTIALS = ['omit', 'same-origin', 'include'] as const
/** Allowed values of `RequestInit.mode`. */
export const REQUEST_MODE = ['navigate', 'same-origin', 'no-cors', 'cors'] as const
/** Allowed values of `RequestInit.redirect`. */
export const REQUEST_REDIRECT = ['follow', 'error', 'manual'] as const
/** Allowed values of `RequestInit.duplex`. */
export const REQUEST_DUPLEX = ['half'] as const
/** Allowed values of `RequestInit.referrerPolicy`. */
export const REFERRER_POLICY = [
  '', 'no-referrer', 'no-referrer-when-downgrade', 'same-origin', 'origin', 'strict-origin',
  'origin-when-cross-origin', 'strict-origin-when-cross-origin', 'unsafe-url'
] as const

/** `RequestInit.cache` value. */
export type RequestCache = typeof REQUEST_CACHE[number]
/** `RequestInit.credentials` value. */
export type RequestCredentials = typeof REQUEST_CREDENTIALS[number]
/** `RequestInit.mode` value. */
export type RequestMode = typeof REQUEST_MODE[number]
/** `RequestInit.redirect` value. */
export type RequestRedirect = typeof REQUEST_REDIRECT[number]
/** `RequestInit.duplex` value. */
export type RequestDuplex = typeof REQUEST_DUPLEX[number]
/** `RequestInit.referrerPolicy` value. */
export type ReferrerPolicy = typeof REFERRER_POLICY[number]
/** `Response.type` value. */
export type ResponseType = 'basic' | 'cors' | 'default' | 'error' | 'opaque' | 'opaqueredirect'

/** The referrer policy applied when a request names none (Fetch / Referrer Policy default). */
export const DEFAULT_REFERRER_POLICY: ReferrerPolicy = 'strict-origin-when-cross-origin'

/** Statuses that are redirects in the Fetch sense. */
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308])
/** Statuses whose responses carry no body. */
export const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 103, 204, 205, 304])
/** Most redirects one fetch follows before failing (Fetch Standard, HTTP-redirect fetch step 7). */
export const MAX_REDIRECTS = 20

/** Methods the standard upper-cases when given in any case. */
export const NORMALIZED_METHODS: ReadonlyMap<string, string> = new Map(
  ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH'].map((m) => [m.toLowerCase(), m])
)
/** Methods a Request may not use. */
export const FORBIDDEN_METHODS: ReadonlySet<string> = new Set(['CONNECT', 'TRACE', 'TRACK'])
/** Methods allowed in `no-cors` mode. */
export const CORS_SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST'])

/** Request headers removed when a redirect turns the request into a bodiless GET. */
export const REQUEST_BODY_HEADERS = ['content-encoding', 'content-language', 'content-location', 'content-type', 'content-length'] as const
/** Request headers that carry credentials; removed on a cross-origin redirect. */
export const CROSS_ORIGIN_STRIPPED_HEADERS = ['authorization', 'cookie', 'proxy-authorization'] as const
/** Conditional request headers; with cache mode `default` they turn the request into `no-store`. */
export const CONDITIONAL_HEADERS = ['if-modified-since', 'if-none-match', 'if-unmodified-since', 'if-match', 'if-range'] as const

/** Most content codings applied to one response that fetch will undo. */
export const MAX_CONTENT_CODINGS = 5

/** Property that marks dispatch options as coming from fetch; shared with the transport and interceptors. */
export const FETCH_MARKER: unique symbol = Symbol.for('conduit.fetch')

/** Dispatch option the cache interceptor reads for the request's cache mode. */
export const CACHE_MODE_OPTION = 'cacheMode'

/** Bytes buffered from the network before the response body pauses the connection while nobody reads. */
export const BODY_HIGH_WATER_MARK = 65536
