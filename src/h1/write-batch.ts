/**
 * Sends the request heads written in one turn of the event loop together, at its end.
 *
 * Each write to a loopback or LAN peer that sleeps in its event loop wakes it; on a virtual
 * machine that wake-up is an inter-processor interrupt, paid in the writer's system time. A
 * client answering responses one by one writes each next request a few microseconds after the
 * last, and woke the server for nearly every one (measured: 0.9 wake-ups per request against
 * undici's 0.07, and a third more CPU per request with tracing on). Corking a connection's socket
 * at its first write of the turn and uncorking every such socket from one `setImmediate` puts the
 * writes of a turn back to back, so a server woken by the first finds the others waiting. The
 * delay is the rest of the current turn: no timer, no poll wait in between.
 * @module
 */

import type { Writable } from 'node:stream'
import { setImmediate } from '../runtime/timers.js'

const held: Writable[] = []
let flushScheduled = false
/** True while held writes are being let go (see {@link releasingHeldWrites}). */
let releasing = false

function flush (): void {
  flushScheduled = false
  // A socket written to again while this flush runs is held anew, for the next turn.
  const count = held.length
  releasing = true
  try {
    for (let i = 0; i < count; i++) held[i]!.uncork()
  } finally {
    releasing = false
  }
  held.splice(0, count)
}

/**
 * True while the held writes are let go. A stream that answers its writes synchronously (an
 * in-memory socket) delivers what it answers inside this, and a corked stream that is already
 * emptying its buffer passes on writes made meanwhile too: bytes read now may answer them.
 */
export function releasingHeldWrites (): boolean {
  return releasing
}

/**
 * Holds the writes made to `socket` from now until the end of this turn of the event loop.
 * Returns true when this call began the hold (the socket was not corked yet): the writes from
 * here on stay off the wire while `socket.writableCorked` is above zero.
 */
export function holdWritesForTurn (socket: Writable): boolean {
  if (socket.writableCorked > 0) return false
  socket.cork()
  held.push(socket)
  if (!flushScheduled) {
    flushScheduled = true
    setImmediate(flush)
  }
  return true
}
