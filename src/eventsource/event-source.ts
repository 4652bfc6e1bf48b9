/**
 * `EventSource` (HTML standard, "Server-sent events") on conduit's fetch, so any dispatcher —
 * an Agent, a ProxyAgent, a composed stack with the dns or debug interceptor — carries the
 * stream. The processing model: announce the connection on a `200 text/event-stream`, fail it
 * (no more reconnection) on any other response or on `close()`, reestablish it after the
 * reconnection time on a network error or when the body ends, sending `Last-Event-ID`.
 * @module
 */

import type { Dispatcher } from '../dispatcher/dispatcher.js'
import { fetch } from '../fetch/fetch.js'
import type { Response } from '../fetch/response.js'
import { EventStreamParser, EventTooLargeError } from './event-stream-parser.js'
import { MessageEvent } from '../websocket/events.js'
import type { StreamEvent } from './event-stream-parser.js'
import { readEventSourceInit } from './event-source-init.js'
import { mimeEssence } from '../fetch/mime.js'
import { MAX_TIMER_MS } from '../validation/timer-limit.js'
import { describeUrl } from '../observability/redaction.js'
import { clearTimeout, setTimeout } from '../runtime/timers.js'

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
  readonly #withCredentials: boolean
  readonly #dispatcher: Dispatcher | undefined
  readonly #maxEventSize: number
  #reconnectionTime: number
  #lastEventId = ''
  #readyState: number = CONNECTING
  #abort: AbortController | null = null
  #timer: NodeJS.Timeout | null = null
  readonly #handlers: Record<'open' | 'message' | 'error', Handler> = { open: null, message: null, error: null }

  /**
   * @param url - the stream's URL; a string that does not parse throws a `SyntaxError` DOMException
   * @param init - `withCredentials`; conduit's `dispatcher`, and undici's `node: { dispatcher, reconnectionTime }`
   */
  constructor (url: string | URL, init?: EventSourceInit) {
    super()
    if (arguments.length === 0) throw new TypeError('EventSource constructor: 1 argument required, but only 0 present.')
    const options = readEventSourceInit(init)
    let parsed: URL
    try {
      parsed = new URL(String(url))
    } catch {
      throw new DOMException(`EventSource constructor: invalid URL ${describeUrl(String(url))}`, 'SyntaxError')
    }
    this.#url = parsed.href
    this.#withCredentials = options.withCredentials
    this.#dispatcher = options.dispatcher
    this.#reconnectionTime = options.reconnectionTime
    this.#maxEventSize = options.maxEventSize
    this.#connect()
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

  #connect (): void {
    const abort = new AbortController()
    this.#abort = abort
    const headers: Record<string, string> = { accept: 'text/event-stream' }
    if (this.#lastEventId !== '') headers['last-event-id'] = this.#lastEventId
    fetch(this.#url, {
      headers,
      cache: 'no-store',
      mode: 'cors',
      credentials: this.#withCredentials ? 'include' : 'same-origin',
      redirect: 'follow',
      signal: abort.signal,
      dispatcher: this.#dispatcher
    }).then((response) => this.#onResponse(response, abort), () => {
      if (!abort.signal.aborted) this.#reestablish()
    })
  }

  async #onResponse (response: Response, abort: AbortController): Promise<void> {
    if (abort.signal.aborted) return
    if (response.status !== 200 || mimeEssence(response.headers.get('content-type')) !== 'text/event-stream') {
      await response.body?.cancel().catch(() => {})
      this.#fail()
      return
    }
    this.#readyState = OPEN
    this.dispatchEvent(new Event('open'))
    // A redirect may have moved the stream to another origin: events name where they came from.
    const origin = new URL(response.url).origin
    const parser = new EventStreamParser({
      onEvent: (event) => this.#deliver(event, origin, abort),
      onRetry: (ms) => { this.#reconnectionTime = ms }
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
      else this.#reestablish()
      return
    }
    this.#lastEventId = parser.lastEventId
    if (!abort.signal.aborted) this.#reestablish()
  }

  #deliver (event: StreamEvent, origin: string, abort: AbortController): void {
    this.#lastEventId = event.lastEventId
    if (abort.signal.aborted || this.#readyState === CLOSED) return
    this.dispatchEvent(new MessageEvent(event.type, { data: event.data, origin, lastEventId: event.lastEventId }))
  }

  /** Fails the connection: closed for good, one `error` event. */
  #fail (): void {
    if (this.#readyState === CLOSED) return
    this.close()
    this.dispatchEvent(new Event('error'))
  }

  /** Reestablishes the connection after the reconnection time, announcing it with `error`. */
  #reestablish (): void {
    if (this.#readyState === CLOSED) return
    this.#abort = null
    this.#readyState = CONNECTING
    this.dispatchEvent(new Event('error'))
    if (this.#readyState !== CONNECTING) return
    // Held like the connection itself (undici lets the process exit here): an EventSource not
    // closed is waiting for events, whether the server is up or between two connections.
    this.#timer = setTimeout(() => {
      this.#timer = null
      if (this.#readyState === CONNECTING) this.#connect()
    }, Math.min(this.#reconnectionTime, MAX_TIMER_MS))
  }
}

for (const [name, value] of [['CONNECTING', CONNECTING], ['OPEN', OPEN], ['CLOSED', CLOSED]] as const) {
  Object.defineProperty(EventSource.prototype, name, { value, enumerable: true })
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
    /** The most bytes one event's lines may hold; past it the connection fails. @defaultValue 16 MiB */
    maxEventSize?: number
  }
}
