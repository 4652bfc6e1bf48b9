/**
 * {@link SnapshotAgent}: a mock agent with the snapshot interceptor in front of it.
 * @module
 */

import { MockAgent } from '../src/mock/mock-agent.js'
import type { MockAgentOptions } from '../src/mock/mock-agent.js'
import type { Dispatch, DispatchHandler, DispatchOptions } from '../src/handler.js'
import { resolveSnapshotOptions, snapshot, SNAPSHOT_OPTION_NAMES, SnapshotRecorder } from '../interceptors/snapshot/index.js'
import type { SnapshotInfo, SnapshotMode, SnapshotOptions } from '../interceptors/snapshot/index.js'
import type { SnapshotRecord } from '../stores/snapshot-file-store.js'

/** Options of {@link SnapshotAgent}: the mock agent options plus the snapshot options. */
export type SnapshotAgentOptions = MockAgentOptions & SnapshotOptions

let warned = false

/**
 * Records real responses to a snapshot file and replays them in tests. Behaves as
 * `new MockAgent(opts).compose(interceptors.snapshot(opts))` with the snapshot methods on top.
 * Experimental: constructing one emits an `ExperimentalWarning` once per process.
 * @example
 * const agent = new SnapshotAgent({ mode: process.env.CI ? 'playback' : 'update', snapshotPath: './test/fixtures/api.json' })
 * const { body } = await agent.request({ origin: 'https://api.example.org', path: '/users' })
 * await agent.close() // saves new recordings
 */
export class SnapshotAgent extends MockAgent {
  readonly #recorder: SnapshotRecorder
  readonly #dispatch: Dispatch

  constructor (opts: SnapshotAgentOptions = {}) {
    if (!warned) {
      warned = true
      process.emitWarning('SnapshotAgent is experimental and subject to change', 'ExperimentalWarning')
    }
    const resolved = resolveSnapshotOptions(opts, 'SnapshotAgent')
    const mockOptions: MockAgentOptions = { ...opts }
    for (const name of SNAPSHOT_OPTION_NAMES) delete mockOptions[name]
    super(mockOptions)
    this.#recorder = new SnapshotRecorder(resolved)
    this.#dispatch = snapshot({ recorder: this.#recorder })((o, h) => super.acceptDispatch(o, h))
  }

  protected override acceptDispatch (opts: DispatchOptions, handler: DispatchHandler): boolean {
    return this.#dispatch(opts, handler)
  }

  /** Loads snapshots from `filePath` (default `snapshotPath`); later requests match them. */
  loadSnapshots (filePath?: string): Promise<void> { return this.#recorder.loadSnapshots(filePath) }
  /** Writes every snapshot to `filePath` (default `snapshotPath`), atomically; as HAR 1.2 for a `.har` name. */
  saveSnapshots (filePath?: string): Promise<void> { return this.#recorder.saveSnapshots(filePath) }
  /** Writes every snapshot to `filePath` as a HAR 1.2 file, atomically. */
  exportHar (filePath: string): Promise<void> { return this.#recorder.exportHar(filePath) }
  /** The loaded entries no request asked for in this run. */
  unusedSnapshots (): SnapshotInfo[] { return this.#recorder.unusedSnapshots() }
  /** The entries recorded longer than `maxAge` ago. */
  staleSnapshots (): SnapshotInfo[] { return this.#recorder.staleSnapshots() }
  /** The recorder, for inspection. */
  getRecorder (): SnapshotRecorder { return this.#recorder }
  /** The mode in force: the one given at construction, or the one `CONDUIT_SNAPSHOT_MODE` set. */
  getMode (): SnapshotMode { return this.#recorder.options.mode }
  /** Removes every snapshot from memory. */
  clearSnapshots (): void { this.#recorder.clear() }
  /** Starts every replay sequence again from its first response. */
  resetCallCounts (): void { this.#recorder.resetCallCounts() }
  /** Deletes the snapshot of a request; true when there was one. */
  deleteSnapshot (requestOpts: DispatchOptions): boolean { return this.#recorder.deleteSnapshot(requestOpts) }
  /** Metadata of the snapshot of a request, or null. */
  getSnapshotInfo (requestOpts: DispatchOptions): SnapshotInfo | null { return this.#recorder.getSnapshotInfo(requestOpts) }
  /** Replaces every snapshot in memory. */
  replaceSnapshots (snapshotData: SnapshotRecord[]): void { this.#recorder.replaceSnapshots(snapshotData) }

  /** Saves (record and update modes), then closes the real agent and the mock agent. */
  protected override async closeGracefully (): Promise<void> {
    try {
      await this.#recorder.close()
    } finally {
      await super.closeGracefully()
    }
  }

  /** Stops the flush timer without saving, then destroys the mock agent and the real agent. */
  protected override destroyNow (err: Error): Promise<void> {
    this.#recorder.destroy()
    return super.destroyNow(err)
  }
}

/** undici's names for the SnapshotAgent's types (`SnapshotAgent.Options`). */
export declare namespace SnapshotAgent {
  /** {@link SnapshotAgentOptions}. */
  export type Options = SnapshotAgentOptions
}
