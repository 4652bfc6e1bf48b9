/**
 * {@link SnapshotRecorder}: the recorded requests and responses of a snapshot interceptor,
 * kept in memory and saved to / loaded from the snapshot file.
 * @module
 */

import { debuglog } from 'node:util'
import { InvalidArgumentError, SnapshotSecretError, describeValue, failOption, describeUrl, showUrl } from '../../src/handler.js'
import type { DispatchOptions, IncomingHeaders } from '../../src/handler.js'
import { loadSnapshotFile, parseSnapshotData, saveSnapshotFile } from '../../stores/snapshot-file-store.js'
import type { SnapshotEntry, SnapshotRecord, SnapshotRequest, SnapshotResponse } from '../../stores/snapshot-file-store.js'
import { loadHarFile } from '../../stores/har-reader.js'
import { saveHarFile } from '../../stores/har-writer.js'
import { createHeaderFilters, describeDifferences, formatRequest, hashRequest, requestUrl, urlExclusion, withNamedHeadersOnly, withoutExcluded } from './snapshot-matching.js'
import type { HeaderFilters } from './snapshot-matching.js'
import type { ResolvedSnapshotOptions } from './snapshot-options.js'
import { keyHarExchanges, keyRecords } from './snapshot-keying.js'
import { findSecrets } from './secret-scan.js'
import { redactUrlQuery } from './query-redaction.js'

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
  /** Milliseconds from the dispatch to the head. */
  delayMs?: number | undefined
  /** Milliseconds before each chunk kept (one for a body kept whole). */
  chunkDelaysMs?: number[] | undefined
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
  /** The key of the entry. */
  hash: string
  /** The response to replay for this call (the last one again once the sequence ran out). */
  response: SnapshotResponse
  /** True when the entry is older than `maxAge`. */
  stale: boolean
}

/** True when `path` names a HAR file (by its extension), which is read and written as HAR 1.2. */
export function isHarPath (path: string): boolean {
  return path.toLowerCase().endsWith('.har')
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
  /** Entries asked for or recorded in this run, for `unusedSnapshots()` and `prune`. */
  #used = new WeakSet<SnapshotEntry>()
  /** Stale entries already warned about. */
  #warnedStale = new WeakSet<SnapshotEntry>()
  /** Whether any entry came from another tool's HAR file (and is matched by named headers only). */
  #hasHarEntries = false
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

  /**
   * A request's URL (or a recorded URL) as messages and log lines show it: user information
   * hidden and the values of secret query parameters redacted.
   */
  shownUrl (request: DispatchOptions | string): string {
    const url = typeof request === 'string' ? request : requestUrl(request).toString()
    return showUrl(redactUrlQuery(url, this.#filters.secretParameter))
  }

  /** True the first time it is asked about the entry of `hash`: a stale entry warns once. */
  firstStaleReplay (hash: string): boolean {
    const entry = this.#snapshots.get(hash)
    if (entry === undefined || this.#warnedStale.has(entry)) return false
    this.#warnedStale.add(entry)
    return true
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
        // A flush in the middle of a run does not prune: entries may still be asked for.
        this.#save(this.#opts.snapshotPath!, undefined, false).catch((err: Error) => process.emitWarning(err))
      }, this.#opts.flushInterval)
      // A pending flush must not keep a finished test run alive; close() saves what is left.
      this.#timer.unref?.()
    }
  }

  /**
   * Records a response for a request (unless `shouldRecord` or `excludeUrls` say no). With
   * `replaces`, the key of a stale entry, that entry gives way to the new recording.
   */
  record (requestOpts: DispatchOptions, response: CapturedResponse, replaces?: string): void {
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
    if (response.delayMs !== undefined) stored.delayMs = response.delayMs
    const expectedDelays = stored.chunks?.length ?? (stored.body === '' ? 0 : 1)
    if (response.chunkDelaysMs !== undefined && response.chunkDelaysMs.length === expectedDelays && expectedDelays > 0) stored.chunkDelaysMs = response.chunkDelaysMs
    if (replaces !== undefined) this.#snapshots.delete(replaces)
    const existing = this.#snapshots.get(hash)
    if (existing !== undefined) {
      existing.responses.push(stored)
      existing.timestamp = new Date().toISOString()
      this.#used.add(existing)
    } else {
      if (this.#snapshots.size >= this.#opts.maxSnapshots) {
        const oldest = this.#snapshots.keys().next().value
        if (oldest !== undefined) this.#snapshots.delete(oldest)
      }
      const entry: SnapshotEntry = { request, responses: [stored], callCount: 0, timestamp: new Date().toISOString() }
      this.#snapshots.set(hash, entry)
      this.#used.add(entry)
    }
    log('recorded %s %s (%d response(s))', request.method, request.url, this.#snapshots.get(hash)!.responses.length)
    this.#changed()
  }

  /** True when an entry was recorded longer than `maxAge` ago (an entry without a date counts as old). */
  isStale (entry: SnapshotEntry): boolean {
    if (this.#opts.maxAge === Infinity) return false
    // Date.now() is looked up at each call, so a test's fake clock moves it.
    return Date.now() - Date.parse(entry.timestamp) > this.#opts.maxAge
  }

  /**
   * The snapshot for a request with the response to replay now (counting the call), or
   * undefined when there is none or `shouldPlayback`/`excludeUrls` rule it out.
   */
  findSnapshot (requestOpts: DispatchOptions): SnapshotMatch | undefined {
    if (!this.#opts.shouldPlayback(requestOpts) || this.isUrlExcluded(requestOpts)) return undefined
    const found = this.#lookUp(this.#key(requestOpts))
    if (found === undefined) return undefined
    const [hash, snapshot] = found
    const index = Math.min(snapshot.callCount, snapshot.responses.length - 1)
    snapshot.callCount++
    this.#used.add(snapshot)
    return { ...snapshot, hash, response: snapshot.responses[index]!, stale: this.isStale(snapshot) }
  }

  /** The entry of a keyed request, with its key: recorded by conduit, or (by named headers only) by another tool. */
  #lookUp ({ request, hash }: { request: SnapshotRequest, hash: string }): [string, SnapshotEntry] | undefined {
    const exact = this.#snapshots.get(hash)
    if (exact !== undefined) return [hash, exact]
    if (!this.#hasHarEntries) return undefined
    // Entries another tool recorded are matched without the headers `matchHeaders` does not name.
    const named = hashRequest(withNamedHeadersOnly(request, this.#filters))
    const entry = this.#snapshots.get(named)
    return entry?.source === 'har' ? [named, entry] : undefined
  }

  /** The recorded request that differs least from this one, with the differences; undefined when nothing is recorded. */
  closestSnapshot (requestOpts: DispatchOptions): ClosestSnapshot | undefined {
    const { request } = this.#key(requestOpts)
    let best: ClosestSnapshot | undefined
    for (const snapshot of this.#snapshots.values()) {
      const differences = describeDifferences(snapshot.source === 'har' ? withNamedHeadersOnly(request, this.#filters) : request, snapshot.request)
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

  #info (hash: string, snapshot: SnapshotEntry): SnapshotInfo {
    return { hash, request: snapshot.request, responseCount: snapshot.responses.length, callCount: snapshot.callCount, timestamp: snapshot.timestamp }
  }

  /**
   * The entries no request asked for since they were loaded (nothing recorded in this run is
   * among them): after a run, the recordings its tests no longer use.
   */
  unusedSnapshots (): SnapshotInfo[] {
    return [...this.#snapshots].filter(([, snapshot]) => !this.#used.has(snapshot)).map(([hash, snapshot]) => this.#info(hash, snapshot))
  }

  /** The entries recorded longer than `maxAge` ago (none without `maxAge`). */
  staleSnapshots (): SnapshotInfo[] {
    return [...this.#snapshots].filter(([, snapshot]) => this.isStale(snapshot)).map(([hash, snapshot]) => this.#info(hash, snapshot))
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

  /**
   * Deletes the snapshot of a request; true when there was one. Typed as loosely as undici's
   * (`{}` compiles); options that name no URL fail with `InvalidArgumentError`.
   */
  deleteSnapshot (requestOpts: Partial<DispatchOptions>): boolean {
    const found = this.#lookUp(this.#callerKey(requestOpts, 'deleteSnapshot()'))
    if (found === undefined) return false
    this.#snapshots.delete(found[0])
    this.#changed()
    return true
  }

  /** Metadata of the snapshot of a request, or null. */
  getSnapshotInfo (requestOpts: Partial<DispatchOptions>): SnapshotInfo | null {
    const found = this.#lookUp(this.#callerKey(requestOpts, 'getSnapshotInfo()'))
    return found === undefined ? null : this.#info(...found)
  }

  /** Replaces every snapshot with `data` (the file layout: an array of `{ hash, snapshot }`). */
  replaceSnapshots (data: unknown): void {
    let records: SnapshotRecord[]
    try {
      records = parseSnapshotData(data)
    } catch (err) {
      throw new InvalidArgumentError(`replaceSnapshots(): ${(err as Error).message}`)
    }
    this.#setEntries(keyRecords(records, this.#filters))
    this.#changed()
  }

  #setEntries (entries: Map<string, SnapshotEntry>): void {
    this.#snapshots = entries
    this.#used = new WeakSet()
    this.#hasHarEntries = [...entries.values()].some((entry) => entry.source === 'har')
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
    let entries: Map<string, SnapshotEntry> | undefined
    if (isHarPath(path)) {
      const exchanges = await loadHarFile(path)
      entries = exchanges === undefined ? undefined : keyHarExchanges(exchanges, this.#opts, this.#filters)
    } else {
      const records = await loadSnapshotFile(path)
      entries = records === undefined ? undefined : keyRecords(records, this.#filters)
    }
    // Loads may overlap (the automatic one at construction and an explicit one): the last asked for wins.
    if (generation !== this.#loadGeneration) return
    this.#missingFile = entries === undefined ? path : null
    this.#setEntries(entries ?? new Map())
    this.#loaded = true
    this.#savedVersion = ++this.#version
    log('loaded %d snapshot(s) from %s', this.#snapshots.size, path)
  }

  /** Loads `snapshotPath` once (later calls share the first load); resolves at once without a path. */
  ensureLoaded (): Promise<void> {
    if (this.#loaded || this.#opts.snapshotPath === null) return Promise.resolve()
    return this.#loading ?? this.loadSnapshots()
  }

  /**
   * Saves every snapshot to the file (default `snapshotPath`) atomically, as HAR 1.2 when its
   * name ends in `.har`; saves run one after another. With `prune`, loaded entries no request
   * asked for are left out. Rejects with a `SnapshotSecretError`, writing nothing, when the
   * content looks like it holds a secret (unless `allowSecrets`).
   */
  saveSnapshots (filePath?: string): Promise<void> {
    return this.#save(this.#path(filePath, 'saveSnapshots()'), filePath, this.#opts.prune)
  }

  /** Writes every snapshot to `filePath` as a HAR 1.2 file, atomically, after the same secret scan as a save. */
  exportHar (filePath: string): Promise<void> {
    if (typeof filePath !== 'string' || filePath === '') failOption('exportHar()', 'filePath', 'a non-empty string', filePath)
    return this.#queue(async () => {
      const records = this.#records(false)
      await this.#refuseSecrets(filePath, records)
      await saveHarFile(filePath, records)
      log('exported %d snapshot(s) as HAR to %s', records.length, filePath)
    })
  }

  #records (prune: boolean): SnapshotRecord[] {
    return [...this.#snapshots].filter(([, snapshot]) => !prune || this.#used.has(snapshot)).map(([hash, snapshot]) => ({ hash, snapshot }))
  }

  async #refuseSecrets (path: string, records: readonly SnapshotRecord[]): Promise<void> {
    if (this.#opts.allowSecrets) return
    const findings = await findSecrets(records, this.#filters.keptCredentials)
    if (findings.length === 0) return
    throw new SnapshotSecretError(
      `refusing to save ${path}: it holds what looks like a secret (${findings.length} finding(s)):\n  ${findings.join('\n  ')}\n` +
      'Keep it out of the recording (excludeHeaders, normalizeBody, shouldRecord, excludeUrls) or pass allowSecrets: true to save it anyway',
      path, findings)
  }

  #queue (run: () => Promise<void>): Promise<void> {
    const next = this.#saving.then(run, run)
    this.#saving = next.catch(() => {})
    return next
  }

  #save (path: string, filePath: string | undefined, prune: boolean): Promise<void> {
    return this.#queue(async () => {
      const version = this.#version
      const records = this.#records(prune)
      await this.#refuseSecrets(path, records)
      if (isHarPath(path)) await saveHarFile(path, records)
      else await saveSnapshotFile(path, records)
      if (filePath === undefined || filePath === this.#opts.snapshotPath) this.#savedVersion = version
      log('saved %d snapshot(s) to %s', records.length, path)
    })
  }

  /** Resolves once every save started so far has finished. */
  whenSaved (): Promise<void> {
    return this.#saving
  }

  /** Stops the flush timer, then (in record and update modes) saves unsaved changes (and, with `prune`, drops unused entries) to `snapshotPath`. */
  async close (): Promise<void> {
    this.destroy()
    const writes = (this.#opts.mode === 'record' || this.#opts.mode === 'update') && this.#opts.snapshotPath !== null
    const pruning = this.#opts.prune && this.unusedSnapshots().length > 0
    if (writes && (this.#version !== this.#savedVersion || pruning)) await this.saveSnapshots()
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
