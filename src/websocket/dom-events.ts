/**
 * The DOM events a `WebSocket` and an `EventSource` fire: `MessageEvent` (message), `CloseEvent`
 * (close) and `ErrorEvent` (error), with the attributes and init dictionaries of the HTML and
 * WebSockets standards, on the runtime's own `Event`. Their constructors convert their arguments
 * as WebIDL does (members read once, in lexicographic order, and converted to their types); the
 * connections build their events through a trusted path that skips what they know to hold.
 * They live beside the WebSocket, which fires all three; `src/eventsource/` takes `MessageEvent`.
 * @module
 */

import { describeValue } from '../validation/describe-value.js'
import type { EventInit } from './dom-types.js'
import { defineToStringTag, dictionaryArgument, enumerableMembers, requireArguments, toDOMString, toUSVString, toUnsignedInteger } from '../fetch/webidl.js'

/** Init dictionary of {@link MessageEvent}. */
export interface MessageEventInit<T = unknown> extends EventInit {
  /** The message. */
  data?: T
  /** Origin of the sender (the WebSocket's URL origin). */
  origin?: string
  /** Last event id (EventSource); empty for WebSocket. */
  lastEventId?: string
  /** The sending object (a `MessagePort`); null for WebSocket. */
  source?: unknown
  /** Transferred ports (`MessagePort`s); none for WebSocket. */
  ports?: unknown[]
}

/** The frozen empty list every message without ports shares, so a message allocates none. */
const NO_PORTS: readonly unknown[] = Object.freeze([])

/**
 * The members of the message event a connection is building (see `MessageEvent.fromConnection`),
 * read by the constructor instead of an init dictionary: no object and no conversion per message.
 */
let trusted = false
let trustedData: unknown = null
let trustedOrigin = ''
let trustedLastEventId = ''

/** A constructor's checked arguments: the type, the init dictionary, and EventInit's members read from it. */
interface EventArguments { name: string, dict: Record<string, unknown>, base: EventInit }

/**
 * Checks an event constructor's arguments and reads EventInit's members first (inherited
 * members come before a dictionary's own), in order.
 */
function eventArguments (count: number, type: unknown, init: unknown, where: string): EventArguments {
  requireArguments(count, 1, where)
  const name = toDOMString(type, where)
  const dict = dictionaryArgument(init, where)
  return { name, dict, base: { bubbles: Boolean(dict.bubbles), cancelable: Boolean(dict.cancelable), composed: Boolean(dict.composed) } }
}

/** Reads one dictionary member and converts it, or gives `fallback` when it is undefined. */
function member<T> (dict: Record<string, unknown>, key: string, fallback: T, convert: (value: unknown) => T): T {
  const value = dict[key]
  return value === undefined ? fallback : convert(value)
}

function isMessagePort (value: unknown): boolean {
  return typeof MessagePort === 'function' && value instanceof MessagePort
}

function messagePort (value: unknown, where: string): unknown {
  if (!isMessagePort(value)) throw new TypeError(`${where}: expected a MessagePort, got ${describeValue(value)}`)
  return value
}

function messagePorts (value: unknown, where: string): readonly unknown[] {
  if (value === undefined) return NO_PORTS
  if (value === null || typeof value !== 'object' || typeof (value as Partial<Iterable<unknown>>)[Symbol.iterator] !== 'function') {
    throw new TypeError(`${where}: ports must be a sequence of MessagePorts, got ${describeValue(value)}`)
  }
  return Object.freeze([...(value as Iterable<unknown>)].map((port) => messagePort(port, where)))
}

/** A message: `data` is a string, an `ArrayBuffer` or a `Blob`. */
export class MessageEvent<T = unknown> extends Event {
  #data: T | null
  #origin: string
  #lastEventId: string
  #source: unknown
  #ports: readonly unknown[]

  constructor (type: string, init: MessageEventInit<T> = {}) {
    if (trusted) {
      trusted = false
      super(type)
      this.#data = trustedData as T
      this.#origin = trustedOrigin
      this.#lastEventId = trustedLastEventId
      this.#source = null
      this.#ports = NO_PORTS
      trustedData = null
      return
    }
    const where = 'MessageEvent constructor'
    const { name, dict, base } = eventArguments(arguments.length, type, init, where)
    // Each member is read and converted before the next, in lexicographic order, as WebIDL reads a dictionary.
    const data = member<T | null>(dict, 'data', null, (value) => value as T)
    const lastEventId = member(dict, 'lastEventId', '', (value) => toDOMString(value, where))
    const origin = member(dict, 'origin', '', (value) => toUSVString(value, where))
    const ports = messagePorts(dict.ports, where)
    const source = member(dict, 'source', null, (value) => value === null ? null : messagePort(value, where))
    super(name, base)
    this.#data = data
    this.#lastEventId = lastEventId
    this.#origin = origin
    this.#ports = ports
    this.#source = source
  }

  /** The message. */
  get data (): T | null { return this.#data }
  /** Origin of the sender. */
  get origin (): string { return this.#origin }
  /** Last event id; empty for WebSocket messages. */
  get lastEventId (): string { return this.#lastEventId }
  /** The sending object; null for WebSocket messages. */
  get source (): unknown { return this.#source }
  /** Transferred ports; empty for WebSocket messages. */
  get ports (): readonly unknown[] { return this.#ports }

  /** The HTML standard's legacy initializer: sets every member at once, unless the event is being dispatched. */
  initMessageEvent (type: string, bubbles = false, cancelable = false, data: T | null = null, origin = '', lastEventId = '', source: unknown = null, ports: unknown[] = []): void {
    const where = 'MessageEvent.initMessageEvent'
    requireArguments(arguments.length, 1, where)
    const name = toDOMString(type, where)
    const convertedOrigin = toUSVString(origin, where)
    const convertedId = toDOMString(lastEventId, where)
    const convertedSource = source === null || source === undefined ? null : messagePort(source, where)
    const convertedPorts = messagePorts(ports, where)
    // initEvent does nothing while the event is dispatched; neither does the rest.
    if (this.eventPhase !== Event.NONE) return
    this.initEvent(name, Boolean(bubbles), Boolean(cancelable))
    this.#data = data
    this.#origin = convertedOrigin
    this.#lastEventId = convertedId
    this.#source = convertedSource
    this.#ports = convertedPorts
  }

  /** A message event of a connection: `data`, `origin` and `lastEventId` as they are, nothing converted. */
  static fromConnection<T> (type: string, data: T, origin: string, lastEventId = ''): MessageEvent<T> {
    trusted = true
    trustedData = data
    trustedOrigin = origin
    trustedLastEventId = lastEventId
    return new MessageEvent<T>(type)
  }
}

/** Init dictionary of {@link CloseEvent}. */
export interface CloseEventInit extends EventInit {
  /** Whether the close handshake completed. */
  wasClean?: boolean
  /** The close code. */
  code?: number
  /** The close reason. */
  reason?: string
}

/** The connection closed: `code` and `reason` from the server's close frame, or 1006 when there was none. */
export class CloseEvent extends Event {
  readonly #wasClean: boolean
  readonly #code: number
  readonly #reason: string

  constructor (type: string, init: CloseEventInit = {}) {
    const where = 'CloseEvent constructor'
    const { name, dict, base } = eventArguments(arguments.length, type, init, where)
    const code = member(dict, 'code', 0, (value) => toUnsignedInteger(value, 16, where))
    const reason = member(dict, 'reason', '', (value) => toUSVString(value, where))
    const wasClean = Boolean(dict.wasClean)
    super(name, base)
    this.#code = code
    this.#reason = reason
    this.#wasClean = wasClean
  }

  /** Whether the close handshake completed before the socket closed. */
  get wasClean (): boolean { return this.#wasClean }
  /** The close code. */
  get code (): number { return this.#code }
  /** The close reason. */
  get reason (): string { return this.#reason }
}

/** Init dictionary of {@link ErrorEvent}. */
export interface ErrorEventInit extends EventInit {
  /** Human-readable description. */
  message?: string
  /** Script location (unused by WebSocket). */
  filename?: string
  /** Line (unused by WebSocket). */
  lineno?: number
  /** Column (unused by WebSocket). */
  colno?: number
  /** The error. */
  error?: unknown
}

/** The connection failed; `error` says why. */
export class ErrorEvent extends Event {
  readonly #message: string
  readonly #filename: string
  readonly #lineno: number
  readonly #colno: number
  readonly #error: unknown

  constructor (type: string, init: ErrorEventInit = {}) {
    const where = 'ErrorEvent constructor'
    const { name, dict, base } = eventArguments(arguments.length, type, init, where)
    const colno = member(dict, 'colno', 0, (value) => toUnsignedInteger(value, 32, where))
    const error = dict.error
    const filename = member(dict, 'filename', '', (value) => toUSVString(value, where))
    const lineno = member(dict, 'lineno', 0, (value) => toUnsignedInteger(value, 32, where))
    const message = member(dict, 'message', '', (value) => toDOMString(value, where))
    super(name, base)
    this.#colno = colno
    this.#error = error
    this.#filename = filename
    this.#lineno = lineno
    this.#message = message
  }

  /** Human-readable description. */
  get message (): string { return this.#message }
  /** Script location; empty. */
  get filename (): string { return this.#filename }
  /** Line; 0. */
  get lineno (): number { return this.#lineno }
  /** Column; 0. */
  get colno (): number { return this.#colno }
  /** The error. */
  get error (): unknown { return this.#error }
}

/** The events a WebSocket dispatches, by type, as undici's `WebSocketEventMap` names them. */
export interface WebSocketEventMap {
  /** The connection closed. */
  close: CloseEvent
  /** The connection failed. */
  error: ErrorEvent
  /** A message arrived. */
  message: MessageEvent
  /** The connection opened. */
  open: Event
}

/** The events an EventSource dispatches, by type, as undici's `EventSourceEventMap` names them. */
export interface EventSourceEventMap {
  /** The connection failed or closed (to be reopened, or not). */
  error: ErrorEvent
  /** An event arrived. */
  message: MessageEvent
  /** The connection opened. */
  open: Event
}

for (const [EventClass, name] of [[MessageEvent, 'MessageEvent'], [CloseEvent, 'CloseEvent'], [ErrorEvent, 'ErrorEvent']] as const) {
  enumerableMembers(EventClass.prototype)
  defineToStringTag(EventClass.prototype, name)
}
