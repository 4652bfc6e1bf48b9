/**
 * The `interceptors` namespace: one factory per interceptor, each returning an {@link Interceptor}
 * for `dispatcher.compose()`.
 * @module
 */

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
export type { DnsInterceptorOptions, DnsLookup, DnsPick, DnsRecord, DnsOriginRecords, DnsFamilyRecords, DnsStorage } from './dns/index.js'
export { deduplicate } from './deduplicate/index.js'
export type { DeduplicateInterceptorOptions } from './deduplicate/index.js'
export { cookies } from './cookies/index.js'
export type { CookiesInterceptor, CookiesInterceptorOptions, CookieJarLike, CookieStoreLike, GetCookieOptions, SetCookieOptions, SameSiteContext, BoundedCookieStoreOptions } from './cookies/index.js'
export { deadline } from './deadline/index.js'
export type { DeadlineInterceptorOptions } from './deadline/index.js'
export { circuitBreaker } from './circuit-breaker/index.js'
export type { CircuitBreakerOptions, CircuitState, CircuitStateChange } from './circuit-breaker/index.js'
