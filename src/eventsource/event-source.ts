/**
 * `EventSource` (HTML standard, "Server-sent events") on conduit's fetch, so any dispatcher —
 * an Agent, a ProxyAgent, a composed stack with the dns or debug interceptor — carries the
 * stream. The processing model: announce the connection on a `200 text/event-stream`, fail it
 * (no more reconnection) on any other response, a redirect that cannot be followed or `close()`,
 * reestablish it after the reconnection delay on a network error or when the body ends, sending
 * `Last-Event-ID`. Every event is fired from a task of its own, in order, as the standard queues
 * them. A URL with `user:pass@` is fetched without them and asked again with them after a 401.
 * @module
 */

import type { Dispatcher } from '../dispatcher/dispatcher.js'
import { fetch } from '../fetch/fetch.js'
import type { Response } from '../fetch/response.js'
import { getGlobalOrigin } from '../fetch/global-origin.js'
import { RedirectRefusedError } from '../fetch/redirect.js'
import { mimeEssence } from '../fetch/mime.js'
import { defineConstants, defineToStringTag, enumerableMembers, toDOMString } from '../fetch/webidl.js'
import { hasInvalidValueChar, trimOws } from '../connection/field-syntax.js'
import { EventStreamParser, EventTooLargeError } from './event-stream-parser.js'
import type { StreamEvent } from './event-stream-parser.js'
import { MessageEvent } from '../websocket/dom-events.js'
import { readEventSourceInit } from './event-source-init.js'
import { ReconnectionDelay } from './reconnection-delay.js'
import { describeUrl } from '../observability/redaction.js'
import { urlBasicAuthorization } from '../connection/url-credentials.js'
import { clearTimeout, setImmediate, setTimeout } from '../runtime/timers.js'

const CONNECTING = 0
const OPEN = 1
const CLOSED = 2

/** An `onopen`/`onmessage`/`onerror` handler, or null for none. */
export type EventSourceHandler = ((this: EventSource, event: Event) => unknown) | null
type Handler = EventSourceHandler

/** A connection to a server-sent event stream. */
export class EventSource extends EventTarget {
  /** The connection is being made, or remade after a reconnection delay. */
  static readonly CONNECTING = CONNECTING
  /** Events are arriving. */
  static readonly OPEN = OPEN
  /** Failed or closed; no reconnection follows. */
  static readonly CLOSED = CLOSED
  /** {@link EventSource.CONNECTING}, on every instance too. */
  declare readonly CONNECTING: 0
  /** {@link EventSource.OPEN}, on every instance too. */
  declare readonly OPEN: 1
  /** {@link EventSource.CLOSED}, on every instance too. */
  declare readonly CLOSED: 2

  readonly #url: string
  /** The URL fetched: without user information, which fetch refuses. */
  readonly #requestUrl: string
  /** `Authorization` from the URL's user information, sent after a 401; undefined without any. */
  readonly #urlAuthorization: string | undefined
  readonly #withCredentials: boolean
  readonly #dispatcher: Dispatcher | undefined
  readonly #maxEventSize: number
  readonly #delay: ReconnectionDelay
  #lastEventId = ''
  #readyState: number = CONNECTING
  /** The connection failed for good: no reconnection, whatever its pending tasks find. */
  #failed = false
  #abort: AbortController | null = null
  #timer: NodeJS.Timeout | null = null
  readonly #handlers: Record<'open' | 'message' | 'error', Handler> = { open: null, message: null, error: null }

  /**
   * @param url - the stream's URL, relative to the global origin when one is set; a string that does not parse throws a `SyntaxError` DOMException
   * @param init - `withCredentials`; conduit's `dispatcher`, and undici's `node: { dispatcher, reconnectionTime }`
   */
  constructor (url: string | URL, init?: EventSourceInit) {
    super()
    if (arguments.length === 0) throw new TypeError('EventSource constructor: 1 argument required, but only 0 present.')
    const text = toDOMString(url, 'EventSource constructor')
    const options = readEventSourceInit(init)
    let parsed: URL
    try {
      parsed = new URL(text, getGlobalOrigin())
    } catch {
      throw new DOMException(`EventSource constructor: invalid URL ${describeUrl(text)}`, 'SyntaxError')
    }
    this.#url = parsed.href
    this.#urlAuthorization = urlBasicAuthorization(parsed)
    parsed.username = ''
    parsed.password = ''
    this.#requestUrl = parsed.href
    this.#withCredentials = options.withCredentials
    this.#dispatcher = options.dispatcher
    this.#maxEventSize = options.maxEventSize
    this.#delay = new ReconnectionDelay(options.reconnectionTime)
    this.#connect(undefined)
  }

  /** The stream's URL, serialized. */
  get url (): string { return this.#url }
  /** True when made with `withCredentials: true` (cookies and authorization go cross-origin). */
  get withCredentials (): boolean { return this.#withCredentials }
  /** `CONNECTING` (0), `OPEN` (1) or `CLOSED` (2). */
  get readyState (): number { return this.#readyState }

  /** Handler for `open`. */
  get onopen (): Handler { return this.#handlers.open }
  /** Replaces the `open` handler; null removes it. */
  set onopen (fn: Handler) { this.#setHandler('open', fn) }
  /** Handler for `message` (events without an `event:` field). */
  get onmessage (): Handler { return this.#handlers.message }
  /** Replaces the `message` handler; null removes it. */
  set onmessage (fn: Handler) { this.#setHandler('message', fn) }
  /** Handler for `error`: a failed or dropped connection. */
  get onerror (): Handler { return this.#handlers.error }
  /** Replaces the `error` handler; null removes it. */
  set onerror (fn: Handler) { this.#setHandler('error', fn) }

  /** Stops the stream: no more events, no reconnection. */
  close (): void {
    if (this.#readyState === CLOSED) return
    this.#readyState = CLOSED
    if (this.#timer !== null) clearTimeout(this.#timer)
    this.#timer = null
    this.#abort?.abort()
    this.#abort = null
  }

  #setHandler (type: 'open' | 'message' | 'error', fn: Handler): void {
    const old = this.#handlers[type]
    if (old !== null) this.removeEventListener(type, old)
    const next = typeof fn === 'function' ? fn : null
    this.#handlers[type] = next
    if (next !== null) this.addEventListener(type, next)
  }

  #connect (authorization: string | undefined): void {
    const abort = new AbortController()
    this.#abort = abort
    const headers: Record<string, string> = { accept: 'text/event-stream' }
    const lastEventId = lastEventIdField(this.#lastEventId)
    if (lastEventId !== null) headers['last-event-id'] = lastEventId
    if (authorization !== undefined) headers.authorization = authorization
    fetch(this.#requestUrl, {
      headers,
      cache: 'no-store',
      mode: 'cors',
      credentials: this.#withCredentials ? 'include' : 'same-origin',
      redirect: 'follow',
      signal: abort.signal,
      dispatcher: this.#dispatcher
    }).then((response) => this.#onResponse(response, abort, authorization), (err: unknown) => {
      if (abort.signal.aborted) return
      // A redirect fetch refuses (a loop, another scheme) is the server's answer and would recur.
      if ((err as { cause?: unknown }).cause instanceof RedirectRefusedError) this.#fail()
      else this.#reestablish(false)
    })
  }

  async #onResponse (response: Response, abort: AbortController, authorization: string | undefined): Promise<void> {
    if (abort.signal.aborted) return
    if (response.status === 401 && authorization === undefined && this.#urlAuthorization !== undefined && !response.redirected) {
      // The Fetch standard's use-URL-credentials flag: the URL's credentials answer the challenge, once.
      await response.body?.cancel().catch(() => {})
      if (!abort.signal.aborted) this.#connect(this.#urlAuthorization)
      return
    }
    if (response.status !== 200 || mimeEssence(response.headers.get('content-type')) !== 'text/event-stream') {
      await response.body?.cancel().catch(() => {})
      this.#fail()
      return
    }
    this.#task(() => {
      this.#readyState = OPEN
      this.dispatchEvent(new Event('open'))
    })
    // A redirect may have moved the stream to another origin: events name where they came from.
    const origin = new URL(response.url).origin
    let events = 0
    const parser = new EventStreamParser({
      onEvent: (event) => {
        events++
        this.#deliver(event, origin)
      },
      onRetry: (ms) => { this.#delay.serverSaid(ms) }
    }, this.#lastEventId, this.#maxEventSize)
    const reader = response.body!.getReader()
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done || abort.signal.aborted) break
        parser.push(value)
      }
    } catch (err) {
      this.#lastEventId = parser.lastEventId
      if (abort.signal.aborted) return
      reader.cancel().catch(() => {})
      // Too large an event is the server's fault and would recur: fail. A dropped connection is
      // what reconnection is for.
      if (err instanceof EventTooLargeError) this.#fail()
      else this.#reestablish(events > 0)
      return
    }
    this.#lastEventId = parser.lastEventId
    if (!abort.signal.aborted) this.#reestablish(events > 0)
  }

  #deliver (event: StreamEvent, origin: string): void {
    this.#lastEventId = event.lastEventId
    this.#task(() => {
      this.dispatchEvent(MessageEvent.fromConnection(event.type, event.data, origin, event.lastEventId))
    })
  }

  /**
   * Runs `step` in a task of its own, after the tasks queued before it, unless the EventSource
   * is closed by then: the standard queues every event this way, so a listener's microtasks run
   * before the next event and no two events share a task.
   */
  #task (step: () => void): void {
    setImmediate(() => {
      if (this.#readyState !== CLOSED) step()
    })
  }

  /** Fails the connection: closed for good, one `error` event. */
  #fail (): void {
    if (this.#failed || this.#readyState === CLOSED) return
    this.#failed = true
    this.#abort?.abort()
    this.#abort = null
    this.#task(() => {
      this.close()
      this.dispatchEvent(new Event('error'))
    })
  }

  /**
   * Reestablishes the connection: `error` with CONNECTING, then a new request after the
   * reconnection delay. `delivered` says whether the connection that ended dispatched an event:
   * connections that end without one make the delay grow.
   */
  #reestablish (delivered: boolean): void {
    if (this.#failed || this.#readyState === CLOSED) return
    this.#abort = null
    const wait = this.#delay.next(delivered)
    this.#task(() => {
      this.#readyState = CONNECTING
      this.dispatchEvent(new Event('error'))
      if (this.#readyState !== CONNECTING) return
      // Held like the connection itself (undici lets the process exit here): an EventSource not
      // closed is waiting for events, whether the server is up or between two connections.
      this.#timer = setTimeout(() => {
        this.#timer = null
        if (this.#readyState === CONNECTING) this.#connect(undefined)
      }, wait)
    })
  }

}

defineConstants(EventSource, { CONNECTING, OPEN, CLOSED })
enumerableMembers(EventSource.prototype)
defineToStringTag(EventSource.prototype, 'EventSource')

/**
 * The `Last-Event-ID` value for `id`: its UTF-8 bytes, as the standard says (a header value is
 * bytes, carried here as a latin1 string) without white space at either end, as a header value
 * is normalized when it is set (an id of spaces alone is an empty value); null when there is no
 * id or the bytes cannot be a header value (a control character): then the header is left out,
 * as undici 8 does, and the stream keeps reconnecting.
 */
export function lastEventIdField (id: string): string | null {
  if (id === '') return null
  const bytes = trimOws(Buffer.from(id, 'utf8').toString('latin1'))
  return hasInvalidValueChar(bytes) ? null : bytes
}

/** What `new EventSource(url, init)` accepts. */
export interface EventSourceInit {
  /** Send credentials cross-origin. @defaultValue false */
  withCredentials?: boolean
  /** The dispatcher the stream is fetched through. @defaultValue the global dispatcher */
  dispatcher?: Dispatcher
  /** undici's extension member: the same dispatcher, the first reconnection time, and conduit's event size limit. */
  node?: {
    /** The dispatcher the stream is fetched through (undici's spelling). */
    dispatcher?: Dispatcher
    /** The first reconnection time, ms, until the server sends `retry:`. @defaultValue 3000 */
    reconnectionTime?: number
    /** The most bytes one event's data lines and any one line may hold; past it the connection fails. @defaultValue 16 MiB */
    maxEventSize?: number
  }
}
