/**
 * Publishing one request's events on both channel families: `conduit:*` with conduit's request
 * view, and undici's names with {@link UndiciRequestView}. The transport calls one function per
 * event; each checks `hasSubscribers` before it builds anything, so an unobserved request pays
 * two property reads per event.
 * @module
 */

import type { Duplex } from 'node:stream'
import type { IncomingHeaders } from '../contracts/dispatch-contract.js'
import { channels, undiciChannels } from '../diagnostics.js'
import type { DiagnosticsRequest } from '../diagnostics.js'
import { activeUndiciChannel } from './undici-channels.js'
import { rawHeaderList, UndiciResponseView } from './undici-request-view.js'
import { redactHeaders } from './redaction.js'
import type { UndiciRequestView } from './undici-request-view.js'
import type { RequestTimings } from '../contracts/request-timings.js'

/** What a request offers the publishers: its two views and its head as written, redacted. */
export interface ObservedRequest {
  /** The `conduit:*` view, one object per request. */
  diagnostics (): DiagnosticsRequest
  /** The undici view, one object per request. */
  undiciView (): UndiciRequestView
  /** `head`, the request as a protocol wrote it, with credentials redacted. */
  diagnosticsHead (head: string): string
  /** Where the request's time went so far (conduit's own channels carry it; undici's do not). */
  readonly timings: RequestTimings
}

/**
 * `request:create`. Headers undici subscribers add with `addHeader()` while the message is
 * delivered go straight to the request's fields (its `appendField`), with no copy.
 */
export function publishCreate (req: ObservedRequest): void {
  if (channels.create.hasSubscribers) channels.create.publish({ request: req.diagnostics() })
  const undici = activeUndiciChannel(undiciChannels.create)
  if (undici !== null) undici.publish({ request: req.undiciView() })
}

/**
 * `client:sendHeaders`: the head is being written to `socket`. `head` is the head as written, or
 * (for a protocol that writes no text head) a function making its text, called only when a
 * channel listens.
 */
export function publishSendHeaders (req: ObservedRequest, head: string | (() => string), socket: Duplex | null): void {
  const undici = activeUndiciChannel(undiciChannels.sendHeaders)
  if (!channels.sendHeaders.hasSubscribers && undici === null) return
  const shown = req.diagnosticsHead(typeof head === 'string' ? head : head())
  if (channels.sendHeaders.hasSubscribers) channels.sendHeaders.publish({ request: req.diagnostics(), headers: shown, socket })
  if (undici !== null) undici.publish({ request: req.undiciView(), headers: shown, socket })
}

/** `request:bodyChunkSent`: a chunk of the request body is written. */
export function publishBodyChunkSent (req: ObservedRequest, chunk: Uint8Array | string): void {
  const undici = activeUndiciChannel(undiciChannels.bodyChunkSent)
  if (undici !== null) undici.publish({ request: req.undiciView(), chunk })
}

/** `request:bodySent`: the whole request was written. */
export function publishBodySent (req: ObservedRequest): void {
  if (channels.bodySent.hasSubscribers) channels.bodySent.publish({ request: req.diagnostics() })
  const undici = activeUndiciChannel(undiciChannels.bodySent)
  if (undici !== null) undici.publish({ request: req.undiciView() })
}

/** `request:headers`: the response head arrived. */
export function publishResponseHeaders (req: ObservedRequest, statusCode: number, statusText: string, headers: IncomingHeaders): void {
  if (channels.headers.hasSubscribers) {
    channels.headers.publish({ request: req.diagnostics(), response: { statusCode, statusText, headers: shown(headers) }, timings: req.timings })
  }
  const undici = activeUndiciChannel(undiciChannels.headers)
  if (undici !== null) undici.publish({ request: req.undiciView(), response: new UndiciResponseView(statusCode, statusText, headers) })
}

/** Response headers (or trailers) as observers may see them: `set-cookie` and other credentials redacted. */
function shown (headers: IncomingHeaders): IncomingHeaders {
  return redactHeaders(headers) as IncomingHeaders
}

/** `request:bodyChunkReceived`: a chunk of the response body arrived. */
export function publishBodyChunkReceived (req: ObservedRequest, chunk: Buffer): void {
  const undici = activeUndiciChannel(undiciChannels.bodyChunkReceived)
  if (undici !== null) undici.publish({ request: req.undiciView(), chunk })
}

/** `request:trailers`: the response ended. */
export function publishTrailers (req: ObservedRequest, trailers: IncomingHeaders): void {
  if (channels.trailers.hasSubscribers) channels.trailers.publish({ request: req.diagnostics(), trailers: shown(trailers), timings: req.timings })
  const undici = activeUndiciChannel(undiciChannels.trailers)
  // The raw list redacts as it goes: no redacted copy of the record is made for it.
  if (undici !== null) undici.publish({ request: req.undiciView(), trailers: rawHeaderList(trailers) })
}

/** `request:error`: the request failed. */
export function publishRequestError (req: ObservedRequest, error: Error): void {
  if (channels.error.hasSubscribers) channels.error.publish({ request: req.diagnostics(), error })
  const undici = activeUndiciChannel(undiciChannels.error)
  if (undici !== null) undici.publish({ request: req.undiciView(), error })
}

/** Which connection event: before connecting, connected, or failed to connect. */
export type ConnectEvent = 'beforeConnect' | 'connected' | 'connectError'

/**
 * A connection event. `message` is built only when a channel listens; the undici message is the
 * same object less conduit's `caller` field.
 */
export function publishConnectEvent (event: ConnectEvent, message: () => Record<string, unknown>): void {
  const own = channels[event]
  const undici = activeUndiciChannel(undiciChannels[event])
  if (!own.hasSubscribers && undici === null) return
  const built = message()
  if (own.hasSubscribers) own.publish(built)
  if (undici !== null) {
    const { caller: _caller, ...shape } = built
    undici.publish(shape)
  }
}
