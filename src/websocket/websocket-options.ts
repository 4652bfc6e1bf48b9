/**
 * The arguments `new WebSocket()` and `new WebSocketStream()` take, checked as the WebSockets
 * standard asks (a bad URL or subprotocol list is a `SyntaxError` DOMException) and resolved
 * into what the handshake and the connection need.
 * @module
 */

import type { DispatchTarget, OutgoingHeaders } from '../contracts/dispatch-contract.js'
import type { Dispatcher } from '../dispatcher/dispatcher.js'
import { describeUrl, hrefWithoutCredentials } from '../observability/redaction.js'
import { describeValue } from '../validation/describe-value.js'
import { timerMilliseconds } from '../validation/timer-limit.js'
import { failOption } from '../validation/options.js'
import { DEFAULT_CLOSE_TIMEOUT_MS, DEFAULT_MAX_FRAGMENTS, DEFAULT_MAX_MESSAGE_SIZE } from './constants.js'

/** Options of `new WebSocket(url, options)` beyond the standard's subprotocol list. */
export interface WebSocketInit {
  /** Subprotocols to ask for. */
  protocols?: string | string[] | undefined
  /** The dispatcher the handshake goes through. @defaultValue the global dispatcher */
  dispatcher?: Dispatcher | undefined
  /** Extra headers of the handshake request. */
  headers?: OutgoingHeaders | undefined
  /**
   * Largest message accepted, in bytes, after decompression; a larger one fails the connection
   * with 1009. @defaultValue 67108864 (64 MiB)
   */
  maxMessageSize?: number | undefined
  /**
   * Most frames one message may arrive in; a message in more fails the connection with 1008.
   * @defaultValue 131072
   */
  maxFragments?: number | undefined
  /** How long the client waits for the server's close frame before dropping the socket, ms. @defaultValue 30000 */
  closeTimeoutMs?: number | undefined
  /** Offer permessage-deflate. @defaultValue true */
  perMessageDeflate?: boolean | undefined
}

/** The checked arguments. */
export interface ResolvedWebSocketOptions {
  url: URL
  protocols: string[]
  dispatcher: DispatchTarget | undefined
  headers: OutgoingHeaders | undefined
  maxMessageSize: number
  maxFragments: number
  closeTimeoutMs: number
  perMessageDeflate: boolean
}

/** A `Sec-WebSocket-Protocol` element: an RFC 7230 token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/** Parses a WebSocket URL: `http(s):` becomes `ws(s):`; any other scheme or a fragment is a SyntaxError. */
export function parseWebSocketUrl (where: string, input: unknown): URL {
  let url: URL
  try {
    url = new URL(String(input))
  } catch (cause) {
    throw new DOMException(`${where}: ${describeUrl(input)} is not a valid URL (${(cause as Error).message})`, 'SyntaxError')
  }
  if (url.protocol === 'http:') url.protocol = 'ws:'
  else if (url.protocol === 'https:') url.protocol = 'wss:'
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') {
    throw new DOMException(`${where}: the URL ${describeUrl(url)} has the scheme ${url.protocol}; expected ws:, wss:, http: or https:`, 'SyntaxError')
  }
  if (url.hash !== '' || url.href.endsWith('#')) {
    throw new DOMException(`${where}: the URL ${describeUrl(url)} has a fragment, which WebSocket URLs cannot have`, 'SyntaxError')
  }
  return url
}

function checkProtocols (where: string, value: unknown): string[] {
  if (value === undefined || value === null) return []
  const list = typeof value === 'string' ? [value] : value
  if (!Array.isArray(list) && (typeof list !== 'object' || typeof (list as Iterable<unknown>)[Symbol.iterator] !== 'function')) {
    failOption(where, 'protocols', 'a string or a sequence of strings', value, { error: TypeError })
  }
  const protocols = [...(list as Iterable<unknown>)].map(String)
  const seen = new Set<string>()
  for (const protocol of protocols) {
    if (!TOKEN.test(protocol)) throw new DOMException(`${where}: the subprotocol ${describeValue(protocol)} is not a valid token`, 'SyntaxError')
    const folded = protocol.toLowerCase()
    if (seen.has(folded)) throw new DOMException(`${where}: the subprotocol ${describeValue(protocol)} is listed twice`, 'SyntaxError')
    seen.add(folded)
  }
  return protocols
}

/** Checks the constructor's arguments. */
export function resolveWebSocketOptions (where: string, url: unknown, second: unknown): ResolvedWebSocketOptions {
  const parsed = parseWebSocketUrl(where, url instanceof URL ? url.href : url)
  const init: WebSocketInit = second !== null && typeof second === 'object' && !Array.isArray(second) && typeof (second as Iterable<unknown>)[Symbol.iterator] !== 'function'
    ? second as WebSocketInit
    : { protocols: second as string | string[] | undefined }
  const maxMessageSize = init.maxMessageSize ?? DEFAULT_MAX_MESSAGE_SIZE
  if (typeof maxMessageSize !== 'number' || !Number.isSafeInteger(maxMessageSize) || maxMessageSize < 1) {
    failOption(where, 'maxMessageSize', 'a positive integer number of bytes', maxMessageSize)
  }
  const maxFragments = init.maxFragments ?? DEFAULT_MAX_FRAGMENTS
  if (typeof maxFragments !== 'number' || !Number.isSafeInteger(maxFragments) || maxFragments < 1) {
    failOption(where, 'maxFragments', 'a positive integer number of frames', maxFragments)
  }
  const dispatcher = init.dispatcher
  if (dispatcher !== undefined && (dispatcher === null || typeof (dispatcher as Partial<DispatchTarget>).dispatch !== 'function')) {
    failOption(where, 'dispatcher', 'an object with a dispatch() method', dispatcher)
  }
  return {
    url: parsed,
    protocols: checkProtocols(where, init.protocols),
    dispatcher,
    headers: init.headers,
    maxMessageSize,
    maxFragments,
    closeTimeoutMs: timerMilliseconds(where, 'closeTimeoutMs', init.closeTimeoutMs, DEFAULT_CLOSE_TIMEOUT_MS),
    perMessageDeflate: init.perMessageDeflate ?? true
  }
}

/** The URL as logs and messages show it. */
export function shownUrl (url: URL): string {
  return hrefWithoutCredentials(url)
}
