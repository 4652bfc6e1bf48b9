/**
 * {@link SnapshotRecorder}: the recorded requests and responses of a snapshot interceptor,
 * kept in memory and saved to / loaded from the snapshot file.
 * @module
 */

import { debuglog } from 'node:util'
import { InvalidArgumentError, describeValue, failOption, describeUrl } from '../../src/handler.js'
import type { DispatchOptions, IncomingHeaders } from '../../src/handler.js'
import { loadSnapshotFile, parseSnapshotData, saveSnapshotFile } from '../../stores/snapshot-file-store.js'
import type { SnapshotEntry, SnapshotRecord, SnapshotRequest, SnapshotResponse } from '../../stores/snapshot-file-store.js'
import { createHeaderFilters, describeDifferences, formatRequest, hashRequest, requestUrl, urlExclusion, withoutExcluded } from './snapshot-matching.js'
import type { HeaderFilters } from './snapshot-matching.js'
import type { ResolvedSnapshotOptions } from './snapshot-options.js'

const log = debuglog('conduit:snapshot')

/** A response as the interceptor captured it. */
export interface CapturedResponse {
  /** Response status code. */
  statusCode: number
  /** Response headers. */
  headers: IncomingHeaders
  /** The whole body, or its chunks in arrival order. */
  body: Buffer | readonly Buffer[] | string | null | undefined
  /** Response trailers. */
  trailers?: IncomingHeaders | undefined
  /** Keep the chunk boundaries (streamed responses), so playback delivers them one by one. */
  keepChunks?: boolean | undefined
}

/** What `getSnapshotInfo` reports: metadata only, no response payload. */
export interface SnapshotInfo {
  /** The key of the snapshot (also in the file). */
  hash: string
  /** The recorded request as it is matched. */
  request: SnapshotRequest
  /** How many responses are recorded for it. */
  responseCount: number
  /** How many times it was replayed since loading (or the last reset). */
  callCount: number
  /** When it was last recorded (ISO 8601). */
  timestamp: string
}

/** A snapshot found for a request, with the response to replay now. */
export interface SnapshotMatch extends SnapshotEntry {
  /** The response to replay for this call (the last one again once the sequence ran out). */
  response: SnapshotResponse
}

/** The recorded request closest to one that has no snapshot, and how it differs. */
export interface ClosestSnapshot {
  /** The recorded request. */
  request: SnapshotRequest
  /** The fields in which it differs, e.g. `query (?a=1 vs recorded ?a=2)`. */
  differences: string[]
}

/**
 * Holds the snapshots of one interceptor (what `SnapshotAgent.getRecorder()` returns; internal,
 * not exported from the package root). Repeated identical requests keep every response and
 * replay them in order (the last one again once they run out).
 */
export class SnapshotRecorder {
  readonly #opts: ResolvedSnapshotOptions
  readonly #filters: HeaderFilters
  readonly #excluded: (url: string) => boolean
  #snapshots = new Map<string, SnapshotEntry>()
  #loading: Promise<void> | null = null
  #loaded = false
  #missingFile: string | null = null
  #loadGeneration = 0
  #version = 0
  #savedVersion = 0
  #saving: Promise<void> = Promise.resolve()
  #timer: ReturnType<typeof setTimeout> | null = null

  constructor (opts: ResolvedSnapshotOptions) {
    this.#opts = opts
    this.#filters = createHeaderFilters(opts)
    this.#excluded = urlExclusion(opts.excludeUrls)
  }

  /** The resolved options. */
  get options (): ResolvedSnapshotOptions {
    return this.#opts
  }

  /** The path of the last load when that file did not exist, else null (for the playback miss message). */
  get missingFile (): string | null {
    return this.#missingFile
  }

  /** True once snapshots were loaded from the file (or there was no file to load). */
  get loaded (): boolean {
    return this.#loaded
  }

  /** True when the URL of the request matches `excludeUrls`. */
  isUrlExcluded (requestOpts: DispatchOptions): boolean {
    return this.#excluded(requestUrl(requestOpts).toString())
  }

  #key (requestOpts: DispatchOptions): { request: SnapshotRequest, hash: string } {
    const request = formatRequest(requestOpts, this.#opts, this.#filters)
    return { request, hash: hashRequest(request) }
  }

  #changed (): void {
    this.#version++
    if (this.#opts.autoFlush && this.#opts.snapshotPath !== null && this.#timer === null) {
      this.#timer = setTimeout(() => {
        this.#timer = null
        this.saveSnapshots().catch((err: Error) => process.emitWarning(err))
      }, this.#opts.flushInterval)
      // A pending flush must not keep a finished test run alive; close() saves what is left.
      this.#timer.unref?.()
    }
  }

  /** Records a response for a request (unless `shouldRecord` or `excludeUrls` say no). */
  record (requestOpts: DispatchOptions, response: CapturedResponse): void {
    if (!this.#opts.shouldRecord(requestOpts) || this.isUrlExcluded(requestOpts)) return
    const { request, hash } = this.#key(requestOpts)
    const chunks = response.body == null ? [] : typeof response.body === 'string' ? [Buffer.from(response.body)] : Buffer.isBuffer(response.body) ? [response.body] : [...response.body]
    const stored: SnapshotResponse = {
      statusCode: response.statusCode,
      headers: withoutExcluded(response.headers, this.#filters),
      body: Buffer.concat(chunks).toString('base64'),
      trailers: withoutExcluded(response.trailers ?? {}, this.#filters)
    }
    if (response.keepChunks === true && chunks.length > 1) stored.chunks = chunks.map((c) => c.toString('base64'))
    const existing = this.#snapshots.get(hash)
    if (existing !== undefined) {
      existing.responses.push(stored)
      existing.timestamp = new Date().toISOString()
    } else {
      if (this.#snapshots.size >= this.#opts.maxSnapshots) {
        const oldest = this.#snapshots.keys().next().value
        if (oldest !== undefined) this.#snapshots.delete(oldest)
      }
      this.#snapshots.set(hash, { request, responses: [stored], callCount: 0, timestamp: new Date().toISOString() })
    }
    log('recorded %s %s (%d response(s))', request.method, request.url, this.#snapshots.get(hash)!.responses.length)
    this.#changed()
  }

  /**
   * The snapshot for a request with the response to replay now (counting the call), or
   * undefined when there is none or `shouldPlayback`/`excludeUrls` rule it out.
   */
  findSnapshot (requestOpts: DispatchOptions): SnapshotMatch | undefined {
    if (!this.#opts.shouldPlayback(requestOpts) || this.isUrlExcluded(requestOpts)) return undefined
    const { hash } = this.#key(requestOpts)
    const snapshot = this.#snapshots.get(hash)
    if (snapshot === undefined) return undefined
    const index = Math.min(snapshot.callCount, snapshot.responses.length - 1)
    snapshot.callCount++
    return { ...snapshot, response: snapshot.responses[index]! }
  }

  /** The recorded request that differs least from this one, with the differences; undefined when nothing is recorded. */
  closestSnapshot (requestOpts: DispatchOptions): ClosestSnapshot | undefined {
    const { request } = this.#key(requestOpts)
    let best: ClosestSnapshot | undefined
    for (const snapshot of this.#snapshots.values()) {
      const differences = describeDifferences(request, snapshot.request)
      const score = differences.length + (differences.some((d) => d.startsWith('origin') || d.startsWith('path')) ? 10 : 0)
      const bestScore = best === undefined ? Infinity : best.differences.length + (best.differences.some((d) => d.startsWith('origin') || d.startsWith('path')) ? 10 : 0)
      if (score < bestScore) best = { request: snapshot.request, differences }
    }
    return best
  }

  /** Every snapshot, in insertion order. */
  getSnapshots (): SnapshotEntry[] {
    return [...this.#snapshots.values()]
  }

  /** How many distinct requests are recorded. */
  size (): number {
    return this.#snapshots.size
  }

  /** Removes every snapshot from memory. */
  clear (): void {
    this.#snapshots.clear()
    this.#changed()
  }

  /** Starts every snapshot's replay sequence again from its first response. */
  resetCallCounts (): void {
    for (const snapshot of this.#snapshots.values()) snapshot.callCount = 0
  }

  /**
   * The key of a request a caller names (not one being dispatched, which the transport checked):
   * options that name no URL are refused here instead of failing inside the URL parser.
   */
  #callerKey (requestOpts: unknown, who: string): { request: SnapshotRequest, hash: string } {
    if (requestOpts === null || typeof requestOpts !== 'object') {
      failOption(who, 'requestOpts', 'dispatch options (an object with origin and path)', requestOpts)
    }
    const opts = requestOpts as DispatchOptions
    try {
      return this.#key(opts)
    } catch (err) {
      if (!(err instanceof TypeError)) throw err
      // The parser's error keeps the whole input (a password included): it is not passed on as the cause.
      throw new InvalidArgumentError(`${who}: requestOpts must name a URL by origin and path, got origin ${describeUrl(opts.origin)} and path ${describeValue(opts.path)}`)
    }
  }

  /** Deletes the snapshot of a request; true when there was one. */
  deleteSnapshot (requestOpts: DispatchOptions): boolean {
    const deleted = this.#snapshots.delete(this.#callerKey(requestOpts, 'deleteSnapshot()').hash)
    if (deleted) this.#changed()
    return deleted
  }

  /** Metadata of the snapshot of a request, or null. */
  getSnapshotInfo (requestOpts: DispatchOptions): SnapshotInfo | null {
    const { hash } = this.#callerKey(requestOpts, 'getSnapshotInfo()')
    const snapshot = this.#snapshots.get(hash)
    if (snapshot === undefined) return null
    return { hash, request: snapshot.request, responseCount: snapshot.responses.length, callCount: snapshot.callCount, timestamp: snapshot.timestamp }
  }

  /** Replaces every snapshot with `data` (the file layout: an array of `{ hash, snapshot }`). */
  replaceSnapshots (data: unknown): void {
    let records: SnapshotRecord[]
    try {
      records = parseSnapshotData(data)
    } catch (err) {
      throw new InvalidArgumentError(`replaceSnapshots(): ${(err as Error).message}`)
    }
    this.#snapshots = new Map(records.map((r) => [r.hash, r.snapshot]))
    this.#changed()
  }

  #path (filePath: string | undefined, who: string): string {
    if (filePath != null && (typeof filePath !== 'string' || filePath === '')) {
      failOption(who, 'filePath', 'a non-empty string', filePath)
    }
    const path = filePath ?? this.#opts.snapshotPath
    if (path === null || path === '') throw new InvalidArgumentError(`${who}: a snapshot path is required (pass one or set snapshotPath)`)
    return path
  }

  /**
   * Loads snapshots from the file (default `snapshotPath`), replacing those in memory; a missing
   * file loads as empty. Throws at once when there is no path at all.
   */
  loadSnapshots (filePath?: string): Promise<void> {
    const loading: Promise<void> = this.#load(this.#path(filePath, 'loadSnapshots()')).finally(() => {
      if (this.#loading === loading) this.#loading = null
    })
    // Requests waiting for snapshots wait for the load asked for last.
    this.#loading = loading
    return loading
  }

  async #load (path: string): Promise<void> {
    const generation = ++this.#loadGeneration
    const records = await loadSnapshotFile(path)
    // Loads may overlap (the automatic one at construction and an explicit one): the last asked for wins.
    if (generation !== this.#loadGeneration) return
    this.#missingFile = records === undefined ? path : null
    this.#snapshots = new Map((records ?? []).map((r) => [r.hash, r.snapshot]))
    this.#loaded = true
    this.#savedVersion = ++this.#version
    log('loaded %d snapshot(s) from %s', this.#snapshots.size, path)
  }

  /** Loads `snapshotPath` once (later calls share the first load); resolves at once without a path. */
  ensureLoaded (): Promise<void> {
    if (this.#loaded || this.#opts.snapshotPath === null) return Promise.resolve()
    return this.#loading ?? this.loadSnapshots()
  }

  /** Saves every snapshot to the file (default `snapshotPath`) atomically; saves run one after another. */
  saveSnapshots (filePath?: string): Promise<void> {
    const path = this.#path(filePath, 'saveSnapshots()')
    const run = async (): Promise<void> => {
      const version = this.#version
      const records = [...this.#snapshots].map(([hash, snapshot]) => ({ hash, snapshot }))
      await saveSnapshotFile(path, records)
      if (filePath === undefined || filePath === this.#opts.snapshotPath) this.#savedVersion = version
      log('saved %d snapshot(s) to %s', records.length, path)
    }
    const next = this.#saving.then(run, run)
    this.#saving = next.catch(() => {})
    return next
  }

  /** Resolves once every save started so far has finished. */
  whenSaved (): Promise<void> {
    return this.#saving
  }

  /** Stops the flush timer, then (in record and update modes) saves unsaved changes to `snapshotPath`. */
  async close (): Promise<void> {
    this.destroy()
    const writes = this.#opts.mode !== 'playback' && this.#opts.snapshotPath !== null
    if (writes && this.#version !== this.#savedVersion) await this.saveSnapshots()
    await this.#saving
  }

  /** Stops the flush timer without saving. */
  destroy (): void {
    if (this.#timer !== null) {
      clearTimeout(this.#timer)
      this.#timer = null
    }
  }
}
