/**
 * The `interceptors` namespace: one factory per interceptor, each returning an {@link Interceptor}
 * for `dispatcher.compose()`.
 * @module
 */

import type { RetryOptions } from './retry/index.js'
import type { CacheInterceptorOptions } from './cache/index.js'
import type { RedirectInterceptorOptions } from './redirect/index.js'
import type { DecompressInterceptorOptions } from './decompress/index.js'
import type { DumpInterceptorOptions } from './dump.js'
import type { ResponseErrorInterceptorOptions } from './response-error.js'
import type { DnsInterceptorOptions, DnsRecord, DnsOriginRecords, DnsStorage } from './dns/index.js'
import type { DeduplicateInterceptorOptions } from './deduplicate/index.js'

export type { Interceptor } from '../src/handler.js'
export { retry } from './retry/index.js'
export { debug } from './debug.js'
export type { DebugInterceptorOptions } from './debug.js'
export { proxy } from './proxy/index.js'
export type { ProxyInterceptor, ProxyInterceptorOptions } from './proxy/index.js'
export { cache } from './cache/index.js'
export type { CacheInterceptorOptions, CacheMode } from './cache/index.js'
export { snapshot } from './snapshot/index.js'
export { redirect } from './redirect/index.js'
export type { RedirectInterceptorOptions } from './redirect/index.js'
export { decompress } from './decompress/index.js'
export type { DecompressInterceptorOptions } from './decompress/index.js'
export { dump } from './dump.js'
export type { DumpInterceptorOptions } from './dump.js'
export { responseError } from './response-error.js'
export type { ResponseErrorInterceptorOptions } from './response-error.js'
export { dns } from './dns/index.js'
export type { DnsInterceptorOptions, DnsLookup, DnsPick, DnsRequestOverrides, DnsRecord, DnsOriginRecords, DnsFamilyRecords, DnsStorage } from './dns/index.js'
export { deduplicate } from './deduplicate/index.js'
export type { DeduplicateInterceptorOptions } from './deduplicate/index.js'
export { cookies } from './cookies/index.js'
export type { CookiesInterceptor, CookiesInterceptorOptions, CookieJarLike, CookieStoreLike, GetCookieOptions, SetCookieOptions, SameSiteContext, BoundedCookieStoreOptions } from './cookies/index.js'

// --- undici's names for the option types (`interceptors.RetryInterceptorOpts`) ------------------
/** undici's name for {@link RetryOptions}. */
export type RetryInterceptorOpts = RetryOptions
/** undici's name for {@link CacheInterceptorOptions}. */
export type CacheInterceptorOpts = CacheInterceptorOptions
/** undici's name for {@link RedirectInterceptorOptions}. */
export type RedirectInterceptorOpts = RedirectInterceptorOptions
/** undici's name for {@link DecompressInterceptorOptions}. */
export type DecompressInterceptorOpts = DecompressInterceptorOptions
/** undici's name for {@link DumpInterceptorOptions}. */
export type DumpInterceptorOpts = DumpInterceptorOptions
/** undici's name for {@link ResponseErrorInterceptorOptions}. */
export type ResponseErrorInterceptorOpts = ResponseErrorInterceptorOptions
/** undici's name for {@link DnsInterceptorOptions}. */
export type DNSInterceptorOpts = DnsInterceptorOptions
/** undici's name for {@link DnsRecord}. */
export type DNSInterceptorRecord = DnsRecord
/** undici's name for {@link DnsOriginRecords}. */
export type DNSInterceptorOriginRecords = DnsOriginRecords
/** undici's name for {@link DnsStorage}. */
export type DNSStorage = DnsStorage
/** undici's name for {@link DeduplicateInterceptorOptions}. */
export type DeduplicateInterceptorOpts = DeduplicateInterceptorOptions
/** The methods `deduplicate()` may share a response for. */
export type DeduplicateMethods = 'GET' | 'HEAD' | 'OPTIONS' | 'TRACE'
export { deadline } from './deadline/index.js'
export type { DeadlineInterceptorOptions } from './deadline/index.js'
export { circuitBreaker } from './circuit-breaker/index.js'
export type { CircuitBreakerOptions, CircuitState, CircuitStateChange } from './circuit-breaker/index.js'
export { rateLimit } from './rate-limit/index.js'
export type { RateLimitOptions } from './rate-limit/index.js'
export { hedge } from './hedge/index.js'
export type { HedgeOptions, HedgeBudgetOptions } from './hedge/index.js'
