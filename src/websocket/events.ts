/**
 * The events a `WebSocket` fires: `MessageEvent` (message), `CloseEvent` (close) and
 * `ErrorEvent` (error), with the attributes and init dictionaries of the HTML and WebSockets
 * standards, on the runtime's own `Event`.
 * @module
 */

/** Init dictionary of {@link MessageEvent}. */
export interface MessageEventInit<T = unknown> extends EventInit {
  /** The message. */
  data?: T
  /** Origin of the sender (the WebSocket's URL origin). */
  origin?: string
  /** Last event id (EventSource); empty for WebSocket. */
  lastEventId?: string
  /** The sending object; null for WebSocket. */
  source?: unknown
  /** Transferred ports; none for WebSocket. */
  ports?: unknown[]
}

/** The frozen empty list every message without ports shares, so a message allocates none. */
const NO_PORTS: readonly unknown[] = Object.freeze([])

/** A message: `data` is a string, an `ArrayBuffer` or a `Blob`. */
export class MessageEvent<T = unknown> extends Event {
  readonly #data: T | null
  readonly #origin: string
  readonly #lastEventId: string
  readonly #source: unknown
  readonly #ports: readonly unknown[]

  constructor (type: string, init: MessageEventInit<T> = {}) {
    super(type, init)
    this.#data = init.data ?? null
    this.#origin = init.origin ?? ''
    this.#lastEventId = init.lastEventId ?? ''
    this.#source = init.source ?? null
    this.#ports = init.ports === undefined ? NO_PORTS : Object.freeze([...init.ports])
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
    super(type, init)
    this.#wasClean = init.wasClean ?? false
    this.#code = init.code ?? 0
    this.#reason = init.reason ?? ''
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
    super(type, init)
    this.#message = init.message ?? ''
    this.#filename = init.filename ?? ''
    this.#lineno = init.lineno ?? 0
    this.#colno = init.colno ?? 0
    this.#error = init.error
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
