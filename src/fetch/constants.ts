/**
 * The Fetch Standard's enumerations, status sets and header lists, in one place.
 * Every other fetch module reads these instead of repeating a literal.
 * @module
 */

/** `RequestInit.cache` value. */
export type RequestCache = 'default' | 'no-store' | 'reload' | 'no-cache' | 'force-cache' | 'only-if-cached'
/** `RequestInit.credentials` value. */
export type RequestCredentials = 'omit' | 'same-origin' | 'include'
/** `RequestInit.mode` value. */
export type RequestMode = 'navigate' | 'same-origin' | 'no-cors' | 'cors'
/** `RequestInit.redirect` value. */
export type RequestRedirect = 'follow' | 'error' | 'manual'
/** `RequestInit.duplex` value. */
export type RequestDuplex = 'half'
/** What a request's body is for (`request.destination`); always `''` outside a browser. */
export type RequestDestination =
  | '' | 'audio' | 'audioworklet' | 'document' | 'embed' | 'font' | 'image' | 'manifest' | 'object'
  | 'paintworklet' | 'report' | 'script' | 'sharedworker' | 'style' | 'track' | 'video' | 'worker' | 'xslt'
/** The statuses `Response.redirect()` takes. */
export type ResponseRedirectStatus = 301 | 302 | 303 | 307 | 308
/** `RequestInit.priority` value: a hint to the fetch, without effect here but checked as the standard's enum. */
export type RequestPriority = 'high' | 'low' | 'auto'
/** `RequestInit.referrerPolicy` value. */
export type ReferrerPolicy =
  | '' | 'no-referrer' | 'no-referrer-when-downgrade' | 'same-origin' | 'origin' | 'strict-origin'
  | 'origin-when-cross-origin' | 'strict-origin-when-cross-origin' | 'unsafe-url'

// The lists validation walks; `satisfies Record<...>` makes the compiler reject a missing or extra value.
const cacheValues = { default: 0, 'no-store': 0, reload: 0, 'no-cache': 0, 'force-cache': 0, 'only-if-cached': 0 } satisfies Record<RequestCache, 0>
const credentialsValues = { omit: 0, 'same-origin': 0, include: 0 } satisfies Record<RequestCredentials, 0>
const modeValues = { navigate: 0, 'same-origin': 0, 'no-cors': 0, cors: 0 } satisfies Record<RequestMode, 0>
const redirectValues = { follow: 0, error: 0, manual: 0 } satisfies Record<RequestRedirect, 0>
const duplexValues = { half: 0 } satisfies Record<RequestDuplex, 0>
const priorityValues = { high: 0, low: 0, auto: 0 } satisfies Record<RequestPriority, 0>
const referrerPolicyValues = {
  '': 0, 'no-referrer': 0, 'no-referrer-when-downgrade': 0, 'same-origin': 0, origin: 0, 'strict-origin': 0,
  'origin-when-cross-origin': 0, 'strict-origin-when-cross-origin': 0, 'unsafe-url': 0
} satisfies Record<ReferrerPolicy, 0>

/** Allowed values of `RequestInit.cache`. */
export const REQUEST_CACHE = Object.keys(cacheValues) as readonly RequestCache[]
/** Allowed values of `RequestInit.credentials`. */
export const REQUEST_CREDENTIALS = Object.keys(credentialsValues) as readonly RequestCredentials[]
/** Allowed values of `RequestInit.mode`. */
export const REQUEST_MODE = Object.keys(modeValues) as readonly RequestMode[]
/** Allowed values of `RequestInit.redirect`. */
export const REQUEST_REDIRECT = Object.keys(redirectValues) as readonly RequestRedirect[]
/** Allowed values of `RequestInit.duplex`. */
export const REQUEST_DUPLEX = Object.keys(duplexValues) as readonly RequestDuplex[]
/** Allowed values of `RequestInit.priority`. */
export const REQUEST_PRIORITY = Object.keys(priorityValues) as readonly RequestPriority[]
/** Allowed values of `RequestInit.referrerPolicy`. */
export const REFERRER_POLICY = Object.keys(referrerPolicyValues) as readonly ReferrerPolicy[]
/** `Response.type` value. */
export type ResponseType = 'basic' | 'cors' | 'default' | 'error' | 'opaque' | 'opaqueredirect'

/** The referrer policy applied when a request names none (Fetch / Referrer Policy default). */
export const DEFAULT_REFERRER_POLICY: ReferrerPolicy = 'strict-origin-when-cross-origin'

/** Statuses whose responses carry no body. */
export const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 103, 204, 205, 304])
/** Most redirects one fetch follows before failing (Fetch Standard, HTTP-redirect fetch step 7). */
export const MAX_REDIRECTS = 20

/** Methods the standard upper-cases when given in any case (PATCH is not one of them). */
export const NORMALIZED_METHODS: ReadonlyMap<string, string> = new Map(
  ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT'].map((m) => [m.toLowerCase(), m])
)
/** Methods a Request may not use. */
export const FORBIDDEN_METHODS: ReadonlySet<string> = new Set(['CONNECT', 'TRACE', 'TRACK'])
/** Methods allowed in `no-cors` mode. */
export const CORS_SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST'])

/** Conditional request headers; with cache mode `default` they turn the request into `no-store`. */
export const CONDITIONAL_HEADERS = ['if-modified-since', 'if-none-match', 'if-unmodified-since', 'if-match', 'if-range'] as const

/** Dispatch option the cache interceptor reads for the request's cache mode. */
export const CACHE_MODE_OPTION = 'cacheMode'

/** Bytes buffered from the network before the response body pauses the connection while nobody reads. */
export const BODY_HIGH_WATER_MARK = 65536

/**
 * Ports the Fetch Standard blocks ("bad port"): fetching from them is a network error, so a
 * URL crafted to talk to a mail, FTP or IRC server is refused before any byte is sent.
 */
export const BAD_PORTS: ReadonlySet<number> = new Set([
  0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102,
  103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465,
  512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993,
  995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668,
  6669, 6679, 6697, 10080
])
