/**
 * The `diagnostics_channel` channels the core publishes: the contract APM and tracing tools
 * subscribe to. Publishers check `hasSubscribers` first so an unobserved client pays nothing.
 *
 * Messages:
 * - `conduit:client:beforeConnect`, `conduit:client:connected`, `conduit:client:connectError`:
 *   `{ connectParams, connector, socket?, error?, caller }` (caller: the caller tag of the request
 *   the connection was opened for, or null)
 * - `conduit:client:sendHeaders`: `{ request, headers, socket }` (headers: the head as written)
 * - `conduit:request:create`: `{ request }`; `conduit:request:bodySent`: `{ request }`
 * - `conduit:request:headers`: `{ request, response: { statusCode, statusText, headers }, timings }`
 * - `conduit:request:trailers`: `{ request, trailers, timings }`; `conduit:request:error`: `{ request, error }`
 *   (`timings`: the request's `RequestTimings`, complete on `trailers`; undici's channels have none)
 *
 * - `conduit:proxy:connected`: `{ socket, proxy, target, via }`, once per proxy tunnel
 * - `conduit:circuitBreaker:stateChange`: `{ key, from, to, reason }`, each time a circuit of
 *   `interceptors.circuitBreaker()` changes state (`closed`, `open`, `half-open`)
 *
 * WebSocket events, each also published under undici's name (`undici:websocket:open`, ...)
 * with undici's message shapes, so tools written for undici's WebSocket see conduit's:
 * - `conduit:websocket:open`: `{ address: { address, family, port } | null, protocol, extensions,
 *   websocket, handshakeResponse: { status, statusText, headers } }`
 * - `conduit:websocket:close`: `{ websocket, code, reason }`
 * - `conduit:websocket:socket_error`: the socket's `Error`
 * - `conduit:websocket:ping` and `conduit:websocket:pong`: `{ payload, websocket }` (payload: Buffer)
 *
 * `request` carries `origin`, `method`, `path`, `headers`, `caller` (the tag the API layer that
 * made the request put on its dispatch options, such as `'fetch'`; null for none) and `fetch`
 * (true when that tag is `'fetch'`);
 * it is the same object in every event of one request. Credentials never appear: the values of
 * `proxy-authorization` (and of the headers the proxy interceptor adds) show as `[redacted]`, in
 * `request.headers` and in the `sendHeaders` head alike.
 * @module
 */

import * as diagnosticsChannel from 'node:diagnostics_channel'

/** Every channel the core publishes, by short name. */
export const channels = {
  /** A connection is about to be opened: `{ connectParams, connector }`. */
  beforeConnect: diagnosticsChannel.channel('conduit:client:beforeConnect'),
  /** A connection was opened: `{ connectParams, connector, socket }`. */
  connected: diagnosticsChannel.channel('conduit:client:connected'),
  /** A connection could not be opened: `{ connectParams, connector, error }`. */
  connectError: diagnosticsChannel.channel('conduit:client:connectError'),
  /** A request head is being written: `{ request, headers, socket }`. */
  sendHeaders: diagnosticsChannel.channel('conduit:client:sendHeaders'),
  /** A request was accepted by a Client: `{ request }`. */
  create: diagnosticsChannel.channel('conduit:request:create'),
  /** A request body was completely written: `{ request }`. */
  bodySent: diagnosticsChannel.channel('conduit:request:bodySent'),
  /** A response head arrived: `{ request, response: { statusCode, statusText, headers } }`. */
  headers: diagnosticsChannel.channel('conduit:request:headers'),
  /** A response ended: `{ request, trailers }`. */
  trailers: diagnosticsChannel.channel('conduit:request:trailers'),
  /** A request failed: `{ request, error }`. */
  error: diagnosticsChannel.channel('conduit:request:error'),
  /** A tunnel through a proxy was established: `{ socket, proxy, target, via }` (the proxy without credentials). */
  proxyConnected: diagnosticsChannel.channel('conduit:proxy:connected'),
  /** A WebSocket connection opened. */
  websocketOpen: diagnosticsChannel.channel('conduit:websocket:open'),
  /** A WebSocket connection closed. */
  websocketClose: diagnosticsChannel.channel('conduit:websocket:close'),
  /** The socket under a WebSocket failed. */
  websocketSocketError: diagnosticsChannel.channel('conduit:websocket:socket_error'),
  /** A WebSocket received a ping. */
  websocketPing: diagnosticsChannel.channel('conduit:websocket:ping'),
  /** A WebSocket received a pong. */
  websocketPong: diagnosticsChannel.channel('conduit:websocket:pong')
} as const

/**
 * The channels interceptors publish their decisions on. Kept apart from {@link channels}, which
 * every request through the core exercises: these speak only when an interceptor decides.
 */
export const interceptorChannels = {
  /** A circuit of the circuit breaker changed state: `{ key, from, to, reason }`. */
  circuitStateChange: diagnosticsChannel.channel('conduit:circuitBreaker:stateChange')
} as const

/** The WebSocket channels under undici's names, published with the same messages as conduit's. */
export const undiciWebSocketChannels = {
  /** `undici:websocket:open`. */
  open: diagnosticsChannel.channel('undici:websocket:open'),
  /** `undici:websocket:close`. */
  close: diagnosticsChannel.channel('undici:websocket:close'),
  /** `undici:websocket:socket_error`. */
  socketError: diagnosticsChannel.channel('undici:websocket:socket_error'),
  /** `undici:websocket:ping`. */
  ping: diagnosticsChannel.channel('undici:websocket:ping'),
  /** `undici:websocket:pong`. */
  pong: diagnosticsChannel.channel('undici:websocket:pong')
} as const

/** The names of all channels above, for subscribers (and tests) that want every one. */
export const CHANNEL_NAMES: readonly string[] = Object.values(channels).map((channel) => String(channel.name))

/**
 * undici's channel names, published with undici's message shapes for tracing tools written for
 * undici (see `src/observability/undici-channels.ts`), by the short names of {@link channels}.
 */
export const undiciChannels = {
  /** A connection is about to be opened. */
  beforeConnect: diagnosticsChannel.channel('undici:client:beforeConnect'),
  /** A connection was opened. */
  connected: diagnosticsChannel.channel('undici:client:connected'),
  /** A connection could not be opened. */
  connectError: diagnosticsChannel.channel('undici:client:connectError'),
  /** A request head is being written. */
  sendHeaders: diagnosticsChannel.channel('undici:client:sendHeaders'),
  /** A request was accepted by a Client; subscribers may add headers with `request.addHeader()`. */
  create: diagnosticsChannel.channel('undici:request:create'),
  /** A request body was completely written. */
  bodySent: diagnosticsChannel.channel('undici:request:bodySent'),
  /** A chunk of a request body was written. */
  bodyChunkSent: diagnosticsChannel.channel('undici:request:bodyChunkSent'),
  /** A chunk of a response body arrived. */
  bodyChunkReceived: diagnosticsChannel.channel('undici:request:bodyChunkReceived'),
  /** A response head arrived. */
  headers: diagnosticsChannel.channel('undici:request:headers'),
  /** A response ended. */
  trailers: diagnosticsChannel.channel('undici:request:trailers'),
  /** A request failed. */
  error: diagnosticsChannel.channel('undici:request:error'),
  /** A tunnel through a proxy was established. */
  proxyConnected: diagnosticsChannel.channel('undici:proxy:connected')
} as const

/** The names of all undici channels conduit publishes on. */
export const UNDICI_CHANNEL_NAMES: readonly string[] = Object.values(undiciChannels).map((channel) => String(channel.name))

/** What connect events describe: where the client connects to. */
export interface ConnectParams {
  /** `host[:port]` as in the origin. */
  host: string
  /** Host name or address, without the port. */
  hostname: string
  /** `http:` or `https:`. */
  protocol: string
  /** Port as written in the origin; empty for the scheme's default. */
  port: string
  /** TLS server name, or null to derive it from the host name. */
  servername: string | null
  /**
   * `'h1'`, or `'h2'` once a session was negotiated (and before connecting, for h2c clients).
   */
  version: string
  /** The Client's `localAddress` option (the interface it connects from), or null. */
  localAddress: string | null
}

/** The request as diagnostics messages show it. */
export interface DiagnosticsRequest {
  /** The origin the request goes to, e.g. `https://example.org`. */
  origin: string
  /** Request method. */
  method: string
  /** Request target with the query. */
  path: string
  /** Request headers in the form the caller gave them, with credential values redacted. */
  headers: unknown
  /** The caller tag the API layer put on the dispatch options (`'fetch'` for fetch()), or null. */
  caller: string | null
  /** True when the request was made through fetch(). */
  fetch: boolean
}
