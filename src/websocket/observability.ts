/**
 * What a WebSocket tells the outside world besides its events: the diagnostics channels (under
 * conduit's names and undici's, with undici's message shapes), the one `NODE_DEBUG=websocket`
 * line that belongs to the WebSocket itself (`connection opened <address>`; the handshake's
 * connect and request lines come from the core, which writes the lines of requests tagged
 * `websocket` under that namespace), and the `conduit:websocket` decision log: handshake
 * failures, close reasons, limit hits, socket errors, pings and pongs.
 * @module
 */

import type { Duplex } from 'node:stream'
import { debuglog } from 'node:util'
import type { IncomingHeaders } from '../contracts/dispatch-contract.js'
import { channels, undiciWebSocketChannels } from '../diagnostics.js'
import { activeUndiciChannel } from '../observability/undici-channels.js'
import { WEBSOCKET_NAMESPACE } from '../observability/debug-log.js'

const lifecycleLog = debuglog(WEBSOCKET_NAMESPACE)
const decisionLog = debuglog('conduit:websocket')

type Channel = typeof channels.websocketOpen

function publish (conduit: Channel, undici: Channel, message: unknown): void {
  if (conduit.hasSubscribers) conduit.publish(message)
  // Gated like every undici name: off when the user turned them off or the runtime's undici logs them.
  activeUndiciChannel(undici)?.publish(message)
}

/** The peer address of the socket under a WebSocket, as undici's open event shows it. */
function socketAddress (socket: Duplex): { address: string, family: string, port: number } | null {
  const net = socket as Partial<{ remoteAddress: string, remoteFamily: string, remotePort: number }>
  if (typeof net.remoteAddress !== 'string') return null
  return { address: net.remoteAddress, family: net.remoteFamily ?? '', port: net.remotePort ?? 0 }
}

/** Reports a WebSocket's lifecycle. */
export const websocketEvents = {
  /** The connection is open. */
  open (websocket: object, socket: Duplex, protocol: string, extensions: string, status: number, headers: IncomingHeaders): void {
    const address = socketAddress(socket)
    if (lifecycleLog.enabled) lifecycleLog(`connection opened ${address === null ? '' : `${address.address}${address.port ? `:${address.port}` : ''}`}`.trimEnd())
    if (!channels.websocketOpen.hasSubscribers && activeUndiciChannel(undiciWebSocketChannels.open) === null) return
    publish(channels.websocketOpen, undiciWebSocketChannels.open, {
      address,
      protocol,
      extensions,
      websocket,
      handshakeResponse: { status, statusText: status === 101 ? 'Switching Protocols' : '', headers }
    })
  },
  /** The connection closed (after the close event); `url` is the URL without credentials. */
  close (websocket: object, url: string, code: number, reason: string): void {
    if (decisionLog.enabled) decisionLog(`${url}: closed - ${code} ${reason}`.trimEnd())
    publish(channels.websocketClose, undiciWebSocketChannels.close, { websocket, code, reason })
  },
  /** The socket failed. */
  socketError (error: Error): void {
    if (decisionLog.enabled) decisionLog(`connection errored - ${error.message}`)
    publish(channels.websocketSocketError, undiciWebSocketChannels.socketError, error)
  },
  /** A ping arrived. */
  ping (websocket: object, payload: Buffer): void {
    if (decisionLog.enabled) decisionLog('ping received')
    publish(channels.websocketPing, undiciWebSocketChannels.ping, { payload, websocket })
  },
  /** A pong arrived. */
  pong (websocket: object, payload: Buffer): void {
    if (decisionLog.enabled) decisionLog('pong received')
    publish(channels.websocketPong, undiciWebSocketChannels.pong, { payload, websocket })
  },
  /** A decision worth a line under `conduit:websocket`: why a handshake failed, why a connection closed, which limit was hit. */
  decision (url: string, line: string): void {
    if (decisionLog.enabled) decisionLog(`${url}: ${line}`)
  }
}
