/**
 * One dispatched request inside a Client, as every wire protocol sees it: its validated fields
 * (structured until a protocol writes them), its body, and the handler calls.
 * It is also the request's {@link DispatchController}, so no extra object is made per request.
 * The handler invariants live here: start once, exactly one of end/error/upgrade, nothing after.
 * @module
 */

import type { Duplex } from 'node:stream'
import type { DispatchController, DispatchHandler, DispatchOptions, IncomingHeaders } from '../contracts/dispatch-contract.js'
import { InvalidArgumentError, RequestAbortedError, RequestContentLengthMismatchError } from '../errors.js'
import { describeValue } from '../validation/describe-value.js'
import { appendQuery, collectRequestFields, normalizeMethod, validateHost, validateMethod, validatePath, validateRequestFlags } from './request-fields.js'
import type { RequestFieldInfo } from './request-fields.js'
import { BODY_BLOB, BODY_NONE, BODY_READABLE, bodyKind, bodyLength, isReplayable } from './request-body.js'
import { isFormDataBody, multipartBlob } from './multipart-body.js'
import { withContentType } from './request-fields.js'
import type { DiagnosticsRequest } from '../diagnostics.js'
import { publishBodyChunkReceived, publishBodyChunkSent, publishBodySent, publishCreate, publishRequestError, publishResponseHeaders, publishTrailers } from '../observability/request-events.js'
import { UndiciRequestView } from '../observability/undici-request-view.js'
import { namesCredential, redactHead, sensitiveHeaderNames, sensitiveHeadersOf } from '../observability/redaction.js'
import { callerTagOf } from '../observability/caller-tag.js'
import { requestView } from '../observability/request-view.js'
import { MAX_TIMER_MS } from '../validation/timer-limit.js'
import type { ResponseSizeContext } from './connection-config.js'
import { LiveRequestTimings, NOT_YET } from '../observability/request-timings.js'
import type { ConnectTimes, TimingStamps } from '../observability/request-timings.js'
import type { RequestTimings } from '../contracts/request-timings.js'
import { monotonicNow } from '../runtime/timers.js'

/** What a request needs from whoever runs it (the Client, or the connection it was written to). */
export interface RequestRunner {
  /** The request was aborted by its controller or its signal. */
  abortRequest (request: ClientRequest, reason: Error): void
  /** The handler paused or resumed the response. */
  pauseRequest (request: ClientRequest): void
  resumeRequest (request: ClientRequest): void
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE'])

type AbortSignalLike = NonNullable<DispatchOptions['signal']>

/** What every request of one Client shares: where it goes and the client's defaults. */
export interface RequestTarget {
  /** The connection owner the request reports to. */
  runner: RequestRunner
  /** The client's origin. */
  origin: string
  /** `host` derived from the origin. */
  hostHeader: string
  /** The client's timeouts and content-length policy, used unless the request overrides them. */
  defaults: { headersTimeout: number, bodyTimeout: number, strictContentLength: boolean }
  /** What `onRequestStart` receives as context: undefined (as from undici) unless `maxResponseSize` is set. */
  startContext: ResponseSizeContext | undefined
}

/** A request queued on, or in flight in, a Client. */
export class ClientRequest implements DispatchController, TimingStamps {
  readonly origin: string
  readonly method: string
  readonly path: string
  readonly headers: DispatchOptions['headers']
  readonly body: unknown
  readonly bodyKind: number
  /** Bytes of the body, or -1 when it must be streamed to know. */
  readonly bodyLength: number
  readonly idempotent: boolean
  readonly blocking: boolean
  readonly upgrade: string | null
  readonly expectContinue: boolean
  readonly headersTimeout: number
  readonly bodyTimeout: number
  /** The caller tag of the dispatch options, carried to diagnostics messages unread. */
  readonly callerTag: string | null
  /** The TLS server name (SNI) a connection opened for this request uses, when the origin is an address. */
  readonly servername: string | null
  /** The caller's headers, validated and still structured: `[name, value, ...]` (see `collectRequestFields`); headers a diagnostics subscriber added come last. */
  get fields (): readonly string[] { return this.#fields }
  /** The `host` (HTTP/2: `:authority`) value: the caller's header or the one derived from the origin. */
  readonly authority: string
  /** The connection closes after this request. */
  readonly reset: boolean
  /** The IP type-of-service byte to mark the socket with, if the caller gave one. */
  readonly typeOfService: number | undefined
  /** A body/content-length mismatch found while preparing; reported when the request starts. */
  readonly prepareError: Error | null

  /** The connection the request was written to, while it is in flight. */
  runner: RequestRunner | null
  /** Set once the response head was delivered. */
  responseStarted = false
  /** Set once the handler got its final call. */
  completed = false
  /** Times this request was re-sent after a stale keep-alive connection failed it. */
  retries = 0

  // Where the request's time goes (`monotonicNow()`, NOT_YET until it happens): plain numbers on
  // the request, so that nothing is made per request unless someone reads `timings`.
  /** It reached the Client's queue. */
  readonly queuedAt: number = monotonicNow()
  /** A connection took it. */
  assignedAt = NOT_YET
  /** The setup of the connection it was the first request of; null on a reused connection. */
  connectTimes: ConnectTimes | null = null
  /** Its head was written. */
  headSentAt = NOT_YET
  /** Its last byte was written. */
  bodySentAt = NOT_YET
  /** The response head arrived. */
  responseStartAt = NOT_YET
  /** The response ended. */
  responseEndAt = NOT_YET

  readonly #handler: DispatchHandler
  #aborted = false
  #paused = false
  #reason: Error | null = null
  #signal: AbortSignalLike | null = null
  #onSignal: (() => void) | null = null
  #onBodyError: ((err: Error) => void) | null = null
  #upgrading = false
  /** Extra header names to redact, as the dispatch options gave them. */
  readonly #sensitive: unknown
  /** Passed to `onRequestStart`. */
  readonly #startContext: unknown
  #view: DiagnosticsRequest | null = null
  #undiciView: UndiciRequestView | null = null
  /** The fields behind {@link fields}; shared (and frozen) while empty, so only appended to once owned. */
  #fields: readonly string[]
  /** True while `undici:request:create` is delivered: the only time a subscriber's header reaches the wire. */
  #creating = false
  #timings: RequestTimings | null = null

  /** Validates and prepares everything; throws {@link InvalidArgumentError} before anything is sent. */
  constructor (target: RequestTarget, opts: DispatchOptions, handler: DispatchHandler) {
    // The redirect interceptor's option, read here only to refuse it.
    const maxRedirections = (opts as { maxRedirections?: unknown }).maxRedirections
    if (maxRedirections != null && maxRedirections !== 0) {
      // Reaching the transport means no redirect interceptor took it: following redirects is
      // the interceptor's job, and silently not doing so would be worse than refusing.
      throw new InvalidArgumentError(`maxRedirections is not a request option here, got ${describeValue(maxRedirections)}: compose interceptors.redirect() to follow redirects`)
    }
    validateMethod(opts.method)
    validateRequestFlags(opts)
    const method = normalizeMethod(opts.method)
    const path = appendQuery(opts.path, opts.query)
    validatePath(path, method)
    // `upgrade: false` asks for no upgrade, as undici reads it; `true` names no protocol.
    const givenUpgrade = opts.upgrade === false ? null : opts.upgrade ?? null
    if (givenUpgrade !== null && (typeof givenUpgrade !== 'string' || !/^[!#$%&'*+\-.^_`|~0-9A-Za-z/ ,]+$/.test(givenUpgrade))) {
      throw new InvalidArgumentError(`invalid upgrade: ${JSON.stringify(givenUpgrade)} (must be a protocol list)`)
    }
    const upgrade = givenUpgrade as string | null
    if ((upgrade !== null || method === 'CONNECT') && typeof handler.onRequestUpgrade !== 'function') {
      throw new InvalidArgumentError(`${method === 'CONNECT' ? 'CONNECT' : 'upgrade'} requests need a handler with onRequestUpgrade`)
    }
    const defaults = target.defaults
    this.headersTimeout = timeoutOption('headersTimeout', opts.headersTimeout, defaults.headersTimeout)
    this.bodyTimeout = timeoutOption('bodyTimeout', opts.bodyTimeout, defaults.bodyTimeout)
    // A FormData goes out as multipart/form-data (as undici sends it), a Blob of known length.
    const body = isFormDataBody(opts.body) ? multipartBlob(opts.body) : opts.body
    const kind = bodyKind(body)
    const info: RequestFieldInfo = { declaredLength: -1, reset: opts.reset === true, host: undefined, expectContinue: opts.expectContinue === true }
    this.#fields = collectRequestFields(opts.headers, info)
    // A Blob's type is its content type, unless the caller set one.
    if (kind === BODY_BLOB) this.#fields = withContentType(this.#fields, (body as Blob).type)
    const expectContinue = info.expectContinue && kind !== BODY_NONE
    // The default host comes from a parsed origin; only a caller's `host` header needs checking.
    if (info.host !== undefined) validateHost(info.host)
    this.authority = info.host ?? target.hostHeader
    // A HEAD answer's framing cannot be checked: a server that sends the body anyway, later than
    // the head, would have it read as the next request's response. Its connection is not reused
    // (as undici does), unless the caller says `reset: false`.
    this.reset = info.reset || (method === 'HEAD' && opts.reset !== false)
    this.typeOfService = opts.typeOfService ?? undefined
    let length = bodyLength(body, kind)
    let prepareError: Error | null = null
    if (info.declaredLength !== -1) {
      if (length === -1) length = info.declaredLength
      else if (length !== info.declaredLength && defaults.strictContentLength) {
        prepareError = new RequestContentLengthMismatchError(`request body is ${length} bytes but its content-length header says ${info.declaredLength}`)
      }
    }

    this.runner = target.runner
    this.origin = target.origin
    this.method = method
    this.path = path
    this.headers = opts.headers
    this.body = body
    this.bodyKind = kind
    this.bodyLength = length
    this.idempotent = opts.idempotent ?? IDEMPOTENT.has(method)
    this.blocking = opts.blocking ?? method !== 'HEAD'
    this.upgrade = upgrade
    this.expectContinue = expectContinue
    this.callerTag = callerTagOf(opts)
    const servername = opts.servername
    if (servername != null && (typeof servername !== 'string' || servername === '')) {
      throw new InvalidArgumentError(`servername must be a non-empty string, got ${describeValue(servername)}`)
    }
    this.servername = servername ?? null
    this.prepareError = prepareError
    this.#handler = handler
    this.#startContext = target.startContext
    this.#sensitive = sensitiveHeadersOf(opts)

    // Checked at the public dispatch(), where the options entered conduit.
    this.#signal = opts.signal ?? null
    if (kind === BODY_READABLE) {
      // Listen from the start: a stream that fails while the request waits in the queue must
      // fail the request, not crash the process with an unhandled 'error'.
      this.#onBodyError = (err: Error) => this.abort(err)
      ;(opts.body as NodeJS.ReadableStream).on('error', this.#onBodyError)
    }
    this.#creating = true
    try {
      publishCreate(this)
    } finally {
      this.#creating = false
    }
  }

  /** Puts a header a diagnostics subscriber added (checked by the view) on the wire, while `request:create` is delivered. */
  appendField (name: string, value: string): void {
    if (!this.#creating) return
    // collectRequestFields returns a fresh array, except the shared empty one for no headers.
    if (this.#fields.length === 0) this.#fields = [name, value]
    else (this.#fields as string[]).push(name, value)
  }

  /**
   * The request as diagnostics messages show it: one object for all of this request's events (so
   * subscribers can correlate them), built on first use, with credentials redacted. The request
   * itself is never published: through its connection and body it reaches raw bytes on the wire.
   */
  diagnostics (): DiagnosticsRequest {
    this.#view ??= requestView(this, this.#sensitive, this.callerTag)
    return this.#view
  }

  /** The request as undici's diagnostics messages show it; one object for all of its events. */
  undiciView (): UndiciRequestView {
    this.#undiciView ??= new UndiciRequestView(this)
    return this.#undiciView
  }

  /** The extra header names (lower-case) whose values diagnostics show redacted. */
  sensitiveNames (): ReadonlySet<string> {
    return sensitiveHeaderNames(this.#sensitive)
  }

  /** `head`, the request as a protocol wrote it, with credentials redacted, for the `sendHeaders` diagnostics message. */
  diagnosticsHead (head: string): string {
    const extra = this.sensitiveNames()
    // The transport's own lines (host, framing, connection) never hold a credential: a head whose
    // fields name none has nothing to hide, and is not split into lines to find that out.
    if (extra.size === 0 && !namesCredential(this.#fields)) return head
    return redactHead(head, extra)
  }

  /** Where this request's time went so far; made on first read. */
  get timings (): RequestTimings {
    this.#timings ??= new LiveRequestTimings(this)
    return this.#timings
  }

  /**
   * A connection takes the request (again, when it is re-sent): `setup` is that connection's
   * setup when this is its first request, null when the connection served others before.
   */
  assigned (setup: ConnectTimes | null): void {
    this.assignedAt = monotonicNow()
    this.connectTimes = setup
    this.headSentAt = this.bodySentAt = NOT_YET
  }

  /** The protocol wrote the request head. */
  headSent (): void {
    this.headSentAt = monotonicNow()
  }

  get aborted (): boolean { return this.#aborted }
  get paused (): boolean { return this.#paused }
  get reason (): Error | null { return this.#reason }

  /** True when the body can be sent again on another connection. */
  get replayable (): boolean {
    return isReplayable(this.bodyKind)
  }

  abort (reason: Error): void {
    if ((this.completed && !this.#upgrading) || this.#aborted) return
    this.#aborted = true
    this.#reason = reason ?? new RequestAbortedError()
    if (!this.#upgrading) this.runner?.abortRequest(this, this.#reason)
  }

  pause (): void {
    if (this.#paused || this.completed) return
    this.#paused = true
    this.runner?.pauseRequest(this)
  }

  resume (): void {
    if (!this.#paused) return
    this.#paused = false
    if (!this.completed) this.runner?.resumeRequest(this)
  }

  /** Calls `onRequestStart` and arms the abort signal. Returns false if the request already ended. */
  start (): boolean {
    const signal = this.#signal
    if (signal !== null) {
      if (signal.aborted) {
        this.abort(toError(signal.reason))
        return false
      }
      this.#onSignal = () => this.abort(toError(signal.reason))
      signal.addEventListener('abort', this.#onSignal)
    }
    try {
      this.#handler.onRequestStart?.(this, this.#startContext)
    } catch (err) {
      // The dispatch throws this error back to its caller; nothing of the request may linger.
      this.completed = true
      this.#cleanup()
      throw err
    }
    if (this.completed) return false
    if (this.prepareError !== null) {
      this.fail(this.prepareError)
      return false
    }
    return true
  }

  /** A chunk of the request body goes to the socket: tells handlers that still listen for it. */
  bodyChunkSent (chunk: Uint8Array | string): void {
    if (this.completed) return
    publishBodyChunkSent(this, chunk)
    this.#handler.onBodySent?.(chunk)
  }

  /**
   * The whole request (head and body) is written: tells the diagnostics channels, then the
   * handler. A handler that throws fails the request, as undici does.
   */
  requestSent (): void {
    this.bodySentAt = monotonicNow()
    publishBodySent(this)
    if (this.completed) return
    try {
      this.#handler.onRequestSent?.()
    } catch (err) {
      this.abort(toError(err))
    }
  }

  /** Delivers an informational (1xx) head other than 100 Continue and 101. */
  onInformation (statusCode: number, headers: IncomingHeaders): void {
    if (!this.completed) this.#handler.onResponseInformation?.(this, statusCode, headers)
  }

  /** Delivers the response head. */
  onHead (statusCode: number, headers: IncomingHeaders, statusText: string): void {
    this.responseStarted = true
    this.responseStartAt = monotonicNow()
    publishResponseHeaders(this, statusCode, statusText, headers)
    this.#handler.onResponseStart?.(this, statusCode, headers, statusText)
  }

  /** Delivers a body chunk. */
  onData (chunk: Buffer): void {
    publishBodyChunkReceived(this, chunk)
    this.#handler.onResponseData?.(this, chunk)
  }

  /** Ends the dispatch successfully. */
  end (trailers: IncomingHeaders): void {
    if (this.completed) return
    this.completed = true
    this.responseEndAt = monotonicNow()
    this.#cleanup()
    publishTrailers(this, trailers)
    try {
      this.#handler.onResponseEnd?.(this, trailers)
    } catch (err) {
      // As undici: a throwing end hook fails the dispatch, so the caller sees the error instead of waiting.
      publishRequestError(this, toError(err))
      this.#handler.onResponseError?.(this, toError(err))
    }
  }

  /** Ends the dispatch with `err`; a no-op once it ended. */
  fail (err: Error): void {
    if (this.completed) return
    this.completed = true
    this.#cleanup()
    publishRequestError(this, err)
    this.#handler.onResponseError?.(this, err)
  }

  /** Hands the socket to the handler after 101 or a CONNECT 2xx; ends the dispatch. */
  upgraded (statusCode: number, headers: IncomingHeaders, socket: Duplex): void {
    if (this.completed) {
      socket.destroy()
      return
    }
    this.completed = true
    this.responseStartAt = this.responseEndAt = monotonicNow()
    this.#cleanup()
    publishResponseHeaders(this, statusCode, '', headers)
    this.#upgrading = true
    try {
      this.#handler.onRequestUpgrade!(this, statusCode, headers, socket)
    } finally {
      this.#upgrading = false
    }
    // A handler that aborts while taking the socket refuses the upgrade: it gets its error back.
    if (this.#aborted) this.#handler.onResponseError?.(this, this.#reason!)
  }

  #cleanup (): void {
    this.runner = null
    if (this.#onBodyError !== null) {
      (this.body as NodeJS.ReadableStream).off('error', this.#onBodyError)
      this.#onBodyError = null
    }
    if (this.#onSignal !== null) {
      this.#signal!.removeEventListener('abort', this.#onSignal)
      this.#onSignal = null
    }
  }
}

function toError (reason: unknown): Error {
  if (reason instanceof Error) return reason
  return new RequestAbortedError(reason === undefined ? 'Request aborted' : `Request aborted: ${String(reason)}`, { cause: reason })
}

function timeoutOption (name: string, value: unknown, fallback: number): number {
  if (value == null) return fallback
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0 || value > MAX_TIMER_MS) {
    throw new InvalidArgumentError(`${name} must be a number of milliseconds from 0 to ${MAX_TIMER_MS}, got ${describeValue(value)}`)
  }
  return value
}
