/**
 * Options of a Client, their defaults, and their validation (once, at construction).
 * @module
 */

import { isIP } from 'node:net'
import { buildConnector, DEFAULT_CONNECT_TIMEOUT } from '../connect.js'
import type { BuildOptions, Connector } from '../connect.js'
import type { DirectConnection } from './route.js'
import { InvalidArgumentError } from '../errors.js'
import { describeValue } from '../validation/describe-value.js'
import { DEFAULT_MAX_HEADER_SIZE } from '../h1/constants.js'
import { MAX_TIMER_MS } from '../validation/timer-limit.js'

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

/** Options of a {@link Client} (and of the clients a Pool or Agent creates). */
export interface ClientOptions {
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
   * Time allowed between sending a request and receiving its response head (ms); 0 disables.
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
  /** TLS and socket options for the built-in connector, or a connector function of your own. */
  connect?: BuildOptions | Connector | null | undefined
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
}

/** Options after validation, with defaults applied. */
export interface ClientConfig {
  pipelining: number
  keepAliveTimeout: number
  keepAliveMaxTimeout: number
  keepAliveTimeoutThreshold: number
  headersTimeout: number
  bodyTimeout: number
  maxHeaderSize: number
  connector: Connector
  localAddress: string | null
  maxRequestsPerClient: number
  strictContentLength: boolean
}

function nonNegative (who: string, name: string, value: unknown, fallback: number, integer = false): number {
  if (value === undefined || value === null) return fallback
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0 || (integer && !Number.isInteger(value))) {
    throw new InvalidArgumentError(`${who}: ${name} must be a non-negative ${integer ? 'integer' : 'number'}, got ${describeValue(value)}`)
  }
  return value
}

/** A duration option: a number of milliseconds a Node timer can hold (see {@link MAX_TIMER_MS}). */
function milliseconds (who: string, name: string, value: unknown, fallback: number): number {
  if (value === undefined || value === null) return fallback
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0 || value > MAX_TIMER_MS) {
    throw new InvalidArgumentError(`${who}: ${name} must be a number of milliseconds from 0 to ${MAX_TIMER_MS}, got ${describeValue(value)}`)
  }
  return value
}

/**
 * Validates `opts` and fills in defaults; throws {@link InvalidArgumentError} naming the bad
 * option and its value, prefixed with `who` (the class the caller constructed).
 */
export function resolveClientOptions (opts: ClientOptions | undefined, who = 'Client'): ClientConfig {
  if (opts !== undefined && (opts === null || typeof opts !== 'object')) {
    throw new InvalidArgumentError(`${who}: options must be an object, got ${describeValue(opts)}`)
  }
  const o = opts ?? {}
  const pipelining = nonNegative(who, 'pipelining', o.pipelining, 1, true)
  const maxHeaderSize = nonNegative(who, 'maxHeaderSize', o.maxHeaderSize, DEFAULT_MAX_HEADER_SIZE, true)
  if (maxHeaderSize === 0) throw new InvalidArgumentError(`${who}: maxHeaderSize must be a positive integer, got 0`)
  const keepAliveTimeout = milliseconds(who, 'keepAliveTimeout', o.keepAliveTimeout, DEFAULT_KEEP_ALIVE_TIMEOUT)
  const connectTimeout = milliseconds(who, 'connectTimeout', o.connectTimeout, DEFAULT_CONNECT_TIMEOUT)
  if (o.socketPath != null && (typeof o.socketPath !== 'string' || o.socketPath === '')) {
    throw new InvalidArgumentError(`${who}: socketPath must be a non-empty string, got ${describeValue(o.socketPath)}`)
  }
  if (o.localAddress != null && (typeof o.localAddress !== 'string' || isIP(o.localAddress) === 0)) {
    throw new InvalidArgumentError(`${who}: localAddress must be an IP address, got ${describeValue(o.localAddress)}`)
  }
  if (o.strictContentLength != null && typeof o.strictContentLength !== 'boolean') {
    throw new InvalidArgumentError(`${who}: strictContentLength must be a boolean, got ${describeValue(o.strictContentLength)}`)
  }
  const { connector } = directConnection(o, who, connectTimeout)
  return {
    pipelining: Math.max(1, pipelining),
    keepAliveTimeout,
    keepAliveMaxTimeout: milliseconds(who, 'keepAliveMaxTimeout', o.keepAliveMaxTimeout, DEFAULT_KEEP_ALIVE_MAX_TIMEOUT),
    keepAliveTimeoutThreshold: milliseconds(who, 'keepAliveTimeoutThreshold', o.keepAliveTimeoutThreshold, DEFAULT_KEEP_ALIVE_TIMEOUT_THRESHOLD),
    headersTimeout: milliseconds(who, 'headersTimeout', o.headersTimeout, DEFAULT_HEADERS_TIMEOUT),
    bodyTimeout: milliseconds(who, 'bodyTimeout', o.bodyTimeout, DEFAULT_BODY_TIMEOUT),
    maxHeaderSize,
    connector,
    localAddress: o.localAddress ?? null,
    maxRequestsPerClient: nonNegative(who, 'maxRequestsPerClient', o.maxRequestsPerClient, 0, true),
    strictContentLength: o.strictContentLength ?? true
  }
}

/**
 * The connector client options describe, and the deadline it keeps: `connect.timeout`, else
 * `connectTimeout`. A route (a proxy tunnel) that an Agent opens for an interceptor uses both.
 * @throws InvalidArgumentError when `connect` is neither a function nor an object
 */
export function directConnection (o: ClientOptions, who: string, connectTimeout = milliseconds(who, 'connectTimeout', o.connectTimeout, DEFAULT_CONNECT_TIMEOUT)): Omit<DirectConnection, 'dispatch'> {
  if (typeof o.connect === 'function') return { connector: o.connect, timeoutMs: connectTimeout }
  if (o.connect == null || typeof o.connect === 'object') {
    const timeoutMs = o.connect?.timeout ?? connectTimeout
    const connector = buildConnector({
      ...(o.connect ?? {}),
      timeout: timeoutMs,
      socketPath: o.connect?.socketPath ?? o.socketPath ?? null,
      maxCachedSessions: o.connect?.maxCachedSessions ?? o.maxCachedSessions
    })
    return { connector, timeoutMs }
  }
  throw new InvalidArgumentError(`${who}: connect must be a function or an object of TLS options, got ${describeValue(o.connect)}`)
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
