/**
 * Snapshot files recorded through fetch are shared with undici: a request's key covers its
 * headers, and the two libraries' fetch add the same defaults except `user-agent` and
 * `accept-encoding` (conduit also offers brotli). Before a request is keyed, those two headers,
 * when they still hold conduit's own fetch default, are written as undici's fetch sends them,
 * so the same fetch call has the same key whichever library made or replays the recording.
 * A value the caller chose is never changed.
 * @module
 */

import type { SnapshotHeaders } from '../../stores/snapshot-file-store.js'
import { ACCEPT_ENCODING, FETCH_USER_AGENT } from '../../src/handler.js'

// What undici's fetch sends for these headers when the caller sets none.
const UNDICI_FETCH_DEFAULTS: ReadonlyMap<string, { conduit: string, undici: string }> = new Map([
  ['user-agent', { conduit: FETCH_USER_AGENT, undici: 'undici' }],
  ['accept-encoding', { conduit: ACCEPT_ENCODING, undici: 'gzip, deflate' }]
])

/** `headers` with conduit's fetch defaults for user-agent and accept-encoding replaced by undici's. */
export function withSharedFetchDefaults (headers: SnapshotHeaders): SnapshotHeaders {
  let out: SnapshotHeaders | null = null
  for (const name of Object.keys(headers)) {
    const defaults = UNDICI_FETCH_DEFAULTS.get(name.toLowerCase())
    if (defaults !== undefined && headers[name] === defaults.conduit) {
      out ??= { ...headers }
      out[name] = defaults.undici
    }
  }
  return out ?? headers
}
