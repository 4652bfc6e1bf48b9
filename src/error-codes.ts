/**
 * The one table of error codes: conduit's code of every error class, and undici's code for the
 * same error where undici has one. The error classes take their codes from here, so do the
 * declarations of their literal types, and the switch to undici's spelling reads the second table.
 * @module
 */

/** conduit's code of each error class, by class name. */
export const LIBRARY_ERROR_CODES = {
  LibraryError: 'LIB_ERR',
  InvalidArgumentError: 'LIB_ERR_INVALID_ARG',
  InvalidReturnValueError: 'LIB_ERR_INVALID_RETURN_VALUE',
  ConnectTimeoutError: 'LIB_ERR_CONNECT_TIMEOUT',
  HeadersTimeoutError: 'LIB_ERR_HEADERS_TIMEOUT',
  HeadersOverflowError: 'LIB_ERR_HEADERS_OVERFLOW',
  BodyTimeoutError: 'LIB_ERR_BODY_TIMEOUT',
  SocketError: 'LIB_ERR_SOCKET',
  RequestAbortedError: 'LIB_ERR_ABORTED',
  ClientDestroyedError: 'LIB_ERR_DESTROYED',
  ClientClosedError: 'LIB_ERR_CLOSED',
  RequestContentLengthMismatchError: 'LIB_ERR_REQ_CONTENT_LENGTH_MISMATCH',
  ResponseContentLengthMismatchError: 'LIB_ERR_RES_CONTENT_LENGTH_MISMATCH',
  ResponseExceededMaxSizeError: 'LIB_ERR_RES_EXCEEDED_MAX_SIZE',
  RequestRetryError: 'LIB_ERR_REQ_RETRY',
  ResponseError: 'LIB_ERR_RESPONSE',
  NotSupportedError: 'LIB_ERR_NOT_SUPPORTED',
  InformationalError: 'LIB_ERR_INFO',
  MaxOriginsReachedError: 'LIB_ERR_MAX_ORIGINS_REACHED',
  BalancedPoolMissingUpstreamError: 'LIB_ERR_BPL_MISSING_UPSTREAM',
  HTTPParserError: 'LIB_ERR_HTTP_PARSER',
  SecureProxyConnectionError: 'LIB_ERR_PRX_TLS',
  ProxyConnectionError: 'LIB_ERR_PROXY_CONNECT',
  MockNotMatchedError: 'LIB_MOCK_ERR_MOCK_NOT_MATCHED',
  StoreTimeoutError: 'LIB_ERR_STORE_TIMEOUT',
  SnapshotFileError: 'LIB_ERR_SNAPSHOT_FILE',
  SnapshotNotFoundError: 'LIB_ERR_SNAPSHOT_NOT_FOUND',
  RedirectError: 'LIB_ERR_REDIRECT',
  WebSocketHandshakeError: 'LIB_ERR_WEBSOCKET_HANDSHAKE',
  WebSocketProtocolError: 'LIB_ERR_WEBSOCKET_PROTOCOL',
  MaxRedirectsError: 'LIB_ERR_REDIRECT_MAX'
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
  LibraryError: 'UND_ERR',
  InvalidArgumentError: 'UND_ERR_INVALID_ARG',
  InvalidReturnValueError: 'UND_ERR_INVALID_RETURN_VALUE',
  ConnectTimeoutError: 'UND_ERR_CONNECT_TIMEOUT',
  HeadersTimeoutError: 'UND_ERR_HEADERS_TIMEOUT',
  HeadersOverflowError: 'UND_ERR_HEADERS_OVERFLOW',
  BodyTimeoutError: 'UND_ERR_BODY_TIMEOUT',
  SocketError: 'UND_ERR_SOCKET',
  RequestAbortedError: 'UND_ERR_ABORTED',
  ClientDestroyedError: 'UND_ERR_DESTROYED',
  ClientClosedError: 'UND_ERR_CLOSED',
  RequestContentLengthMismatchError: 'UND_ERR_REQ_CONTENT_LENGTH_MISMATCH',
  ResponseContentLengthMismatchError: 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  ResponseExceededMaxSizeError: 'UND_ERR_RES_EXCEEDED_MAX_SIZE',
  RequestRetryError: 'UND_ERR_REQ_RETRY',
  ResponseError: 'UND_ERR_RESPONSE',
  NotSupportedError: 'UND_ERR_NOT_SUPPORTED',
  InformationalError: 'UND_ERR_INFO',
  MaxOriginsReachedError: 'UND_ERR_MAX_ORIGINS_REACHED',
  BalancedPoolMissingUpstreamError: 'UND_ERR_BPL_MISSING_UPSTREAM',
  SecureProxyConnectionError: 'UND_ERR_PRX_TLS',
  ProxyConnectionError: 'UND_ERR_PRX_CONN',
  MockNotMatchedError: 'UND_MOCK_ERR_MOCK_NOT_MATCHED',
  MaxRedirectsError: 'UND_ERR_REDIRECT_MAX'
} as const satisfies Partial<Record<LibraryErrorName, string>>

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
