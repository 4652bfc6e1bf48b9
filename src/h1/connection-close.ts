/**
 * What happens to the requests of a connection that closed: which are sent again on a fresh
 * connection and which fail, and how a socket is handed over after a protocol switch.
 * @module
 */

import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import type { ClientRequest } from '../connection/client-request.js'

/** How the connection ended, as far as retrying is concerned. */
export interface CloseCircumstances {
  /** Requests may be re-sent at all (false when the client is being destroyed). */
  requeue: boolean
  /** The client closed the connection itself (abort, timeout, parse error), not the server. */
  local: boolean
  /** Responses completed on the connection before (it was a reused keep-alive connection). */
  served: number
  /** No byte of the next response had arrived. */
  parserIdle: boolean
  /**
   * Index of the first request that never left (held in the turn's write batch when the socket
   * closed); `requests.length` when all of them were sent.
   */
  unsentFrom: number
}

/** Splits the requests still in flight into those to send again and those that fail. */
export function partitionOnClose (requests: ClientRequest[], how: CloseCircumstances): { retry: ClientRequest[], failing: ClientRequest[] } {
  const retry: ClientRequest[] = []
  const failing: ClientRequest[] = []
  for (let i = 0; i < requests.length; i++) {
    const req = requests[i]!
    if (req.completed) continue
    req.runner = null
    if (how.requeue && i >= how.unsentFrom) {
      // Its bytes were still held back and go with the socket: the server never saw it.
      retry.push(req)
    } else if (how.requeue && req.idempotent && req.replayable && req.retries === 0 && !req.responseStarted &&
      (i > 0 || (!how.local && how.served > 0 && how.parserIdle))) {
      // A kept-alive connection the server closed just as the request went out (RST or FIN
      // before any response byte) fails through no fault of the request; an idempotent request
      // is sent once more on a fresh connection, as undici does. Requests pipelined behind a
      // failed one never reached a response either, so the same applies to them.
      req.retries++
      retry.push(req)
    } else {
      failing.push(req)
    }
  }
  return { retry, failing }
}

function noop (): void {}

/**
 * Gives a socket to its new owner after an upgrade, once the connection stopped listening to it:
 * bytes read past the response head go back in front, and the stream returns to its initial
 * state on the next tick (adding and removing a 'readable' listener does that), so the owner's
 * 'data' listener starts the flow without an explicit resume(). An owner that throws has the
 * socket destroyed with its error.
 */
export function handOver (socket: Duplex, rest: Buffer | null, owner: (socket: Duplex) => void): void {
  socket.pause()
  ;(socket as Socket).ref?.()
  if (rest !== null && rest.length > 0) socket.unshift(rest)
  socket.on('readable', noop)
  socket.off('readable', noop)
  try {
    owner(socket)
  } catch (err) {
    socket.destroy(err as Error)
  }
}
