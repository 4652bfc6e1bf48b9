/**
 * The `diagnostics_channel` channels the core publishes: the contract APM and tracing tools
 * subscribe to. Publishers check `hasSubscribers` first so an unobserved client pays nothing.
 *
 * Messages:
 * - `conduit:client:beforeConnect`, `conduit:client:connected`, `conduit:client:connectError`:
 *   `{ connectParams, connector, socket?, error? }`
 * - `conduit:client:sendHeaders`: `{ request, headers, socket }` (headers: the head as written)
 * - `conduit:request:create`: `{ request }`; `conduit:request:bodySent`: `{ request }`
 * - `conduit:request:headers`: `{ request, response: { statusCode, statusText, headers } }`
 * - `conduit:request:trailers`: `{ request, trailers }`; `conduit:request:error`: `{ request, error }`
 *
 * `request` carries `origin`, `method`, `path`, `headers` and `fetch` (true for fetch requests).
 * @module
 */

import diagnosticsChannel from 'node:diagnostics_channel'

/** Every channel the core publishes, by short name. */
export const channels = {
  beforeConnect: diagnosticsChannel.channel('conduit:client:beforeConnect'),
  connected: diagnosticsChannel.channel('conduit:client:connected'),
  connectError: diagnosticsChannel.channel('conduit:client:connectError'),
  sendHeaders: diagnosticsChannel.channel('conduit:client:sendHeaders'),
  create: diagnosticsChannel.channel('conduit:request:create'),
  bodySent: diagnosticsChannel.channel('conduit:request:bodySent'),
  headers: diagnosticsChannel.channel('conduit:request:headers'),
  trailers: diagnosticsChannel.channel('conduit:request:trailers'),
  error: diagnosticsChannel.channel('conduit:request:error')
} as const

/** What connect events describe: where the client connects to. */
export interface ConnectParams {
  host: string
  hostname: string
  protocol: string
  port: string
  servername: string | null
  /** Always `'h1'`. */
  version: string
}

/** The request as diagnostics messages show it. */
export interface DiagnosticsRequest {
  origin: string
  method: string
  path: string
  headers: unknown
  /** True when the request was made through fetch(). */
  fetch: boolean
}
