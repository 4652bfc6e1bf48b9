/**
 * How long an HTTP/1.1 connection may stay idle after a response, from the server's
 * `Keep-Alive: timeout=` hint and the client's keep-alive options.
 * @module
 */

import type { ConnectionConfig } from '../connection/connection-config.js'

/**
 * The idle time after a response whose `Keep-Alive` hint is `hintMs` (`-1` when it sent none): the
 * hint less `keepAliveTimeoutThreshold` (the server may close at its own deadline, so the client
 * stops reusing the connection a little earlier), capped at `keepAliveMaxTimeout`; without a hint
 * the current idle time stays. `0` means the connection must not be reused at all.
 */
export function keepAliveIdleMs (hintMs: number, currentMs: number, config: Pick<ConnectionConfig, 'keepAliveTimeoutThreshold' | 'keepAliveMaxTimeout'>): number {
  if (hintMs < 0) return currentMs
  return Math.max(0, Math.min(hintMs - config.keepAliveTimeoutThreshold, config.keepAliveMaxTimeout))
}
