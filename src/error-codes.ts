/**
 * The one table of error codes: conduit's code of every error class, and undici's code for the
 * same error where undici has one. The error classes take their codes from here, so do the
 * declarations of their literal types, and the switch to undici's spelling reads the second table.
 * @module
 */

/** conduit's code of each error class, by class name. */
export const LIBRARY_ERROR_CODES = {
  /** conduit's code of `LibraryError`. */
  LibraryError: 'LIB_ERR',
  /** conduit's code of `InvalidArgumentError`. */
  InvalidArgumentError: 'LIB_ERR_INVALID_ARG',
  /** conduit's code of `InvalidReturnValueError`. */
  InvalidReturnValueError: 'LIB_ERR_INVALID_RETURN_VALUE',
  /** conduit's code of `ConnectTimeoutError`. */
  ConnectTimeoutError: 'LIB_ERR_CONNECT_TIMEOUT',
  /** conduit's code of `HeadersTimeoutError`. */
  HeadersTimeoutError: 'LIB_ERR_HEADERS_TIMEOUT',
  /** conduit's code of `HeadersOverflowError`. */
  HeadersOverflowError: 'LIB_ERR_HEADERS_OVERFLOW',
  /** conduit's code of `BodyTimeoutError`. */
  BodyTimeoutError: 'LIB_ERR_BODY_TIMEOUT',
  /** conduit's code of `SocketError`. */
  SocketError: 'LIB_ERR_SOCKET',
  /** conduit's code of `AbortError`. */
  AbortError: 'LIB_ERR_ABORT',
  /** conduit's code of `RequestAbortedError`. */
  RequestAbortedError: 'LIB_ERR_ABORTED',
  /** conduit's code of `ClientDestroyedError`. */
  ClientDestroyedError: 'LIB_ERR_DESTROYED',
  /** conduit's code of `ClientClosedError`. */
  ClientClosedError: 'LIB_ERR_CLOSED',
  /** conduit's code of `RequestContentLengthMismatchError`. */
  RequestContentLengthMismatchError: 'LIB_ERR_REQ_CONTENT_LENGTH_MISMATCH',
  /** conduit's code of `ResponseContentLengthMismatchError`. */
  ResponseContentLengthMismatchError: 'LIB_ERR_RES_CONTENT_LENGTH_MISMATCH',
  /** conduit's code of `ResponseExceededMaxSizeError`. */
  ResponseExceededMaxSizeError: 'LIB_ERR_RES_EXCEEDED_MAX_SIZE',
  /** conduit's code of `RequestRetryError`. */
  RequestRetryError: 'LIB_ERR_REQ_RETRY',
  /** conduit's code of `ResponseError`. */
  ResponseError: 'LIB_ERR_RESPONSE',
  /** conduit's code of `NotSupportedError`. */
  NotSupportedError: 'LIB_ERR_NOT_SUPPORTED',
  /** conduit's code of `InformationalError`. */
  InformationalError: 'LIB_ERR_INFO',
  /** conduit's code of `MaxOriginsReachedError`. */
  MaxOriginsReachedError: 'LIB_ERR_MAX_ORIGINS_REACHED',
  /** conduit's code of `BalancedPoolMissingUpstreamError`. */
  BalancedPoolMissingUpstreamError: 'LIB_ERR_BPL_MISSING_UPSTREAM',
  /** conduit's code of `HTTPParserError`. */
  HTTPParserError: 'LIB_ERR_HTTP_PARSER',
  /** conduit's code of `SecureProxyConnectionError`. */
  SecureProxyConnectionError: 'LIB_ERR_PRX_TLS',
  /** conduit's code of `ProxyConnectionError`. */
  ProxyConnectionError: 'LIB_ERR_PROXY_CONNECT',
  /** conduit's code of `Socks5ProxyError`. */
  Socks5ProxyError: 'LIB_ERR_SOCKS5',
  /** conduit's code of `MessageSizeExceededError`. */
  MessageSizeExceededError: 'LIB_ERR_WS_MESSAGE_SIZE_EXCEEDED',
  /** conduit's code of `MockNotMatchedError`. */
  MockNotMatchedError: 'LIB_MOCK_ERR_MOCK_NOT_MATCHED',
  /** conduit's code of `StoreTimeoutError`. */
  StoreTimeoutError: 'LIB_ERR_STORE_TIMEOUT',
  /** conduit's code of `SnapshotFileError`. */
  SnapshotFileError: 'LIB_ERR_SNAPSHOT_FILE',
  /** conduit's code of `SnapshotNotFoundError`. */
  SnapshotNotFoundError: 'LIB_ERR_SNAPSHOT_NOT_FOUND',
  /** conduit's code of `RedirectError`. */
  RedirectError: 'LIB_ERR_REDIRECT',
  /** conduit's code of `WebSocketHandshakeError`. */
  WebSocketHandshakeError: 'LIB_ERR_WEBSOCKET_HANDSHAKE',
  /** conduit's code of `WebSocketProtocolError`. */
  WebSocketProtocolError: 'LIB_ERR_WEBSOCKET_PROTOCOL',
  /** conduit's code of `MaxRedirectsError`. */
  MaxRedirectsError: 'LIB_ERR_REDIRECT_MAX',
  /** conduit's code of `DeadlineExceededError`. */
  DeadlineExceededError: 'LIB_ERR_DEADLINE_EXCEEDED',
  /** conduit's code of `CircuitOpenError`. */
  CircuitOpenError: 'LIB_ERR_CIRCUIT_OPEN',
  /** conduit's code of `RateLimitQueueFullError`. */
  RateLimitQueueFullError: 'LIB_ERR_RATE_LIMIT_QUEUE_FULL'
} as const

/** The name of an error class conduit raises. */
export type LibraryErrorName = keyof typeof LIBRARY_ERROR_CODES

/** A code conduit gives its errors (in its own style). */
export type LibraryErrorCode = typeof LIBRARY_ERROR_CODES[LibraryErrorName]

/**
 * undici's code for the same error, for the classes undici has. An `HTTPParserError` keeps
 * conduit's code in either style: undici's are llhttp's (`HPE_*`), which conduit's parser does not
 * produce; conduit's own errors (stores, snapshots, WebSocket, redirect loops) have no undici code.
 */
export const UNDICI_ERROR_CODES = {
  /** undici's code of `LibraryError`. */
  LibraryError: 'UND_ERR',
  /** undici's code of `InvalidArgumentError`. */
  InvalidArgumentError: 'UND_ERR_INVALID_ARG',
  /** undici's code of `InvalidReturnValueError`. */
  InvalidReturnValueError: 'UND_ERR_INVALID_RETURN_VALUE',
  /** undici's code of `ConnectTimeoutError`. */
  ConnectTimeoutError: 'UND_ERR_CONNECT_TIMEOUT',
  /** undici's code of `HeadersTimeoutError`. */
  HeadersTimeoutError: 'UND_ERR_HEADERS_TIMEOUT',
  /** undici's code of `HeadersOverflowError`. */
  HeadersOverflowError: 'UND_ERR_HEADERS_OVERFLOW',
  /** undici's code of `BodyTimeoutError`. */
  BodyTimeoutError: 'UND_ERR_BODY_TIMEOUT',
  /** undici's code of `SocketError`. */
  SocketError: 'UND_ERR_SOCKET',
  /** undici's code of `AbortError`. */
  AbortError: 'UND_ERR_ABORT',
  /** undici's code of `RequestAbortedError`. */
  RequestAbortedError: 'UND_ERR_ABORTED',
  /** undici's code of `ClientDestroyedError`. */
  ClientDestroyedError: 'UND_ERR_DESTROYED',
  /** undici's code of `ClientClosedError`. */
  ClientClosedError: 'UND_ERR_CLOSED',
  /** undici's code of `RequestContentLengthMismatchError`. */
  RequestContentLengthMismatchError: 'UND_ERR_REQ_CONTENT_LENGTH_MISMATCH',
  /** undici's code of `ResponseContentLengthMismatchError`. */
  ResponseContentLengthMismatchError: 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  /** undici's code of `ResponseExceededMaxSizeError`. */
  ResponseExceededMaxSizeError: 'UND_ERR_RES_EXCEEDED_MAX_SIZE',
  /** undici's code of `RequestRetryError`. */
  RequestRetryError: 'UND_ERR_REQ_RETRY',
  /** undici's code of `ResponseError`. */
  ResponseError: 'UND_ERR_RESPONSE',
  /** undici's code of `NotSupportedError`. */
  NotSupportedError: 'UND_ERR_NOT_SUPPORTED',
  /** undici's code of `InformationalError`. */
  InformationalError: 'UND_ERR_INFO',
  /** undici's code of `MaxOriginsReachedError`. */
  MaxOriginsReachedError: 'UND_ERR_MAX_ORIGINS_REACHED',
  /** undici's code of `BalancedPoolMissingUpstreamError`. */
  BalancedPoolMissingUpstreamError: 'UND_ERR_BPL_MISSING_UPSTREAM',
  /** undici's code of `SecureProxyConnectionError`. */
  SecureProxyConnectionError: 'UND_ERR_PRX_TLS',
  /** undici's code of `ProxyConnectionError`. */
  ProxyConnectionError: 'UND_ERR_PRX_CONN',
  /** undici's code of `Socks5ProxyError`. */
  Socks5ProxyError: 'UND_ERR_SOCKS5',
  /** undici's code of `MessageSizeExceededError`. */
  MessageSizeExceededError: 'UND_ERR_WS_MESSAGE_SIZE_EXCEEDED',
  /** undici's code of `MockNotMatchedError`. */
  MockNotMatchedError: 'UND_MOCK_ERR_MOCK_NOT_MATCHED',
  /** undici's code of `MaxRedirectsError`. */
  MaxRedirectsError: 'UND_ERR_REDIRECT_MAX'
} as const satisfies Partial<Record<LibraryErrorName, string>>

/**
 * The codes an error of class `N` may carry: conduit's, and undici's where undici has the error
 * (`setErrorCodeStyle('undici')` switches at run time, so both are possible), so that a
 * `switch (err.code)` over either spelling narrows.
 */
export type ErrorCodeOf<N extends LibraryErrorName> =
  | typeof LIBRARY_ERROR_CODES[N]
  | (N extends keyof typeof UNDICI_ERROR_CODES ? typeof UNDICI_ERROR_CODES[N] : never)

/** A code undici gives the same error. */
export type UndiciErrorCode = typeof UNDICI_ERROR_CODES[keyof typeof UNDICI_ERROR_CODES]

const toLibrary: ReadonlyMap<string, string> = new Map(Object.entries(UNDICI_ERROR_CODES).map(([name, code]) =>
  [code, LIBRARY_ERROR_CODES[name as LibraryErrorName]]))

const toUndici: ReadonlyMap<string, string> = new Map(Object.entries(UNDICI_ERROR_CODES).map(([name, code]) =>
  [LIBRARY_ERROR_CODES[name as LibraryErrorName], code]))

/**
 * Reads a code in undici's spelling as conduit's (`UND_ERR_SOCKET` → `LIB_ERR_SOCKET`,
 * `UND_ERR_PRX_CONN` → `LIB_ERR_PROXY_CONNECT`); any other code is returned unchanged, so code
 * that compares codes works in either style.
 */
export function fromUndiciCode (code: string): string {
  const known = toLibrary.get(code)
  if (known !== undefined) return known
  return code.startsWith('UND_') ? `LIB_${code.slice(4)}` : code
}

/** undici's spelling of a conduit code, or `undefined` when undici has no such error. */
export function undiciCodeOf (code: string): string | undefined {
  return toUndici.get(code)
}
