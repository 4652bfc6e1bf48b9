/**
 * undici's `diagnostics_channel` names, on which the core publishes the same events as on
 * `conduit:*`, in undici's message shapes. Tracing tools written for undici (OpenTelemetry's
 * undici instrumentation, the APM SDKs built on it) subscribe to these names only; without them
 * an application that moves to conduit silently loses its outgoing-HTTP spans and its
 * `traceparent` propagation.
 *
 * Messages (as undici publishes them):
 * - `undici:client:beforeConnect`, `undici:client:connected`, `undici:client:connectError`:
 *   `{ connectParams, connector, socket?, error? }`
 * - `undici:client:sendHeaders`: `{ request, headers, socket }` (headers: the head as written)
 * - `undici:request:create`, `undici:request:bodySent`: `{ request }`
 * - `undici:request:bodyChunkSent`, `undici:request:bodyChunkReceived`: `{ request, chunk }`
 * - `undici:request:headers`: `{ request, response: { statusCode, statusText, headers } }`
 *   (headers: a flat list of name and value Buffers, as undici's raw headers)
 * - `undici:request:trailers`: `{ request, trailers }`; `undici:request:error`: `{ request, error }`
 * - `undici:proxy:connected`: `{ socket, connectParams }`
 *
 * `request` is an {@link UndiciRequestView}, one object for all events of one request.
 * An application that also loads undici and wants to tell the two apart turns these off with
 * {@link setUndiciChannels}; the `conduit:*` channels are always published.
 * @module
 */

import { undiciChannels } from '../diagnostics.js'
import { InvalidArgumentError } from '../errors.js'
import { describeValue } from '../validation/describe-value.js'

/** Whether the undici-named channels are published; see {@link setUndiciChannels}. */
let enabled = true

/**
 * Turns publishing on undici's channel names on or off for the whole process (default on).
 * Turn it off when the application also uses undici and its subscribers must see undici's
 * requests only; conduit's requests stay visible on the `conduit:*` channels either way.
 */
export function setUndiciChannels (on: boolean): void {
  if (typeof on !== 'boolean') throw new InvalidArgumentError(`setUndiciChannels expects true or false, got ${describeValue(on)}`)
  enabled = on
}

/** One diagnostics channel. */
type Channel = typeof undiciChannels.create

/** The channel `channel` of undici's set when it is published to and has a subscriber, else null. */
export function activeUndiciChannel (channel: Channel): Channel | null {
  return enabled && channel.hasSubscribers ? channel : null
}
