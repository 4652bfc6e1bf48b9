/**
 * `NODE_DEBUG=conduit` line log, driven by the diagnostics channels so the transport itself
 * carries no logging code. A request whose dispatch options carry a caller tag (see
 * `caller-tag.ts`) is also logged under the namespace the tag names: fetch tags its requests
 * `fetch`, so `NODE_DEBUG=fetch` shows them alone. It subscribes only when `NODE_DEBUG` is set,
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
import { showOrigin, showUrl } from './redaction.js'
import type { ConnectParams, DiagnosticsRequest } from '../diagnostics.js'

/** The core namespace. */
export const CORE_NAMESPACE = 'conduit'
/** The namespace, and caller tag, of requests made through fetch(). */
export const FETCH_NAMESPACE = 'fetch'
/** The namespace, and caller tag, of WebSocket handshakes. */
export const WEBSOCKET_NAMESPACE = 'websocket'

/** The full URL of a request as log lines show it, user information hidden. */
export function requestUrl (request: { origin: unknown, path: string }): string {
  const path = request.path
  return path.startsWith('http://') || path.startsWith('https://') ? showUrl(path) : `${showOrigin(request.origin)}${path}`
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

interface ConnectMessage { connectParams: ConnectParams, caller?: string | null, error?: Error }
interface RequestMessage { request: DiagnosticsRequest & { method: string }, response?: { statusCode: number }, error?: Error }

/** The logger of each caller tag's namespace, made on first sight; null when it is not enabled. */
const taggedLoggers = new Map<string, DebugLogger | null>()

function taggedLogger (caller: string | null | undefined): DebugLogger | null {
  // The core namespace logs every request already.
  if (caller == null || caller === CORE_NAMESPACE) return null
  let logger = taggedLoggers.get(caller)
  if (logger === undefined) {
    const candidate = debuglog(caller)
    logger = candidate.enabled ? candidate : null
    taggedLoggers.set(caller, logger)
  }
  return logger
}

function install (core: DebugLogger): void {
  const coreOn = core.enabled
  const write = (caller: string | null | undefined, line: string): void => {
    if (coreOn) core(line)
    taggedLogger(caller)?.(line)
  }
  channels.beforeConnect.subscribe((m) => {
    const msg = m as ConnectMessage
    write(msg.caller, lines.connecting(msg.connectParams))
  })
  channels.connected.subscribe((m) => {
    const msg = m as ConnectMessage
    write(msg.caller, lines.connected(msg.connectParams))
  })
  channels.connectError.subscribe((m) => {
    const msg = m as ConnectMessage
    write(msg.caller, lines.connectError(msg.connectParams, msg.error!))
  })
  channels.sendHeaders.subscribe((m) => {
    const { request } = m as RequestMessage
    write(request.caller, lines.sending(request.method, requestUrl(request)))
  })
  // The websocket namespace shows a handshake as its connect and request lines; the answer is
  // its own `connection opened` line, written by the WebSocket.
  const responseCaller = (caller: string | null): string | null => caller === WEBSOCKET_NAMESPACE ? null : caller
  channels.headers.subscribe((m) => {
    const { request, response } = m as RequestMessage
    write(responseCaller(request.caller), lines.received(request.method, requestUrl(request), response!.statusCode))
  })
  channels.trailers.subscribe((m) => {
    // Published at the end of every response (trailers or not), as undici's log does.
    const { request } = m as RequestMessage
    write(responseCaller(request.caller), lines.trailers(request.method, requestUrl(request)))
  })
  channels.error.subscribe((m) => {
    const { request, error } = m as RequestMessage
    write(request.caller, lines.error(request.method, requestUrl(request), error!))
  })
}

let installed = false

/**
 * Subscribes the line log to the channels when `NODE_DEBUG` names any namespace; runs once.
 * Which namespaces a caller tag names is only known when a tagged request shows up, so any
 * `NODE_DEBUG` value subscribes; without one the channels stay unobserved.
 */
export function installDebugLog (): void {
  if (installed) return
  installed = true
  const core = debuglog(CORE_NAMESPACE)
  if (core.enabled || (process.env.NODE_DEBUG ?? '') !== '') install(core)
}
