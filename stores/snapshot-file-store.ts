/**
 * The snapshot file: load and atomic save. The layout is undici's SnapshotAgent layout (a JSON
 * array of `{ hash, snapshot: { request, responses, timestamp } }`, bodies in base64), so files
 * recorded by either library load in the other. Entries are sorted and keys ordered so that a
 * re-recording diffs cleanly in review.
 * @module
 */

import { mkdir, open, readdir, readFile, rename, unlink } from 'node:fs/promises'
import { randomBytes } from 'node:crypto'
import { basename, dirname, join, resolve } from 'node:path'
import { SnapshotFileError } from '../src/handler.js'

/** Header record of a snapshot: lower-case names. */
export type SnapshotHeaders = Record<string, string | string[]>

/** The recorded request, as used for matching (filtered headers, normalised body). */
export interface SnapshotRequest {
  /** Request method. */
  method: string
  /** Absolute URL (query included unless `matchQuery` is false). */
  url: string
  /** The headers that take part in matching. */
  headers: SnapshotHeaders
  /** Request body as matched; empty string when there was none. */
  body?: string | undefined
}

/** One recorded response. */
export interface SnapshotResponse {
  /** Response status code. */
  statusCode: number
  /** Response headers (excluded headers removed). */
  headers: SnapshotHeaders
  /** The whole body, base64 (byte-exact for binary bodies). */
  body: string
  /** Always `base64`; written so a reader of the file knows the body is not text. */
  bodyEncoding?: 'base64' | undefined
  /** For streamed responses (chunked, server-sent events, NDJSON): each chunk as received, base64. */
  chunks?: string[] | undefined
  /** Response trailers (excluded headers removed). */
  trailers?: SnapshotHeaders | undefined
}

/** A recorded request with its responses, replayed in order. */
export interface SnapshotEntry {
  /** The request as it is matched. */
  request: SnapshotRequest
  /** Its responses, replayed in this order. */
  responses: SnapshotResponse[]
  /** How many times it was replayed (kept in memory, not written). */
  callCount: number
  /** When it was recorded (ISO 8601). */
  timestamp: string
}

/** One element of the snapshot file. */
export interface SnapshotRecord {
  /** The key of the snapshot: a hash of the matched request. */
  hash: string
  /** The request and its responses. */
  snapshot: SnapshotEntry
}

function isObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function describe (value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value
}

function checkHeaders (value: unknown, where: string): SnapshotHeaders {
  if (value === undefined) return {}
  if (!isObject(value)) throw new Error(`${where} must be an object, got ${describe(value)}`)
  const out: SnapshotHeaders = {}
  for (const name of Object.keys(value)) {
    const v = value[name]
    let checked: string | string[]
    if (typeof v === 'string') checked = v
    else if (Array.isArray(v) && v.every((item) => typeof item === 'string')) checked = v as string[]
    else if (typeof v === 'number') checked = String(v)
    else throw new Error(`${where}.${name} must be a string or an array of strings, got ${describe(v)}`)
    // A file is input: a header named __proto__ must stay a plain property, not a prototype.
    Object.defineProperty(out, name, { value: checked, enumerable: true, writable: true, configurable: true })
  }
  return out
}

function checkResponse (value: unknown, where: string): SnapshotResponse {
  if (!isObject(value)) throw new Error(`${where} must be an object, got ${describe(value)}`)
  if (typeof value.statusCode !== 'number' || !Number.isInteger(value.statusCode)) {
    throw new Error(`${where}.statusCode must be an integer, got ${describe(value.statusCode)}`)
  }
  if (typeof value.body !== 'string') throw new Error(`${where}.body must be a base64 string, got ${describe(value.body)}`)
  if (value.bodyEncoding !== undefined && value.bodyEncoding !== 'base64') {
    throw new Error(`${where}.bodyEncoding must be "base64", got ${JSON.stringify(value.bodyEncoding)}`)
  }
  if (value.chunks !== undefined && (!Array.isArray(value.chunks) || !value.chunks.every((c) => typeof c === 'string'))) {
    throw new Error(`${where}.chunks must be an array of base64 strings`)
  }
  const response: SnapshotResponse = {
    statusCode: value.statusCode,
    headers: checkHeaders(value.headers, `${where}.headers`),
    body: value.body,
    trailers: checkHeaders(value.trailers ?? {}, `${where}.trailers`)
  }
  if (value.chunks !== undefined) response.chunks = value.chunks as string[]
  return response
}

/** Validates one `{ hash, snapshot }` element (also the legacy single `response` form); throws a plain Error naming the field. */
export function checkRecord (value: unknown, where: string): SnapshotRecord {
  if (!isObject(value)) throw new Error(`${where} must be an object with hash and snapshot, got ${describe(value)}`)
  const { hash, snapshot } = value
  if (typeof hash !== 'string' || hash === '') throw new Error(`${where}.hash must be a non-empty string, got ${describe(hash)}`)
  if (!isObject(snapshot)) throw new Error(`${where}.snapshot must be an object, got ${describe(snapshot)}`)
  const request = snapshot.request
  if (!isObject(request)) throw new Error(`${where}.snapshot.request must be an object, got ${describe(request)}`)
  if (typeof request.method !== 'string') throw new Error(`${where}.snapshot.request.method must be a string, got ${describe(request.method)}`)
  if (typeof request.url !== 'string') throw new Error(`${where}.snapshot.request.url must be a string, got ${describe(request.url)}`)
  if (request.body !== undefined && typeof request.body !== 'string') {
    throw new Error(`${where}.snapshot.request.body must be a string, got ${describe(request.body)}`)
  }
  const rawResponses = Array.isArray(snapshot.responses) ? snapshot.responses : snapshot.response !== undefined ? [snapshot.response] : undefined
  if (rawResponses === undefined || rawResponses.length === 0) {
    throw new Error(`${where}.snapshot.responses must be a non-empty array`)
  }
  return {
    hash,
    snapshot: {
      request: { method: request.method, url: request.url, headers: checkHeaders(request.headers, `${where}.snapshot.request.headers`), body: request.body as string | undefined },
      responses: rawResponses.map((r, i) => checkResponse(r, `${where}.snapshot.responses[${i}]`)),
      callCount: typeof snapshot.callCount === 'number' ? snapshot.callCount : 0,
      timestamp: typeof snapshot.timestamp === 'string' ? snapshot.timestamp : new Date(0).toISOString()
    }
  }
}

/** Validates file content (the array layout, or undici's older `{ [hash]: snapshot }` object). */
export function parseSnapshotData (data: unknown): SnapshotRecord[] {
  if (Array.isArray(data)) return data.map((item, i) => checkRecord(item, `entry ${i}`))
  if (isObject(data)) return Object.keys(data).map((hash) => checkRecord({ hash, snapshot: data[hash] }, `entry ${JSON.stringify(hash)}`))
  throw new Error(`expected a JSON array of { hash, snapshot } entries, got ${describe(data)}`)
}

/**
 * Reads a snapshot file. Resolves to `undefined` when the file does not exist; rejects with a
 * {@link SnapshotFileError} naming the file and the problem when it cannot be read or is not a snapshot file.
 * Temporary files that processes no longer running left next to it are removed first.
 */
export async function loadSnapshotFile (path: string): Promise<SnapshotRecord[] | undefined> {
  const resolved = resolve(path)
  // A run that only replays never saves, so loading is the other moment to clear what killed writers left.
  await removeStaleTemps(dirname(resolved), basename(resolved))
  let text: string
  try {
    text = await readFile(resolved, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new SnapshotFileError(`could not read snapshot file ${resolved}: ${(err as Error).message}`, resolved, { cause: err })
  }
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (err) {
    throw new SnapshotFileError(`snapshot file ${resolved} is not valid JSON: ${(err as Error).message}`, resolved, { cause: err })
  }
  try {
    return parseSnapshotData(data)
  } catch (err) {
    throw new SnapshotFileError(`snapshot file ${resolved} is not a snapshot file: ${(err as Error).message}`, resolved, { cause: err })
  }
}

function sortedHeaders (headers: SnapshotHeaders | undefined): SnapshotHeaders {
  const out: SnapshotHeaders = {}
  if (headers === undefined) return out
  for (const name of Object.keys(headers).sort()) {
    Object.defineProperty(out, name, { value: headers[name], enumerable: true, writable: true, configurable: true })
  }
  return out
}

/** The file form of the records: sorted by URL, method and hash, keys in a fixed order, no call counts. */
export function serializeSnapshots (records: readonly SnapshotRecord[]): string {
  const sorted = [...records].sort((a, b) =>
    compare(a.snapshot.request.url, b.snapshot.request.url) ||
    compare(a.snapshot.request.method, b.snapshot.request.method) ||
    compare(a.hash, b.hash))
  const data = sorted.map(({ hash, snapshot }) => ({
    hash,
    snapshot: {
      request: {
        method: snapshot.request.method,
        url: snapshot.request.url,
        headers: sortedHeaders(snapshot.request.headers),
        body: snapshot.request.body ?? ''
      },
      responses: snapshot.responses.map((r) => ({
        statusCode: r.statusCode,
        headers: sortedHeaders(r.headers),
        body: r.body,
        bodyEncoding: 'base64',
        ...(r.chunks !== undefined ? { chunks: r.chunks } : {}),
        trailers: sortedHeaders(r.trailers)
      })),
      timestamp: snapshot.timestamp
    }
  }))
  return `${JSON.stringify(data, null, 2)}\n`
}

function compare (a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

function isAlive (pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Deletes temporary files a killed process left next to `file` (same naming scheme, owner no
 * longer running). Files of running processes, this one included, may be saves in progress and stay.
 */
async function removeStaleTemps (dir: string, file: string): Promise<void> {
  const prefix = `.${file}.`
  const names = await readdir(dir).catch(() => [] as string[])
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue
    const match = /^(\d+)\.[0-9a-f]{12}\.tmp$/.exec(name.slice(prefix.length))
    if (match === null) continue
    const pid = Number(match[1])
    if (pid !== process.pid && !isAlive(pid)) await unlink(join(dir, name)).catch(() => {})
  }
}

/**
 * Writes the records atomically: to a temporary file in the same directory, flushed to disk,
 * then renamed over the target, so a crash mid-save leaves the previous file intact. Temporary
 * files left by processes killed mid-save are removed by the next successful save.
 */
export async function saveSnapshotFile (path: string, records: readonly SnapshotRecord[]): Promise<void> {
  const resolved = resolve(path)
  const dir = dirname(resolved)
  const temp = join(dir, `.${basename(resolved)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`)
  try {
    await mkdir(dir, { recursive: true })
    const handle = await open(temp, 'wx', 0o644)
    try {
      await handle.writeFile(serializeSnapshots(records), 'utf8')
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temp, resolved)
  } catch (err) {
    await unlink(temp).catch(() => {})
    throw new SnapshotFileError(`could not save snapshot file ${resolved}: ${(err as Error).message}`, resolved, { cause: err })
  }
  // The rename is durable only once the directory entry is on disk; some platforms cannot open a directory.
  const dirHandle = await open(dir, 'r').catch(() => null)
  if (dirHandle !== null) {
    await dirHandle.sync().catch(() => {})
    await dirHandle.close()
  }
  await removeStaleTemps(dir, basename(resolved))
}
