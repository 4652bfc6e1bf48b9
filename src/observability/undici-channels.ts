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

/**
 * The `NODE_DEBUG` names under which the runtime's own bundled undici logs every message it sees
 * on undici's channel names. With one of them on, publishing conduit's requests there would make
 * the runtime log each of them a second time (in its own line shapes) beside conduit's lines.
 */
const RUNTIME_UNDICI_DEBUG_NAMES = new Set(['undici', 'fetch', 'websocket'])

/** True when `NODE_DEBUG` (as the process started with it) turns on the runtime undici's logs. */
function runtimeUndiciLogs (): boolean {
  return (process.env.NODE_DEBUG ?? '').split(/[\s,]+/).some((name) => RUNTIME_UNDICI_DEBUG_NAMES.has(name.toLowerCase()))
}

/**
 * Whether the undici-named channels are published; see {@link setUndiciChannels}. On by default,
 * off when `NODE_DEBUG` names `undici`, `fetch` or `websocket` (until `setUndiciChannels(true)`).
 */
let enabled = !runtimeUndiciLogs()

/**
 * Turns publishing on undici's channel names on or off for the whole process. It is on by
 * default, except when `NODE_DEBUG` names `undici`, `fetch` or `websocket`: the runtime's bundled
 * undici then logs everything on those names, conduit's requests included, a second time. Turn it
 * off when the application also uses undici and its subscribers must see undici's requests only;
 * conduit's requests stay visible on the `conduit:*` channels either way.
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
