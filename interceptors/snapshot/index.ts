/**
 * `interceptors.snapshot()`: record real responses to a file and replay them later.
 * @module
 */

import type { DispatchHandler, DispatchOptions, Interceptor } from '../../src/handler.js'
import { resolveSnapshotOptions } from './snapshot-options.js'
import type { SnapshotMode, SnapshotOptions } from './snapshot-options.js'
import { SnapshotRecorder } from './snapshot-recorder.js'
import { dispatchWithSnapshots } from './snapshot-dispatch.js'

export { SnapshotRecorder } from './snapshot-recorder.js'
export type { SnapshotInfo, CapturedResponse, ClosestSnapshot, SnapshotMatch } from './snapshot-recorder.js'
export { SNAPSHOT_MODES, SNAPSHOT_MODE_VARIABLE, SNAPSHOT_OPTION_NAMES, STALE_SNAPSHOT_ACTIONS, DEFAULT_FLUSH_INTERVAL_MS, resolveSnapshotOptions } from './snapshot-options.js'
export type { SnapshotMode, SnapshotOptions, ResolvedSnapshotOptions, StaleSnapshotAction } from './snapshot-options.js'

/** Options of {@link snapshot}: the snapshot options, or a recorder to share. */
export interface SnapshotInterceptorOptions extends SnapshotOptions {
  /** Use this recorder (and its options) instead of building one from these options. */
  recorder?: SnapshotRecorder | undefined
}

/** The interceptor, with its recorder and its mode. */
export interface SnapshotInterceptor extends Interceptor {
  /** The recorded snapshots: `close()` it when done to save them; inspect or edit them in tests. */
  readonly recorder: SnapshotRecorder
  /** The mode in force (the option, or `CONDUIT_SNAPSHOT_MODE`). */
  readonly mode: SnapshotMode
}

/**
 * Records responses (`'record'`), replays them (`'playback'`, or `'lockdown'` where nothing
 * reaches the network), or replays what exists and records the rest (`'update'`). Closing the
 * dispatcher it is composed onto (or `recorder.close()`) saves the file.
 * @example
 * const snap = interceptors.snapshot({ mode: 'update', snapshotPath: './test/fixtures/api.json' })
 * const agent = new Agent().compose(snap)
 * // ... requests ...
 * await snap.recorder.close()
 */
export function snapshot (options: SnapshotInterceptorOptions = {}): SnapshotInterceptor {
  // `?.`: a null options value reaches resolveSnapshotOptions, which names it.
  const recorder = options?.recorder ?? new SnapshotRecorder(resolveSnapshotOptions(options, 'snapshot()'))
  if (recorder.options.mode !== 'record') recorder.ensureLoaded().catch(() => {})
  // Closing the dispatcher it is composed on saves the recordings; destroying it stops the
  // flush timer without saving.
  const interceptor: Interceptor = (dispatch) => Object.assign((opts: DispatchOptions, handler: DispatchHandler) => dispatchWithSnapshots(recorder, dispatch, opts, handler), {
    onClose: () => recorder.close(),
    onDestroy: () => recorder.destroy()
  })
  return Object.assign(interceptor, { recorder, mode: recorder.options.mode })
}
