/**
 * The opening handshake (RFC 6455 section 4.1, WebSockets standard "establish a WebSocket
 * connection") as one dispatch through any conduit dispatcher: an HTTP/1.1 `GET` with
 * `upgrade: 'websocket'`, so proxies, TLS options and interceptors apply as to any request.
 * The answer is checked before the socket is used: 101, `Upgrade: websocket`, `Connection:
 * Upgrade`, the `Sec-WebSocket-Accept` digest of the key, a subprotocol that was asked for and
 * only the extension that was offered. A `401` to a URL with `user:pass@` is asked once more with
 * those credentials as `Authorization: Basic`, as the Fetch standard does for a WebSocket.
 * @module
 */

import { createHash, randomBytes } from 'node:crypto'
import type { Duplex } from 'node:stream'
import type { DispatchController, DispatchHandler, DispatchOptions, DispatchTarget, IncomingHeaders, OutgoingHeaders } from '../contracts/dispatch-contract.js'
import { normalizeHeaders } from '../handlers/request-headers.js'
import { WebSocketHandshakeError } from '../errors.js'
import { getGlobalDispatcher } from '../global.js'
import { tagCaller } from '../observability/caller-tag.js'
import { WEBSOCKET_NAMESPACE } from '../observability/debug-log.js'
import { HANDSHAKE_GUID } from './constants.js'
import { DEFLATE_OFFER, parseDeflateResponse } from './permessage-deflate.js'
import type { DeflateParams } from './permessage-deflate.js'
import { trimOws } from '../connection/field-syntax.js'
import { urlBasicAuthorization } from '../connection/url-credentials.js'
import { queueMicrotask } from '../runtime/timers.js'
import { DualShapeHandler } from '../handlers/dual-shape-handler.js'

/** What the handshake needs to know. */
export interface HandshakeRequest {
  /** `ws:` or `wss:` URL without fragment. */
  url: URL
  /** Subprotocols to ask for, in order of preference. */
  protocols: readonly string[]
  /** Extra request headers from the caller. */
  headers: OutgoingHeaders | null | undefined
  /** Whether to offer permessage-deflate. */
  offerDeflate: boolean
  /** `Authorization` to send (the URL's credentials, after a 401), or undefined. */
  authorization?: string | undefined
}

/** Names of the fields the handshake sets itself: a caller's field of the same name gives way. */
const OWN_FIELDS = new Set(['sec-websocket-key', 'sec-websocket-version', 'sec-websocket-protocol', 'sec-websocket-extensions'])

/** A completed handshake. */
export interface HandshakeResult {
  /** The socket (or HTTP/2 stream), now speaking WebSocket. */
  socket: Duplex
  /** The subprotocol the server chose, or `''`. */
  protocol: string
  /** The extensions in use, as the server answered them, or `''`. */
  extensions: string
  /** The permessage-deflate parameters, or null when it is not in use. */
  deflate: DeflateParams | null
  /** The answer's status (101, or 200 for HTTP/2 extended CONNECT). */
  status: number
  /** The answer's headers. */
  headers: IncomingHeaders
}

/** The dispatch options of a handshake and the key to check the answer against. */
export function handshakeDispatch (request: HandshakeRequest): { options: DispatchOptions, key: string } {
  const { url } = request
  const key = randomBytes(16).toString('base64')
  // A flat list keeps the caller's names as written: servers that match names case-sensitively see what the caller sent.
  const headers: string[] = []
  let pragma = false
  let cacheControl = false
  let authorization = false
  for (const [name, value] of callerFields(request.headers)) {
    const lower = name.toLowerCase()
    if (OWN_FIELDS.has(lower)) continue
    if (lower === 'authorization' && request.authorization !== undefined) continue
    pragma ||= lower === 'pragma'
    cacheControl ||= lower === 'cache-control'
    authorization ||= lower === 'authorization'
    headers.push(name, value)
  }
  headers.push('sec-websocket-key', key, 'sec-websocket-version', '13')
  // The standard's fetch for a WebSocket bypasses caches.
  if (!pragma) headers.push('pragma', 'no-cache')
  if (!cacheControl) headers.push('cache-control', 'no-cache')
  if (request.protocols.length > 0) headers.push('sec-websocket-protocol', request.protocols.join(', '))
  if (request.offerDeflate) headers.push('sec-websocket-extensions', DEFLATE_OFFER)
  if (request.authorization !== undefined && !authorization) headers.push('authorization', request.authorization)
  const origin = `${url.protocol === 'wss:' ? 'https:' : 'http:'}//${url.host}`
  // The caller tag sends the handshake's connect and request lines to NODE_DEBUG=websocket too.
  const options: DispatchOptions = tagCaller({
    origin,
    path: `${url.pathname}${url.search}`,
    method: 'GET',
    headers,
    upgrade: 'websocket'
  }, WEBSOCKET_NAMESPACE)
  return { options, key }
}

/** The caller's header fields as `[name, value]` pairs, names as given, repeated values apart. */
function callerFields (headers: OutgoingHeaders | null | undefined): Array<[string, string]> {
  if (headers == null) return []
  const out: Array<[string, string]> = []
  if (Array.isArray(headers) && headers.length > 0 && !Array.isArray(headers[0])) {
    // A flat list [name, value, ...]: normalizeHeaders refuses an odd one.
    normalizeHeaders(headers)
    for (let i = 0; i < headers.length; i += 2) out.push([String(headers[i]), String(headers[i + 1])])
  } else if (Array.isArray(headers) || typeof (headers as Partial<Iterable<unknown>>)[Symbol.iterator] === 'function') {
    for (const [name, value] of headers as Iterable<readonly [unknown, unknown]>) out.push([String(name), String(value)])
  } else {
    for (const name of Object.keys(headers)) {
      const value = (headers as Record<string, unknown>)[name]
      if (value === undefined || value === null) continue
      if (Array.isArray(value)) for (const item of value) out.push([name, String(item)])
      else out.push([name, String(value)])
    }
  }
  return out
}

function single (headers: IncomingHeaders, name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value.join(', ') : value
}

/** The accept value a server must answer to `key`. */
export function acceptFor (key: string): string {
  return createHash('sha1').update(key + HANDSHAKE_GUID).digest('base64')
}

/** Checks the server's answer; returns the result or an error naming what was wrong. */
export function checkAnswer (request: HandshakeRequest, key: string | null, status: number, headers: IncomingHeaders, socket: Duplex): HandshakeResult | WebSocketHandshakeError {
  // key is null for HTTP/2 extended CONNECT (RFC 8441 section 5), which has no key and no Upgrade.
  if (key !== null) {
    const upgrade = single(headers, 'upgrade')
    if (upgrade === undefined || trimOws(upgrade).toLowerCase() !== 'websocket') {
      return new WebSocketHandshakeError(`the server answered 101 with Upgrade: ${JSON.stringify(upgrade ?? null)} instead of websocket`)
    }
    const connection = single(headers, 'connection')
    if (connection === undefined || !connection.split(',').some((token) => trimOws(token).toLowerCase() === 'upgrade')) {
      return new WebSocketHandshakeError(`the server answered 101 with Connection: ${JSON.stringify(connection ?? null)}, without the upgrade token`)
    }
    const accept = single(headers, 'sec-websocket-accept')
    if (accept !== acceptFor(key)) {
      return new WebSocketHandshakeError(`the server answered Sec-WebSocket-Accept: ${JSON.stringify(accept ?? null)}, which does not match the key sent`)
    }
  }
  let deflate: DeflateParams | null = null
  const extensions = single(headers, 'sec-websocket-extensions') ?? ''
  if (extensions !== '') {
    const parsed = request.offerDeflate ? parseDeflateResponse(extensions) : `the server accepted ${JSON.stringify(extensions)}, but no extension was offered`
    if (typeof parsed === 'string') return new WebSocketHandshakeError(`the server's Sec-WebSocket-Extensions is not acceptable: ${parsed}`)
    deflate = parsed
  }
  const protocol = single(headers, 'sec-websocket-protocol') ?? ''
  if (protocol !== '' && !request.protocols.includes(protocol)) {
    return new WebSocketHandshakeError(`the server chose the subprotocol ${JSON.stringify(protocol)}, which was not asked for (asked: ${JSON.stringify(request.protocols)})`)
  }
  return { socket, protocol, extensions, deflate, status, headers }
}

/** Callbacks of {@link HandshakeHandler}; exactly one of them is called, once. */
export interface HandshakeCallbacks {
  /** The server switched to WebSocket and the answer checked out. */
  onOpen (result: HandshakeResult): void
  /** The handshake failed; `status` is the answer's status when the server answered without switching. */
  onError (error: Error, status?: number): void
}

/** The dispatch handler of a handshake. */
export class HandshakeHandler extends DualShapeHandler implements DispatchHandler {
  readonly #request: HandshakeRequest
  readonly #key: string
  #callbacks: HandshakeCallbacks | null
  #controller: DispatchController | null = null
  #abortReason: Error | null = null

  constructor (request: HandshakeRequest, key: string, callbacks: HandshakeCallbacks) {
    super()
    this.#request = request
    this.#key = key
    this.#callbacks = callbacks
  }

  /**
   * Cancels the handshake (the caller closed the WebSocket while connecting). The failure is
   * reported after the caller's `close()` returned, as the standard queues its events.
   */
  abort (reason: Error): void {
    queueMicrotask(() => {
      if (this.#controller !== null) this.#controller.abort(reason)
      else this.#abortReason = reason
    })
  }

  #settle (): HandshakeCallbacks | null {
    const callbacks = this.#callbacks
    this.#callbacks = null
    return callbacks
  }

  onRequestStart (controller: DispatchController): void {
    this.#controller = controller
    if (this.#abortReason !== null) controller.abort(this.#abortReason)
  }

  onRequestUpgrade (_controller: DispatchController, statusCode: number, headers: IncomingHeaders, socket: Duplex): void {
    const callbacks = this.#settle()
    if (callbacks === null) {
      socket.destroy()
      return
    }
    // An HTTP/2 extended CONNECT answers 200 on a stream (RFC 8441 section 5): no key to check.
    const h2 = statusCode === 200
    const result = checkAnswer(this.#request, h2 ? null : this.#key, statusCode, headers, socket)
    if (result instanceof WebSocketHandshakeError) {
      socket.destroy()
      callbacks.onError(result)
    } else {
      callbacks.onOpen(result)
    }
  }

  onResponseStart (controller: DispatchController, statusCode: number, _headers: IncomingHeaders, statusMessage?: string): void {
    const error = new WebSocketHandshakeError(`the server answered ${statusCode}${statusMessage ? ` ${statusMessage}` : ''} instead of 101 Switching Protocols`)
    // Settled before the abort, whose onResponseError would report the failure without its status.
    const callbacks = this.#settle()
    controller.abort(error)
    callbacks?.onError(error, statusCode)
  }

  onResponseData (): void {}

  onResponseEnd (): void {
    this.#settle()?.onError(new WebSocketHandshakeError('the handshake response ended without a switch to WebSocket'))
  }

  onResponseError (_controller: DispatchController, error: Error): void {
    this.#settle()?.onError(error)
  }
}

/**
 * One opening handshake through a dispatcher, from the first dispatch to `onOpen` or `onError`:
 * a `401` to a URL that carries `user:pass@` is asked once more with those credentials (the
 * Fetch standard's use-URL-credentials flag, which a WebSocket's request has).
 */
export class Handshake {
  readonly #request: HandshakeRequest
  readonly #dispatcher: DispatchTarget
  readonly #callbacks: HandshakeCallbacks
  #handler: HandshakeHandler | null = null
  #done = false

  constructor (request: HandshakeRequest, dispatcher: DispatchTarget | undefined, callbacks: HandshakeCallbacks) {
    this.#request = request
    this.#dispatcher = dispatcher ?? getGlobalDispatcher()
    this.#callbacks = callbacks
    this.#start(request)
  }

  #start (request: HandshakeRequest): void {
    const { options, key } = handshakeDispatch(request)
    const handler = new HandshakeHandler(request, key, {
      onOpen: (result) => {
        this.#done = true
        this.#callbacks.onOpen(result)
      },
      onError: (error, status) => {
        const authorization = status === 401 && request.authorization === undefined ? urlBasicAuthorization(request.url) : undefined
        if (authorization !== undefined && !this.#done) {
          this.#start({ ...this.#request, authorization })
          return
        }
        this.#done = true
        this.#callbacks.onError(error, status)
      }
    })
    this.#handler = handler
    try {
      this.#dispatcher.dispatch(options, handler)
    } catch (err) {
      queueMicrotask(() => handler.onResponseError(null as never, err as Error))
    }
  }

  /** Cancels the handshake; the failure is reported through `onError` once the caller's code returned. */
  abort (reason: Error): void {
    if (this.#done) return
    this.#done = true
    this.#handler?.abort(reason)
  }
}
