/**
 * `NODE_DEBUG=fetch` lines for what only fetch knows: responses it produces itself, without a
 * dispatcher (`data:` URLs). Lines for requests that reach the transport are written by the core
 * under the `fetch` namespace too, because fetch marks its dispatch options.
 * @module
 */

import { debuglog } from 'node:util'
import { FETCH_NAMESPACE, lines } from '../observability/debug-log.js'

const log = debuglog(FETCH_NAMESPACE)
const MAX_SHOWN_URL = 64

/** Debug lines fetch writes itself, in the message shapes of the core. */
export const fetchDebug = {
  /** A request answered locally: the same two lines the core writes for a network round trip. */
  local (method: string, url: URL, status: number): void {
    if (!log.enabled) return
    // data: URLs can be megabytes long; the log shows their start.
    const shown = url.href.length > MAX_SHOWN_URL ? `${url.href.slice(0, MAX_SHOWN_URL)}...` : url.href
    log(lines.sending(method, shown))
    log(lines.received(method, shown, status))
  }
}
