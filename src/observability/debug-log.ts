/**
 * `NODE_DEBUG=conduit` (and `NODE_DEBUG=fetch`) line log, driven by the diagnostics channels so
 * the transport itself carries no logging code. It subscribes only when a namespace is enabled,
 * so with logging off the channels have no subscribers and publishing costs nothing.
 *
 * Lines: `connecting to <host> using <scheme>:h1`,
 * `connected to <host> using <scheme>:h1`, `sending request to <METHOD> <url>`,
 * `received response to <METHOD> <url> - HTTP <status>`, `trailers received from <METHOD> <url>`,
 * plus `connection to ... errored - <message>` and `request to <METHOD> <url> errored - <message>`.
 * @module
 */

import { debuglog } from 'node:util'
import type { DebugLogger } from 'node:util'
import { channels } from '../diagnostics.js'
import type { ConnectParams, DiagnosticsRequest } from '../diagnostics.js'

/** The core namespace. */
export const CORE_NAMESPACE = 'conduit'
/** The namespace for requests made through fetch(). */
export const FETCH_NAMESPACE = 'fetch'

/** The full URL of a request as log lines show it. */
export function requestUrl (request: { origin: string, path: string }): string {
  const path = request.path
  return path.startsWith('http://') || path.startsWith('https://') ? path : `${request.origin}${path}`
}

/** Line texts shared by the channel log and the debug interceptor, so both print the same shapes. */
export const lines = {
  connecting: (p: ConnectParams): string => `connecting to ${p.host} using ${p.protocol}${p.version}`,
  connected: (p: ConnectParams): string => `connected to ${p.host} using ${p.protocol}${p.version}`,
  connectError: (p: ConnectParams, err: Error): string => `connection to ${p.host} using ${p.protocol}${p.version} errored - ${err.message}`,
  sending: (method: string, url: string): string => `sending request to ${method} ${url}`,
  received: (method: string, url: string, status: number): string => `received response to ${method} ${url} - HTTP ${status}`,
  trailers: (method: string, url: string): string => `trailers received from ${method} ${url}`,
  error: (method: string, url: string, err: Error): string => `request to ${method} ${url} errored - ${err.message}`
}

interface ConnectMessage { connectParams: ConnectParams, fetch?: boolean, error?: Error }
interface RequestMessage { request: DiagnosticsRequest & { method: string }, response?: { statusCode: number }, error?: Error }

function install (core: DebugLogger, fetchLog: DebugLogger): void {
  const coreOn = core.enabled
  const fetchOn = fetchLog.enabled
  const write = (forFetch: boolean | undefined, line: string): void => {
    if (coreOn) core(line)
    if (fetchOn && forFetch === true) fetchLog(line)
  }
  channels.beforeConnect.subscribe((m) => {
    const msg = m as ConnectMessage
    write(msg.fetch, lines.connecting(msg.connectParams))
  })
  channels.connected.subscribe((m) => {
    const msg = m as ConnectMessage
    write(msg.fetch, lines.connected(msg.connectParams))
  })
  channels.connectError.subscribe((m) => {
    const msg = m as ConnectMessage
    write(msg.fetch, lines.connectError(msg.connectParams, msg.error!))
  })
  channels.sendHeaders.subscribe((m) => {
    const { request } = m as RequestMessage
    write(request.fetch, lines.sending(request.method, requestUrl(request)))
  })
  channels.headers.subscribe((m) => {
    const { request, response } = m as RequestMessage
    write(request.fetch, lines.received(request.method, requestUrl(request), response!.statusCode))
  })
  channels.trailers.subscribe((m) => {
    // Published at the end of every response (trailers or not), as undici's log does.
    const { request } = m as RequestMessage
    write(request.fetch, lines.trailers(request.method, requestUrl(request)))
  })
  channels.error.subscribe((m) => {
    const { request, error } = m as RequestMessage
    write(request.fetch, lines.error(request.method, requestUrl(request), error!))
  })
}

let installed = false

/** Subscribes the line log to the channels when `NODE_DEBUG` enables `conduit` or `fetch`; runs once. */
export function installDebugLog (): void {
  if (installed) return
  installed = true
  const core = debuglog(CORE_NAMESPACE)
  const fetchLog = debuglog(FETCH_NAMESPACE)
  if (core.enabled || fetchLog.enabled) install(core, fetchLog)
}
