/**
 * How long an EventSource waits before it reconnects: the reconnection time (the option, then
 * the server's `retry:`), with a floor under what a server asks for and a backoff while
 * connections keep ending without an event, which the HTML standard leaves to the client
 * ("if the previous attempt failed, user agents might introduce an exponential backoff delay").
 * Without them a server answering `retry: 0` and closing gets hundreds of requests a second.
 * @module
 */

import { MAX_TIMER_MS } from '../validation/timer-limit.js'

/** The least reconnection time a server's `retry:` can set, ms (a browser's floor, Firefox's). */
export const MIN_SERVER_RETRY_MS = 500

/** The longest the backoff grows the delay to, ms, unless the reconnection time itself is longer. */
export const MAX_BACKOFF_MS = 30_000

/** The reconnection delay of one EventSource. */
export class ReconnectionDelay {
  #time: number
  /** Connections in a row that ended without dispatching an event. */
  #failures = 0

  /** @param initial - the reconnection time until the server sends `retry:`, ms (the caller's choice, used as given) */
  constructor (initial: number) {
    this.#time = initial
  }

  /** The server's `retry:` field: the new reconnection time, raised to the floor. */
  serverSaid (ms: number): void {
    this.#time = Math.min(Math.max(ms, MIN_SERVER_RETRY_MS), MAX_TIMER_MS)
  }

  /**
   * The wait before the next connection, once one ended; `delivered` says whether it dispatched
   * an event. Each connection in a row without one doubles the wait, up to {@link MAX_BACKOFF_MS}.
   */
  next (delivered: boolean): number {
    this.#failures = delivered ? 0 : this.#failures + 1
    const grown = this.#failures <= 1 ? this.#time : this.#time * 2 ** (this.#failures - 1)
    return Math.min(grown, Math.max(this.#time, MAX_BACKOFF_MS), MAX_TIMER_MS)
  }
}
