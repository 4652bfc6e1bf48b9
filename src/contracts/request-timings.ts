/**
 * Where a request's time went, as types: the {@link RequestTimings} a request's controller, its
 * `request()` and `stream()` results and conduit's diagnostics messages offer. Types only, so the
 * dispatch contract can name them. Every timestamp is milliseconds on the runtime's monotonic
 * clock, `performance.now()` (the clock of the runtime's performance timeline).
 * @module
 */

/**
 * How long each phase of a request took, in milliseconds. The phases follow each other and add
 * up to `total` (within floating-point rounding); a phase that did not happen is 0: `dns`, `tcp`
 * and `tls` on a reused connection, `dns` for an address, `tls` for `http:`.
 */
export interface TimingPhases {
  /** Queued: waiting for a connection (a free one, or one being opened), less the time spent opening it. */
  readonly wait: number
  /** Resolving the host name. */
  readonly dns: number
  /** Opening the TCP connection (through a proxy tunnel: reaching the proxy and its CONNECT). */
  readonly tcp: number
  /** The TLS handshake. */
  readonly tls: number
  /** Writing the request: from getting the connection to the last byte of the body. */
  readonly request: number
  /** Waiting for the answer: from the request's last byte to the response head. */
  readonly firstByte: number
  /** Reading the response body, from its head to its end. */
  readonly download: number
  /** From queued to the response's end (or to the last timestamp so far while it runs). */
  readonly total: number
}

/**
 * The timestamps of one request (milliseconds on the `performance.now()` clock; null for what
 * did not happen, or not yet) and the {@link TimingPhases} derived from them. A live view: read
 * while the request runs it shows what happened so far, and `complete` once the response ended.
 * The same names serve HTTP/1.1, HTTP/2 (a stream on a session already open is a reused
 * connection) and WebSocket handshakes (whose response ends with its head).
 */
export interface RequestTimings {
  /** The request reached its Client's queue. */
  readonly queued: number
  /** A connection took the request. */
  readonly socketAssigned: number | null
  /** True when the connection had served an earlier request (for HTTP/2: an earlier stream of its session). */
  readonly reusedSocket: boolean
  /** Host name lookup began; null for an address, or on a reused connection. */
  readonly dnsStart: number | null
  /** Host name lookup ended. */
  readonly dnsEnd: number | null
  /** TCP connection attempt began; null on a reused connection. */
  readonly tcpStart: number | null
  /** TCP connection established. */
  readonly tcpEnd: number | null
  /** TLS handshake began; null for `http:` or on a reused connection. */
  readonly tlsStart: number | null
  /** TLS handshake done. */
  readonly tlsEnd: number | null
  /** The request head was written. */
  readonly requestHeadSent: number | null
  /** The last byte of the request (head or body) was written. */
  readonly requestBodySent: number | null
  /** The response head arrived. */
  readonly responseStart: number | null
  /** The response ended: its last body byte, or its head for an upgrade. */
  readonly responseEnd: number | null
  /** True once the response ended. */
  readonly complete: boolean
  /** The phases so far, derived afresh at each read. */
  readonly phases: TimingPhases
}
