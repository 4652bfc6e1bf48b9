/**
 * `NODE_DEBUG=fetch` lines for what only fetch knows: responses it produces itself, without a
 * dispatcher (`data:` URLs). Lines for requests that reach the transport are written by the core
 * under the `fetch` namespace too, because fetch marks its dispatch options.
 * @module
 */

import { debuglog } from 'node:util'

const log = debuglog('fetch')

/** Debug lines fetch writes itself, in the message shapes of the core. */
export const fetchDebug = {
  /** A request answered locally: the same two lines the core writes for a network round trip. */
  local (method: string, url: URL, status: number): void {
    if (!log.enabled) return
    const shown = url.protocol === 'data:' && url.href.length > 64 ? `${url.href.slice(0, 64)}...` : url.href
    log('sending request to %s %s', method, shown)
    log('received response to %s %s - HTTP %d', method, shown, status)
  }
}
