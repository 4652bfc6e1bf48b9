/**
 * The public face of the core for interceptor and store authors, in one import: the dispatch
 * contract (hook and option types), {@link DecoratorHandler} (the forwarding base every
 * interceptor handler extends), the controllers, {@link SimpleController} and
 * {@link failDispatch}, the cache store contract, the library's errors, and the pieces of the
 * core an interceptor builds on (routes and pools for tunnels, the response player, the shared
 * redirect rules, body decoders, request-header reading, credential masking).
 *
 * Interceptors and stores import `src/` only through this file (the architecture test holds
 * them to it), and nothing in the core imports it: it sits on top of the core, so what it
 * re-exports never reaches back to it.
 * @module
 */

// --- the dispatch contract and the handler helpers -------------------------------------------
export type {
  IncomingHeaders,
  OutgoingHeaders,
  DispatchBody,
  DispatchOptions,
  AbortSignalLike,
  DispatchController,
  DispatchHandler,
  LegacyDispatchHandler,
  Dispatch,
  Interceptor,
  DispatchLifecycle,
  DispatchTarget,
  HttpMethod,
  FormDataBody,
  HookHeaders
} from './contracts/dispatch-contract.js'
export type { RequestTimings, TimingPhases } from './contracts/request-timings.js'
export { SimpleController } from './handlers/simple-controller.js'
export { DecoratorHandler } from './handlers/decorator-handler.js'
export { DualShapeHandler } from './handlers/dual-shape-handler.js'
export { failDispatch } from './handlers/fail-dispatch.js'
export { isLegacyHandler, toRawHeaders, toDispatchHandler, LegacyHandlerAdapter } from './handlers/legacy-handler.js'
export { ForwardingController } from './handlers/forwarding-controller.js'
export { AttemptSpanningHandler, InterposedControllerHandler } from './handlers/interposed-controller.js'
export { normalizeHeaders } from './handlers/request-headers.js'

// --- the store contract and the errors -------------------------------------------------------
export { PARTIAL_METHOD } from './contracts/cache-store.js'
export type { CacheControlDirectives, CacheKey, CacheStore, CacheValue, GetResult } from './contracts/cache-store.js'
export * from './errors.js'
export { LIBRARY_ERROR_CODES, UNDICI_ERROR_CODES } from './error-codes.js'

// --- dispatchers, routes and connections (tunnels open their own) ----------------------------
export type { Dispatcher } from './dispatcher/dispatcher.js'
export type { AgentOptions } from './dispatcher/agent.js'
export { Pool } from './dispatcher/pool.js'
export type { CarriesRoute, DirectConnection, DispatchRoute } from './dispatcher/route.js'
export { buildConnector } from './connect.js'
export type { BuildOptions, ConnectCallback, ConnectOptions, Connector } from './connect.js'

// --- responses no connection produced, and request bodies as they are recorded ---------------
export { ResponsePlayer, statusText } from './replay/response-player.js'
export type { PlayedResponse } from './replay/response-player.js'
export { collectBody, isBufferedBody } from './replay/request-body.js'
export { serializePathWithQuery } from './replay/path-with-query.js'

// --- rules the core and the interceptors share -----------------------------------------------
export { CROSS_ORIGIN_STRIPPED_HEADERS, FOLLOWED_REDIRECTS, REDIRECTED_FROM, REDIRECT_STATUSES, headersDroppedByRedirect, redirectLocation, redirectedFrom, redirectsToGet, withRedirectedFrom } from './redirect/rules.js'
export type { FollowedRedirect } from './redirect/rules.js'
export { ACCEPT_ENCODING, BodyDecoder } from './content-coding/body-decoder.js'
export { FETCH_USER_AGENT } from './fetch/dispatch-options.js'
export { INVALID_VALUE_RE, TOKEN_RE, trimOws } from './connection/field-syntax.js'

// --- observability and how values are shown in messages ---------------------------------------
export { channels, interceptorChannels, undiciChannels } from './diagnostics.js'
export { activeUndiciChannel } from './observability/undici-channels.js'
export { CORE_NAMESPACE, lines, requestUrl } from './observability/debug-log.js'
export { REDACTED, SENSITIVE_HEADERS, describeUrl, hrefWithoutCredentials, isCredentialHeader, isSecretQueryParameter, redactHeaders, redactUserinfo, sensitiveHeaderNames, showHeaderValue, showOrigin, showRequest, showUrl } from './observability/redaction.js'
export type { CarriesSensitiveHeaders, ShownRequest } from './observability/redaction.js'
export { maxResponseSizeOf } from './connection/connection-config.js'
export { describeValue, describeValueKind, describeValueWithItems } from './validation/describe-value.js'
export { STORE_OPTION_FAILURE, failOption } from './validation/options.js'
export type { OptionFailure, ShowValue } from './validation/options.js'
export { MAX_TIMER_MS } from './validation/timer-limit.js'
export { MAX_NAME_VALUE_LENGTH, storableSetCookie } from './cookies/parse-set-cookie.js'

// --- the runtime's own timers, for I/O, leases and deadlines a fake clock must not stall ------
export * as runtimeTimers from './runtime/timers.js'
export { copyOptions } from './runtime/copy-options.js'
