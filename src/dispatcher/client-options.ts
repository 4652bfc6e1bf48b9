/**
 * Options of a Client, their defaults, and their validation (once, at construction).
 * @module
 */

import { isIP } from 'node:net'
import { buildConnector, DEFAULT_CONNECT_TIMEOUT } from '../connect.js'
import type { BuildOptions, Connector } from '../connect.js'
import type { DirectConnection } from './route.js'
import { InvalidArgumentError } from '../errors.js'
import { failOption } from '../validation/options.js'
import { DEFAULT_MAX_HEADER_SIZE } from '../connection/connection-config.js'
import type { ConnectionConfig } from '../connection/connection-config.js'
import { MAX_TIMER_MS, timerMilliseconds } from '../validation/timer-limit.js'
import { resolveH2Settings } from './h2-options.js'
import type { H2ClientOptions, H2Settings } from './h2-options.js'

export type { H2ClientOptions, H2Options } from './h2-options.js'

/** Default idle time of a kept-alive connection when the server gives no hint, in milliseconds. */
export const DEFAULT_KEEP_ALIVE_TIMEOUT = 4_000
/** Upper bound for a server's `Keep-Alive: timeout=` hint, in milliseconds. */
export const DEFAULT_KEEP_ALIVE_MAX_TIMEOUT = 600_000
/** Margin subtracted from the server's hint so the client closes first, in milliseconds. */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_THRESHOLD = 2_000
/** Default time to wait for a response head, in milliseconds. */
export const DEFAULT_HEADERS_TIMEOUT = 300_000
/** Default time allowed between body chunks, in milliseconds. */
export const DEFAULT_BODY_TIMEOUT = 300_000
/**
 * Default cap on informational (1xx) responses before a final one. Generous for 103 Early Hints
 * and periodic 102 Processing, yet a flood of them ends long before it could hold a request forever.
 */
export const DEFAULT_MAX_INFORMATIONAL_RESPONSES = 16

/** Options of a {@link Client} (and of the clients a Pool or Agent creates). */
export interface ClientOptions extends H2ClientOptions {
  /**
   * Requests in flight per connection (HTTP/1.1 pipelining); 1 disables pipelining.
   * @defaultValue 1
   */
  pipelining?: number | undefined
  /**
   * Idle time after which a kept-alive connection is closed, when the server sends no hint (ms).
   * @defaultValue 4000
   */
  keepAliveTimeout?: number | undefined
  /**
   * Largest idle time accepted from a server's `Keep-Alive: timeout=` hint (ms).
   * @defaultValue 600000
   */
  keepAliveMaxTimeout?: number | undefined
  /**
   * Subtracted from the server's hint, so the client closes the connection before the server does (ms).
   * @defaultValue 2000
   */
  keepAliveTimeoutThreshold?: number | undefined
  /**
   * Time allowed to open the connection, TLS included (ms); 0 disables.
   * @defaultValue 10000
   */
  connectTimeout?: number | undefined
  /**
   * Time allowed between sending a request and receiving its final response head (ms); 0 disables.
   * Informational (1xx) responses do not restart it: the whole wait for the final head counts.
   * @defaultValue 300000
   */
  headersTimeout?: number | undefined
  /**
   * Time allowed between two chunks of a response body (ms); 0 disables.
   * @defaultValue 300000
   */
  bodyTimeout?: number | undefined
  /**
   * Largest response head (and trailer section) accepted, in bytes.
   * @defaultValue 16384
   */
  maxHeaderSize?: number | undefined
  /**
   * Informational (1xx) responses accepted before the final response of one request; one more
   * fails the request with a `HeadersOverflowError` naming this limit.
   * @defaultValue 16
   */
  maxInformationalResponses?: number | undefined
  /**
   * Largest response body accepted, in bytes received (after chunked framing, before any content
   * decoding); a larger one fails the request with a `ResponseExceededMaxSizeError`. -1: no limit.
   * @defaultValue -1
   */
  maxResponseSize?: number | undefined
  /** TLS and socket options for the built-in connector, or a connector function of your own. */
  connect?: BuildOptions | Connector | null | undefined
  /**
   * TLS options for the built-in connector, under `connect` (undici's older spelling, which it
   * still merges): a field `connect` also sets wins. Ignored with a connector function.
   */
  tls?: BuildOptions | null | undefined
  /**
   * Try the addresses of both families in turn, IPv6 and IPv4 (RFC 8305 "happy eyeballs"), as
   * `net.connect` does with this option; unset leaves the runtime's default.
   */
  autoSelectFamily?: boolean | undefined
  /** With `autoSelectFamily`, how long each address may take before the next one is tried (ms). */
  autoSelectFamilyAttemptTimeout?: number | undefined
  /** Connect to this unix domain socket instead of the origin's host and port. */
  socketPath?: string | null | undefined
  /** Local interface to connect from. */
  localAddress?: string | null | undefined
  /**
   * Requests sent over one connection before it is closed and replaced; 0 means no limit.
   * @defaultValue 0
   */
  maxRequestsPerClient?: number | undefined
  /**
   * Fail a request whose body length differs from its `content-length` header.
   * @defaultValue true
   */
  strictContentLength?: boolean | undefined
  /**
   * TLS sessions cached for resumption (only for the built-in connector).
   * @defaultValue 100
   */
  maxCachedSessions?: number | undefined
  /**
   * Offer HTTP/2 by ALPN on `https:` connections (`h2`, then `http/1.1`); the server chooses.
   * `false` speaks HTTP/1.1 only.
   * @defaultValue true
   */
  allowH2?: boolean | undefined
}

/** Options after validation, with defaults applied: what the connections read, and how the Client connects. */
export interface ClientConfig extends ConnectionConfig, H2Settings {
  connector: Connector
  localAddress: string | null
  /** HTTP/2 is offered by ALPN on TLS connections. */
  allowH2: boolean
}

function nonNegative (who: string, name: string, value: unknown, fallback: number, integer = false): number {
  if (value === undefined || value === null) return fallback
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0 || (integer && !Number.isInteger(value))) {
    failOption(who, name, `a non-negative ${integer ? 'integer' : 'number'}`, value)
  }
  return value
}

/**
 * Validates `opts` and fills in defaults; throws {@link InvalidArgumentError} naming the bad
 * option and its value, prefixed with `who` (the class the caller constructed).
 */
export function resolveClientOptions (opts: ClientOptions | undefined, who = 'Client'): ClientConfig {
  if (opts !== undefined && (opts === null || typeof opts !== 'object')) {
    failOption(who, 'options', 'an object', opts)
  }
  const o = opts ?? {}
  const pipelining = nonNegative(who, 'pipelining', o.pipelining, 1, true)
  const maxHeaderSize = nonNegative(who, 'maxHeaderSize', o.maxHeaderSize, DEFAULT_MAX_HEADER_SIZE, true)
  if (maxHeaderSize === 0) failOption(who, 'maxHeaderSize', 'a positive integer', 0)
  const keepAliveTimeout = timerMilliseconds(who, 'keepAliveTimeout', o.keepAliveTimeout, DEFAULT_KEEP_ALIVE_TIMEOUT)
  const connectTimeout = timerMilliseconds(who, 'connectTimeout', o.connectTimeout, DEFAULT_CONNECT_TIMEOUT)
  if (o.socketPath != null && (typeof o.socketPath !== 'string' || o.socketPath === '')) {
    failOption(who, 'socketPath', 'a non-empty string', o.socketPath)
  }
  if (o.localAddress != null && (typeof o.localAddress !== 'string' || isIP(o.localAddress) === 0)) {
    failOption(who, 'localAddress', 'an IP address', o.localAddress)
  }
  if (o.maxResponseSize != null && (typeof o.maxResponseSize !== 'number' || !Number.isInteger(o.maxResponseSize) || o.maxResponseSize < -1)) {
    failOption(who, 'maxResponseSize', 'an integer of bytes, or -1 for no limit', o.maxResponseSize)
  }
  if (o.strictContentLength != null && typeof o.strictContentLength !== 'boolean') {
    failOption(who, 'strictContentLength', 'a boolean', o.strictContentLength)
  }
  if (o.allowH2 != null && typeof o.allowH2 !== 'boolean') failOption(who, 'allowH2', 'a boolean', o.allowH2)
  // As in undici 8: HTTP/2 is offered unless the caller says no (connect's own allowH2 wins, as
  // undici spreads connect last into its connector's options).
  const allowH2 = (typeof o.connect === 'object' ? o.connect?.allowH2 : undefined) ?? o.allowH2 ?? true
  const h2 = resolveH2Settings(o, who)
  const { connector } = directConnection(o, who, connectTimeout, h2.h2c)
  return {
    pipelining: Math.max(1, pipelining),
    keepAliveTimeout,
    keepAliveMaxTimeout: timerMilliseconds(who, 'keepAliveMaxTimeout', o.keepAliveMaxTimeout, DEFAULT_KEEP_ALIVE_MAX_TIMEOUT),
    keepAliveTimeoutThreshold: timerMilliseconds(who, 'keepAliveTimeoutThreshold', o.keepAliveTimeoutThreshold, DEFAULT_KEEP_ALIVE_TIMEOUT_THRESHOLD),
    headersTimeout: timerMilliseconds(who, 'headersTimeout', o.headersTimeout, DEFAULT_HEADERS_TIMEOUT),
    bodyTimeout: timerMilliseconds(who, 'bodyTimeout', o.bodyTimeout, DEFAULT_BODY_TIMEOUT),
    maxHeaderSize,
    maxInformationalResponses: nonNegative(who, 'maxInformationalResponses', o.maxInformationalResponses, DEFAULT_MAX_INFORMATIONAL_RESPONSES, true),
    maxResponseSize: o.maxResponseSize ?? -1,
    connector,
    localAddress: o.localAddress ?? null,
    maxRequestsPerClient: nonNegative(who, 'maxRequestsPerClient', o.maxRequestsPerClient, 0, true),
    strictContentLength: o.strictContentLength ?? true,
    allowH2,
    ...h2
  }
}

/**
 * The connector client options describe, and the deadline it keeps: `connect.timeout`, else
 * `connectTimeout`. A route (a proxy tunnel) that an Agent opens for an interceptor uses both.
 * @throws InvalidArgumentError when `connect` is neither a function nor an object
 */
export function directConnection (o: ClientOptions, who: string, connectTimeout = timerMilliseconds(who, 'connectTimeout', o.connectTimeout, DEFAULT_CONNECT_TIMEOUT), h2c = resolveH2Settings(o, who).h2c): Omit<DirectConnection, 'dispatch'> {
  if (typeof o.connect === 'function') {
    const custom = o.connect
    const socketPath = o.socketPath
    // A custom connector learns of the socketPath option, as it would have reached a built one.
    const connector: Connector = socketPath == null ? custom : (options, callback) => custom({ ...options, socketPath }, callback)
    return { connector, timeoutMs: connectTimeout }
  }
  if (o.connect == null || typeof o.connect === 'object') {
    if (o.tls != null && (typeof o.tls !== 'object' || Array.isArray(o.tls))) failOption(who, 'tls', 'an object of TLS options', o.tls)
    checkAutoSelectFamily(o, who)
    // As undici: `tls`, then the top-level options, then `connect`, each winning over the one before.
    const options: BuildOptions = { ...(o.tls ?? {}), ...(typeof o.autoSelectFamily === 'boolean' ? { autoSelectFamily: o.autoSelectFamily, autoSelectFamilyAttemptTimeout: o.autoSelectFamilyAttemptTimeout } : {}), ...(o.connect ?? {}) }
    const timeoutMs = options.timeout ?? connectTimeout
    const connector = buildConnector({
      ...options,
      timeout: timeoutMs,
      socketPath: options.socketPath ?? o.socketPath ?? null,
      maxCachedSessions: options.maxCachedSessions ?? o.maxCachedSessions,
      allowH2: o.connect?.allowH2 ?? o.allowH2 ?? true,
      useH2c: options.useH2c ?? h2c
    })
    return { connector, timeoutMs }
  }
  failOption(who, 'connect', 'a function or an object of TLS options', o.connect)
}

function checkAutoSelectFamily (o: ClientOptions, who: string): void {
  if (o.autoSelectFamily != null && typeof o.autoSelectFamily !== 'boolean') failOption(who, 'autoSelectFamily', 'a boolean', o.autoSelectFamily)
  const attempt = o.autoSelectFamilyAttemptTimeout
  if (attempt != null && (typeof attempt !== 'number' || !Number.isInteger(attempt) || attempt < 0 || attempt > MAX_TIMER_MS)) {
    failOption(who, 'autoSelectFamilyAttemptTimeout', `an integer of milliseconds from 0 to ${MAX_TIMER_MS}`, attempt)
  }
}

/**
 * Checks client options where they are first given (a Pool or Agent constructor), so a bad value
 * fails there and not at the first request, when the first Client is built.
 * @throws InvalidArgumentError naming the option and its value, prefixed with `who`
 */
export function checkClientOptions (opts: ClientOptions, who: string): void {
  // The connector built here is thrown away: it holds no socket or timer until it is called.
  resolveClientOptions(opts, who)
}
