/**
 * The dispatch contract itself: options, handler hooks and the controller, as types only. It
 * imports nothing at run time, so every module (errors included) can depend on it without a cycle.
 * The hook shape is undici v7's on purpose, so interceptors written for it run here unchanged.
 * @module
 */

import type { Duplex } from 'node:stream'
import type { IncomingHttpHeaders } from 'node:http'
import type { RequestTimings } from './request-timings.js'

/** Response or trailer headers: lower-case name to value (repeated headers as an array). */
export type IncomingHeaders = Record<string, string | string[]>

/**
 * Headers as a handler's hooks take them: {@link IncomingHeaders} or Node's `IncomingHttpHeaders`
 * (whose values may be `undefined`), so a handler may pass on headers it got from `node:http`.
 * conduit itself always calls the hooks with {@link IncomingHeaders}.
 */
export type HookHeaders = Record<string, string | string[] | undefined>

/**
 * A request method: the registered ones by name, any other token as a string (undici's
 * `Dispatcher.HttpMethod`; `string & {}` keeps the names offered by editors).
 */
export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE' | 'CONNECT' | 'OPTIONS' | 'TRACE' | 'PATCH' | 'QUERY' | (string & {})

/** Request headers as callers may give them: a record, a flat `[name, value, ...]` array, or pairs. */
export type OutgoingHeaders =
  | Record<string, string | string[] | number | undefined | null>
  | string[]
  | Iterable<readonly [string, string | string[] | undefined]>
  | IncomingHttpHeaders

/** A FormData (conduit's, the runtime's or undici's), sent as `multipart/form-data`: what the transport reads of it. */
export interface FormDataBody {
  /** The entries, in order: a string value or a Blob (a File). */
  entries (): Iterable<[string, unknown]>
}

/** A request body as the transport accepts it. */
export type DispatchBody =
  | FormDataBody
  | string
  | Buffer
  | Uint8Array
  | Blob
  | NodeJS.ReadableStream
  | AsyncIterable<Uint8Array | string>
  | Iterable<Uint8Array | string>
  | null

/** Options of one dispatch: where, what, and how long to wait. */
export interface DispatchOptions {
  /** Target origin, e.g. `http://127.0.0.1:3000`; required on an Agent, implied on a Client. */
  origin?: string | URL
  /** Path with query, starting with `/` (or `*`, or an absolute URL for proxies). */
  path: string
  /** Request method, e.g. `GET`. */
  method: string
  /** Request body. */
  body?: DispatchBody | undefined
  /** Request headers. */
  headers?: OutgoingHeaders | null | undefined
  /** Query parameters appended to `path`. */
  query?: Record<string, unknown> | undefined
  /** Whether the request may be retried or pipelined safely; defaults by method. */
  idempotent?: boolean | undefined
  /** Whether later requests on the connection must wait for this one's response. */
  blocking?: boolean | undefined
  /**
   * Protocol to upgrade to (`Upgrade` header); the response is delivered through `onRequestUpgrade`.
   * Typed as undici types it; a boolean is refused with `InvalidArgumentError`, as undici refuses it.
   */
  upgrade?: boolean | string | null | undefined
  /** Close the connection after this request. */
  reset?: boolean | undefined
  /** Send `Expect: 100-continue` and wait before sending the body. */
  expectContinue?: boolean | undefined
  /** IP type-of-service byte (0 to 255) for the connection the request goes out on (HTTP/1.1). */
  typeOfService?: number | null | undefined
  /**
   * TLS server name (SNI, and the name the certificate is checked against) for a connection
   * this request opens, when the origin is an IP address, as the dns interceptor sends it.
   */
  servername?: string | null | undefined
  /** Milliseconds to wait for the response head; overrides the dispatcher's. */
  headersTimeout?: number | null | undefined
  /** Milliseconds allowed between body chunks; overrides the dispatcher's. */
  bodyTimeout?: number | null | undefined
  /** Aborts the dispatch when signalled. */
  signal?: AbortSignal | AbortSignalLike | null | undefined
}

/** The part of an AbortSignal a dispatch uses, so signals from other realms and polyfills work. */
export interface AbortSignalLike {
  /** True once the signal fired. */
  readonly aborted: boolean
  /** Why it fired. */
  readonly reason?: unknown
  /** Registers the `'abort'` listener. */
  addEventListener (type: 'abort', listener: () => void, options?: { once?: boolean }): void
  /** Removes the `'abort'` listener. */
  removeEventListener (type: 'abort', listener: () => void): void
}

/** Lets a handler pause, resume or abort the dispatch it is handling. */
export interface DispatchController {
  /** True once `abort` was called or the dispatch was cancelled. */
  readonly aborted: boolean
  /** True while the response is paused. */
  readonly paused: boolean
  /** The abort reason, or null. */
  readonly reason: Error | null
  /** Cancels the dispatch; the handler then receives `onResponseError(reason)` unless it already ended. */
  abort (reason: Error): void
  /** Stops delivery of response data until `resume()`. */
  pause (): void
  /** Resumes delivery after `pause()`. */
  resume (): void
  /**
   * Where the request's time went so far, when a connection carries it (conduit's Client, and
   * every controller in front of one); null or absent for a response no connection produced (a
   * mock reply, a cache hit). Reading it is what builds it: an interceptor that never reads it
   * costs nothing.
   */
  readonly timings?: RequestTimings | null
}

/** The hooks a dispatch calls; exactly one of `onResponseEnd` / `onResponseError` ends every dispatch. */
export interface DispatchHandler {
  /** The request is about to be sent; `context` carries per-dispatch data (e.g. retry state). */
  onRequestStart?(controller: DispatchController, context: unknown): void
  /** The server switched protocols (101 or CONNECT 2xx); the socket now belongs to the handler. */
  onRequestUpgrade?(controller: DispatchController, statusCode: number, headers: HookHeaders, socket: Duplex): void
  /**
   * An informational (1xx) response arrived, such as 103 Early Hints; the final response follows.
   * Kept apart from `onResponseStart` so that hook still runs at most once per dispatch.
   */
  onResponseInformation?(controller: DispatchController, statusCode: number, headers: HookHeaders): void
  /** The response head arrived. */
  onResponseStart?(controller: DispatchController, statusCode: number, headers: HookHeaders, statusMessage?: string): void
  /** A chunk of the response body arrived. */
  onResponseData?(controller: DispatchController, chunk: Buffer): void
  /** The response completed; trailers are empty unless the server sent some. */
  onResponseEnd?(controller: DispatchController, trailers: HookHeaders): void
  /** The dispatch failed. */
  onResponseError?(controller: DispatchController, error: Error): void
  /**
   * A chunk of the request body was handed to the socket. Not part of undici v7's hooks: kept so
   * the older handler shape's `onBodySent` keeps working (the adapter and DecoratorHandler forward it).
   */
  onBodySent?(chunk: Uint8Array | string): void
  /**
   * The whole request (head and body) was handed to the socket or stream; called once, before the
   * response head, by the transport on HTTP/1.1 and HTTP/2 and by MockAgent, as undici 8 does.
   */
  onRequestSent?(): void
}

/** The older handler shape (undici before v7, and the runtime's built-in fetch). */
export interface LegacyDispatchHandler {
  /** The request is about to be sent; `abort` cancels it. */
  onConnect?(abort: (err?: Error) => void, context?: unknown): void
  /** The dispatch failed. */
  onError?(err: Error): void
  /** The server switched protocols; headers come as a flat raw array. */
  onUpgrade?(statusCode: number, headers: Buffer[] | string[] | null, socket: Duplex): void
  /** The response started (before `onHeaders`). */
  onResponseStarted?(): void
  /** The response head arrived; return false to pause until `resume` is called. */
  onHeaders?(statusCode: number, headers: Buffer[], resume: () => void, statusText?: string): boolean | void
  /** A body chunk arrived; return false to pause. */
  onData?(chunk: Buffer): boolean | void
  /** The response completed; trailers come as a flat raw array. */
  onComplete?(trailers: Buffer[] | string[] | null): void
  /** A chunk of the request body was written. */
  onBodySent?(chunk: unknown, total?: number): void
  /** The whole request was written. */
  onRequestSent?(): void
}

/** A dispatch function: returns false when the dispatcher is busy (wait for `'drain'`). */
export type Dispatch = (opts: DispatchOptions, handler: DispatchHandler) => boolean

/** Anything requests can be dispatched to: what the request API needs of a dispatcher. */
export interface DispatchTarget {
  /** Starts one request; see {@link Dispatch}. */
  dispatch (opts: DispatchOptions, handler: DispatchHandler): boolean
}

/** An interceptor wraps a dispatch function in another. */
export type Interceptor = (dispatch: Dispatch) => Dispatch

/**
 * Optional hooks an interceptor may attach to the dispatch function it returns, to learn when
 * the composed dispatcher closes or is destroyed (for example to end a backoff wait at once).
 * `onClose` resolves once the interceptor's own pending work has ended; new requests after it
 * should fail with `ClientClosedError`. `onDestroy` ends pending work with `reason` at once.
 */
export interface DispatchLifecycle {
  /** Called by `close()` before the base dispatcher closes. */
  onClose?: () => Promise<void>
  /** Called by `destroy()` before the base dispatcher is destroyed. */
  onDestroy?: (reason: Error) => void
}
