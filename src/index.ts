/**
 * conduit: an HTTP/1.1 client toolkit. A minimal core {@link Agent} speaks HTTP over its own
 * transport; caching, retry, proxies, snapshots and debug logging are interceptors composed onto it.
 * Every public name is exported from here.
 * @module conduit
 */

// --- dispatch contract -------------------------------------------------------------------
export { Dispatcher, ComposedDispatcher } from './dispatcher/dispatcher.js'
export { Dispatcher1Wrapper } from './dispatcher/dispatcher1-wrapper.js'
export type { CloseCallback } from './dispatcher/dispatcher.js'
export { DecoratorHandler, DualShapeHandler, SimpleController, failDispatch } from './handler.js'
export type {
  Dispatch,
  DispatchBody,
  DispatchController,
  DispatchHandler,
  DispatchOptions,
  IncomingHeaders,
  Interceptor,
  DispatchLifecycle,
  DispatchTarget,
  LegacyDispatchHandler,
  OutgoingHeaders,
  AbortSignalLike,
  HttpMethod,
  FormDataBody,
  HookHeaders
} from './handler.js'
export { ForwardingController } from './handlers/forwarding-controller.js'
export type { ForwardingControllerOptions } from './handlers/forwarding-controller.js'
export { normalizeHeaders } from './handlers/request-headers.js'

// --- helpers for raw header lists (undici's `util`) ---------------------------------------
export * as util from './util/index.js'

// --- errors ------------------------------------------------------------------------------
export * as errors from './errors.js'
export { LibraryError } from './errors.js'
export { setErrorCodeStyle, errorCodeStyle } from './set-error-code-style.js'
export type { ErrorCodeStyle } from './set-error-code-style.js'
export { LIBRARY_ERROR_CODES, UNDICI_ERROR_CODES } from './error-codes.js'
export type { LibraryErrorCode, LibraryErrorName, UndiciErrorCode, ErrorCodeOf } from './error-codes.js'

// --- request API -------------------------------------------------------------------------
export { BodyReadable, DEFAULT_DUMP_LIMIT, DEFAULT_BODY_HIGH_WATER_MARK } from './api/body-readable.js'
export type { BodySource } from './api/body-readable.js'
export type { RequestOptions, ResponseData, RequestCallback, DispatchOptionsWithoutSignal } from './api/request.js'
export type { RequestTimings, TimingPhases } from './handler.js'
export type { TransferProgressEvent, TransferProgressCallback, TransferProgressOptions } from './api/transfer-progress.js'
export { PROGRESS_INTERVAL_MS } from './api/transfer-progress.js'
export type { StreamOptions, StreamFactory, StreamFactoryData, StreamData, StreamCallback } from './api/stream.js'
export type { PipelineOptions, PipelineHandlerData, PipelineHandlerFunction } from './api/pipeline.js'
export type { ApiSignal, EventEmitterSignal } from './api/abort-signal.js'

// --- transport (Client, Pool, Agent), global dispatcher, diagnostics ------------------------
export { Client } from './dispatcher/client.js'
export { H2CClient } from './dispatcher/h2c-client.js'
export type { H2CClientOptions } from './dispatcher/h2c-client.js'
export type { ClientOptions, H2Options } from './dispatcher/client-options.js'
export { Pool } from './dispatcher/pool.js'
export type { PoolOptions, PoolFactory } from './dispatcher/pool.js'
export { BalancedPool } from './dispatcher/balanced-pool.js'
export type { BalancedPoolOptions, BalancedPoolFactory } from './dispatcher/balanced-pool.js'
export { RoundRobinPool } from './dispatcher/round-robin-pool.js'
export type { RoundRobinPoolOptions } from './dispatcher/round-robin-pool.js'
export { Agent } from './dispatcher/agent.js'
export type { ClientStats, PoolStats } from './dispatcher/stats.js'
export type { AgentOptions, AgentFactory } from './dispatcher/agent.js'
export { buildConnector } from './connect.js'
export type { BuildOptions, Connector, ConnectOptions, ConnectCallback } from './connect.js'
export { setGlobalDispatcher, getGlobalDispatcher } from './global.js'
export { request, stream, pipeline, upgrade, connect } from './top-level.js'
export type { TopLevelRequestOptions, TopLevelExtras, UrlLike } from './top-level.js'
export type { UpgradeOptions, UpgradeData, UpgradeCallback } from './api/upgrade.js'
export { channels as diagnosticsChannels, undiciChannels } from './diagnostics.js'
export type { ConnectParams, DiagnosticsRequest } from './diagnostics.js'
export type { DiagnosticsChannel } from './diagnostics-messages.js'
export { setUndiciChannels } from './observability/undici-channels.js'
export type { UndiciRequestView, UndiciResponseView } from './observability/undici-request-view.js'
export { httpClientMetrics } from './observability/http-client-metrics.js'
export type { HttpClientMetrics, HttpClientMetricsOptions } from './observability/http-client-metrics.js'
export type { HistogramLike, InstrumentOptionsLike, MeterLike, MeterProviderLike, MetricAttributes, UpDownCounterLike } from './observability/otel-meter.js'

// --- interceptors and stores ----------------------------------------------------------------
export * as interceptors from '../interceptors/index.js'
export { RetryHandler } from '../interceptors/retry/index.js'
export { RedirectHandler } from '../interceptors/redirect/index.js'
export { BoundedCookieStore } from '../interceptors/cookies/index.js'
export type { BoundedCookieStoreOptions, StoredCookie, CookieStoreCallback } from '../interceptors/cookies/index.js'
export type {
  RetryOptions,
  ResolvedRetryOptions,
  RetryCallback,
  RetryContext,
  RetryState,
  RetryHandlers,
  RetryEvent,
  RetryHandlerOptions,
  RetryDispatchContext
} from '../interceptors/retry/index.js'
export * as cacheStores from '../stores/index.js'
export type { CacheKey, CacheValue, GetResult, CacheStore, CacheControlDirectives } from './contracts/cache-store.js'
export type { CacheInterceptorOptions, CacheMode } from '../interceptors/cache/index.js'
export type { MemoryCacheStoreOptions, MaxSizeExceededInfo } from '../stores/memory-cache-store.js'
export type { SqliteCacheStoreOptions, SqliteStoreValue, SqliteDriverName } from '../stores/sqlite-cache-store.js'

// --- fetch ---------------------------------------------------------------------------------
export { fetch } from './fetch/fetch.js'
export { Request } from './fetch/request.js'
export type { RequestInfo } from './fetch/request.js'
export type { RequestInit } from './fetch/request-state.js'
export { Response } from './fetch/response.js'
export type { ResponseInit } from './fetch/response.js'
export { Headers } from './fetch/headers.js'
export type { HeadersInit } from './fetch/headers.js'
export type { SpecIterable, SpecIterableIterator, SpecIterator, SpecIteratorObject } from './fetch/spec-iterator.js'
export { FormData } from './fetch/form-data.js'
export type { FormDataEntryValue } from './fetch/form-data.js'
export { File } from './fetch/file.js'
export { setGlobalOrigin, getGlobalOrigin } from './fetch/global-origin.js'
export { parseMIMEType, serializeAMimeType } from './fetch/mime-api.js'
export type { MIMEType } from './fetch/mime-api.js'
export { install } from './install.js'
export type { BodyInit } from './fetch/body.js'
export { getCookies, getSetCookies, setCookie, deleteCookie, parseCookie } from './cookies/index.js'
export type { Cookie, DeleteCookieAttributes, HeadersLike } from './cookies/index.js'
export { caches } from './cache-api/cache-storage.js'
export type { CacheStorage } from './cache-api/cache-storage.js'
export type { Cache } from './cache-api/cache.js'
export type { CacheQueryOptions, MultiCacheQueryOptions } from './cache-api/entries.js'
export type {
  ReferrerPolicy, RequestCache, RequestCredentials, RequestDestination, RequestDuplex, RequestMode, RequestPriority, RequestRedirect, ResponseRedirectStatus, ResponseType
} from './fetch/constants.js'

// --- WebSocket ------------------------------------------------------------------------------
export { WebSocket, ping } from './websocket/websocket.js'
export type { BinaryType, WebSocketSendData } from './websocket/websocket.js'
export type { WebSocketInit } from './websocket/websocket-options.js'
export { WebSocketStream } from './websocket/websocket-stream.js'
export type { WebSocketStreamOptions, WebSocketOpenInfo } from './websocket/websocket-stream.js'
export { WebSocketError } from './websocket/websocket-error.js'
export type { WebSocketCloseInfo } from './websocket/websocket-error.js'
export { MessageEvent, CloseEvent, ErrorEvent } from './websocket/dom-events.js'
export type { MessageEventInit, CloseEventInit, ErrorEventInit, WebSocketEventMap, EventSourceEventMap } from './websocket/dom-events.js'
export type { EventInit, BufferSource } from './websocket/dom-types.js'

// --- mock and snapshots --------------------------------------------------------------------
export { MockAgent } from './mock/mock-agent.js'
export type { MockAgentOptions, MockOrigin, Interceptable } from './mock/mock-agent.js'
export { MockPool } from './mock/mock-pool.js'
export { MockClient } from './mock/mock-client.js'
export type { MockPoolOptions } from './mock/mock-dispatcher.js'
export { MockInterceptor } from './mock/mock-interceptor.js'
export type { MockInterceptOptions, MockReplyOptions, MockReplyHeaders, MockReplyCallbackResult, MockReplyData, MockReplyDataCallback, ReplyCallback } from './mock/mock-interceptor.js'
export { MockScope } from './mock/mock-scope.js'
export type { MockRequestOptions } from './mock/mock-scope.js'
export { MockCallHistory, MockCallHistoryLog } from './mock/mock-call-history.js'
export type { FilterCallsObjectCriteria, FilterCallsOptions, FilterCallsParameter, MockCallHistoryFilterField, MockCallHistoryLogProperty } from './mock/mock-call-history.js'
export type { Matcher, HeadersMatcher } from './mock/mock-matching.js'
export { PendingInterceptorsFormatter } from './mock/pending-table.js'
export type { PendingInterceptor, PendingReplyData } from './mock/pending-table.js'
export * as mockErrors from './mock/mock-errors.js'
export type { SnapshotInfo, SnapshotMode, SnapshotOptions, SnapshotInterceptor, SnapshotInterceptorOptions, StaleSnapshotAction } from '../interceptors/snapshot/index.js'
// The recorder is internal (reached through getRecorder() or snapshot().recorder): its type is public, the class is not.
export type { SnapshotRecorder, ResolvedSnapshotOptions, ClosestSnapshot, CapturedResponse, SnapshotMatch } from '../interceptors/snapshot/index.js'
export type { SnapshotRecord, SnapshotEntry, SnapshotRequest, SnapshotResponse, SnapshotHeaders } from '../stores/snapshot-file-store.js'

// --- presets ---------------------------------------------------------------------------------
export { RetryAgent } from '../presets/retry-agent.js'
export { ProxyAgent } from '../presets/proxy-agent.js'
export type { ProxyAgentOptions } from '../presets/proxy-agent.js'
export { EnvHttpProxyAgent } from '../presets/env-http-proxy-agent.js'
export type { EnvHttpProxyAgentOptions } from '../presets/env-http-proxy-agent.js'
export { Socks5ProxyAgent } from '../presets/socks5-proxy-agent.js'
export type { Socks5ProxyAgentOptions } from '../presets/socks5-proxy-agent.js'
export type { ProxyOptions, ProxyTlsOptions, ProxyClientFactory, ProxyEnvOptions, ProxyConnectedMessage, ProxyConnectParams } from '../interceptors/proxy/index.js'
export { SnapshotAgent } from '../presets/snapshot-agent.js'
export type { SnapshotAgentOptions } from '../presets/snapshot-agent.js'
export { withSnapshot, snapshotHooks } from '../presets/snapshot-testing.js'
export type { TestSnapshotOptions, TestFileOptions, NodeTestContextLike, VitestContextLike, ExpectLike, TestHooksLike, SnapshotHooks } from '../presets/snapshot-testing.js'

// --- server-sent events ----------------------------------------------------------------------
export { EventSource } from './eventsource/event-source.js'
export type { EventSourceInit, EventSourceHandler } from './eventsource/event-source.js'

// --- resilience ------------------------------------------------------------------------------
export type { DeadlineInterceptorOptions } from '../interceptors/deadline/index.js'
export type { DeadlinePhase } from './errors.js'
export type { CircuitBreakerOptions, CircuitState, CircuitStateChange } from '../interceptors/circuit-breaker/index.js'
export type { RetryBudget, RetryBudgetOptions, ResolvedRetryBudget, IdempotencyKeyFactory } from '../interceptors/retry/index.js'
export type { RateLimitOptions } from '../interceptors/rate-limit/index.js'
export type { HedgeOptions, HedgeBudgetOptions } from '../interceptors/hedge/index.js'
