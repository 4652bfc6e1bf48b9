/**
 * Notices an HTTP/2 session that node:http2 stopped without a word. When nghttp2 meets a header
 * block it cannot take (a field over 64 KiB, a list over its own limit, bad HPACK), it sends
 * GOAWAY (COMPRESSION_ERROR) and stops reading the socket, yet node:http2 emits nothing: every
 * request on the session would wait for its headersTimeout (minutes by default).
 *
 * While a request waits for its head, the probe looks at the socket once per interval. When
 * bytes arrived since the last look it sends a PING (so a server that sends nothing is never
 * pinged, and one that does has just reset any ping-abuse counter it keeps). A PING that stays
 * unanswered while nothing more is read for a whole interval means the session stopped. A slow
 * or busy link is not mistaken for that: its bytes keep arriving while the answer is queued.
 *
 * A busy process is not mistaken for it either. The verdict needs the PING unanswered over
 * {@link STALL_LOOKS} looks in a row, and a last look taken after the event loop's poll phase:
 * timers run before socket reads in a loop turn, so after a long pause (a blocked loop, a
 * descheduled process) the answer may sit unread in the kernel when the timer fires.
 * @module
 */

import type { ClientHttp2Session } from 'node:http2'
import type { Duplex } from 'node:stream'
import { clearInterval, setImmediate, setInterval } from '../runtime/timers.js'

/** Milliseconds between two looks at a session with a request waiting for its head. */
export const STALL_PROBE_MS = 500

/**
 * Looks in a row with the PING unanswered and nothing read before the session counts as stopped:
 * ten seconds, so a server whose process stalls for a few seconds (a long collection, blocking
 * work, a descheduled container) is waited for, as `headersTimeout` would wait, rather than
 * losing every request on its session.
 */
export const STALL_LOOKS = 20

/** How long a stopped session stays unnoticed at most, for messages: {@link STALL_LOOKS} intervals. */
export const STALL_WINDOW_MS = STALL_PROBE_MS * STALL_LOOKS

/** What the probe asks of its session. */
export interface StallProbeOwner {
  /** True while a request on the session waits for its response head. */
  readonly awaitingHead: boolean
  /** The session stopped: `bytesUnanswered` bytes were read since the last PING it answered. */
  onStalled (bytesUnanswered: number): void
}

/** The stall probe of one session; see the module notes. */
export class StallProbe {
  readonly #session: ClientHttp2Session
  readonly #socket: { bytesRead?: number }
  readonly #owner: StallProbeOwner
  #timer: NodeJS.Timeout | null = null
  /** bytesRead at the last look. */
  #lastBytes = 0
  /** bytesRead when the last PING was answered (or the probe started). */
  #answeredBytes = 0
  #pingOut = false
  /** Looks in a row that found the PING out and nothing read. */
  #silentLooks = 0

  constructor (session: ClientHttp2Session, socket: Duplex, owner: StallProbeOwner) {
    this.#session = session
    this.#socket = socket as { bytesRead?: number }
    this.#owner = owner
  }

  /** Starts looking, unless it already does or the socket does not count what it reads. */
  start (): void {
    if (this.#timer !== null || typeof this.#socket.bytesRead !== 'number') return
    this.#lastBytes = this.#answeredBytes = this.#socket.bytesRead
    this.#timer = setInterval(this.#look, STALL_PROBE_MS)
    this.#timer.unref()
  }

  stop (): void {
    if (this.#timer !== null) clearInterval(this.#timer)
    this.#timer = null
    this.#pingOut = false
    this.#silentLooks = 0
  }

  readonly #look = (): void => {
    if (!this.#owner.awaitingHead || this.#session.destroyed) {
      this.stop()
      return
    }
    const bytes = this.#socket.bytesRead ?? 0
    const moved = bytes !== this.#lastBytes
    this.#lastBytes = bytes
    if (this.#pingOut) {
      this.#silentLooks = moved ? 0 : this.#silentLooks + 1
      if (this.#silentLooks >= STALL_LOOKS) setImmediate(this.#confirm, bytes)
      return
    }
    if (!moved) return
    this.#pingOut = true
    try {
      this.#session.ping((err) => {
        if (err !== null) return
        this.#pingOut = false
        this.#silentLooks = 0
        this.#answeredBytes = this.#socket.bytesRead ?? 0
      })
    } catch {
      // Too many PINGs in flight: the next look decides.
      this.#pingOut = false
    }
  }

  /** The last look, after the poll phase has read whatever the kernel held for the socket. */
  readonly #confirm = (bytesAtLook: number): void => {
    if (this.#timer === null || !this.#pingOut || this.#session.destroyed) return
    const bytes = this.#socket.bytesRead ?? 0
    if (bytes !== bytesAtLook) {
      this.#silentLooks = 0
      return
    }
    this.stop()
    this.#owner.onStalled(bytes - this.#answeredBytes)
  }
}
