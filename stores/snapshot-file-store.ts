/**
 * The snapshot file: load and atomic save. The layout is undici's SnapshotAgent layout (a JSON
 * array of `{ hash, snapshot: { request, responses, timestamp } }`, bodies in base64), so files
 * recorded by either library load in the other. Entries are sorted and keys ordered so that a
 * re-recording diffs cleanly in review.
 * @module
 */

import { basename, dirname, resolve } from 'node:path'
import type { SnapshotFileError } from '../src/handler.js'
import { removeStaleTemps, writeFileAtomically } from './atomic-file.js'
import { FileProblem, checkMilliseconds, describeKind, fileError, isObject, readJsonFile } from './snapshot-file-input.js'

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
  /** Milliseconds from sending the request to the response head, as recorded (replayed with `replaySpeed`). */
  delayMs?: number | undefined
  /**
   * Milliseconds before each chunk of the body (the first counted from the head), one per
   * element of `chunks` (or one for a whole body), as recorded for streamed responses.
   */
  chunkDelaysMs?: number[] | undefined
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
  /**
   * `har` for an entry another tool recorded (imported from its HAR file): its request headers
   * take part in matching only where `matchHeaders` names them.
   */
  source?: 'har' | undefined
}

/** One element of the snapshot file. */
export interface SnapshotRecord {
  /** The key of the snapshot: a hash of the matched request. */
  hash: string
  /** The request and its responses. */
  snapshot: SnapshotEntry
}

type Entry = number | string

function checkHeaders (value: unknown, entry: Entry, field: string): SnapshotHeaders {
  if (value === undefined) return {}
  if (!isObject(value)) throw new FileProblem(entry, field, `must be an object, got ${describeKind(value)}`)
  const out: SnapshotHeaders = {}
  for (const name of Object.keys(value)) {
    const v = value[name]
    let checked: string | string[]
    if (typeof v === 'string') checked = v
    else if (Array.isArray(v) && v.every((item) => typeof item === 'string')) checked = v as string[]
    else if (typeof v === 'number') checked = String(v)
    else throw new FileProblem(entry, `${field}.${name}`, `must be a string or an array of strings, got ${describeKind(v)}`)
    // A file is input: a header named __proto__ must stay a plain property, not a prototype.
    Object.defineProperty(out, name, { value: checked, enumerable: true, writable: true, configurable: true })
  }
  return out
}

function checkResponse (value: unknown, entry: Entry, field: string): SnapshotResponse {
  if (!isObject(value)) throw new FileProblem(entry, field, `must be an object, got ${describeKind(value)}`)
  if (typeof value.statusCode !== 'number' || !Number.isInteger(value.statusCode)) {
    throw new FileProblem(entry, `${field}.statusCode`, `must be an integer, got ${describeKind(value.statusCode)}`)
  }
  if (typeof value.body !== 'string') throw new FileProblem(entry, `${field}.body`, `must be a base64 string, got ${describeKind(value.body)}`)
  if (value.bodyEncoding !== undefined && value.bodyEncoding !== 'base64') {
    throw new FileProblem(entry, `${field}.bodyEncoding`, `must be "base64", got ${typeof value.bodyEncoding === 'string' ? JSON.stringify(value.bodyEncoding) : describeKind(value.bodyEncoding)}`)
  }
  if (value.chunks !== undefined && (!Array.isArray(value.chunks) || !value.chunks.every((c) => typeof c === 'string'))) {
    throw new FileProblem(entry, `${field}.chunks`, 'must be an array of base64 strings')
  }
  const response: SnapshotResponse = {
    statusCode: value.statusCode,
    headers: checkHeaders(value.headers, entry, `${field}.headers`),
    body: value.body,
    trailers: checkHeaders(value.trailers ?? {}, entry, `${field}.trailers`)
  }
  if (value.chunks !== undefined) response.chunks = value.chunks as string[]
  if (value.delayMs !== undefined) response.delayMs = checkMilliseconds(value.delayMs, entry, `${field}.delayMs`)
  if (value.chunkDelaysMs !== undefined) {
    const delays = value.chunkDelaysMs
    const expected = response.chunks?.length ?? (response.body === '' ? 0 : 1)
    if (!Array.isArray(delays) || delays.length !== expected) {
      throw new FileProblem(entry, `${field}.chunkDelaysMs`, `must be an array of ${expected} delay(s), one per chunk, got ${Array.isArray(delays) ? `${delays.length}` : describeKind(delays)}`)
    }
    response.chunkDelaysMs = delays.map((d, i) => checkMilliseconds(d, entry, `${field}.chunkDelaysMs[${i}]`))
  }
  return response
}

/** Validates one `{ hash, snapshot }` element (also the legacy single `response` form); throws a {@link FileProblem} naming the entry and the field. */
export function checkRecord (value: unknown, entry: Entry): SnapshotRecord {
  if (!isObject(value)) throw new FileProblem(entry, '', `must be an object with hash and snapshot, got ${describeKind(value)}`)
  const { hash, snapshot } = value
  if (typeof hash !== 'string' || hash === '') throw new FileProblem(entry, 'hash', `must be a non-empty string, got ${describeKind(hash)}`)
  if (!isObject(snapshot)) throw new FileProblem(entry, 'snapshot', `must be an object, got ${describeKind(snapshot)}`)
  const request = snapshot.request
  if (!isObject(request)) throw new FileProblem(entry, 'snapshot.request', `must be an object, got ${describeKind(request)}`)
  if (typeof request.method !== 'string') throw new FileProblem(entry, 'snapshot.request.method', `must be a string, got ${describeKind(request.method)}`)
  if (typeof request.url !== 'string' || !URL.canParse(request.url)) {
    throw new FileProblem(entry, 'snapshot.request.url', typeof request.url === 'string' ? 'must be an absolute URL' : `must be a string, got ${describeKind(request.url)}`)
  }
  if (request.body !== undefined && typeof request.body !== 'string') {
    throw new FileProblem(entry, 'snapshot.request.body', `must be a string, got ${describeKind(request.body)}`)
  }
  const rawResponses = Array.isArray(snapshot.responses) ? snapshot.responses : snapshot.response !== undefined ? [snapshot.response] : undefined
  if (rawResponses === undefined || rawResponses.length === 0) {
    throw new FileProblem(entry, 'snapshot.responses', 'must be a non-empty array')
  }
  if (snapshot.timestamp !== undefined && (typeof snapshot.timestamp !== 'string' || Number.isNaN(Date.parse(snapshot.timestamp)))) {
    throw new FileProblem(entry, 'snapshot.timestamp', `must be an ISO 8601 date, got ${describeKind(snapshot.timestamp)}`)
  }
  if (snapshot.source !== undefined && snapshot.source !== 'har') {
    throw new FileProblem(entry, 'snapshot.source', `must be "har" when present, got ${describeKind(snapshot.source)}`)
  }
  const checked: SnapshotEntry = {
    request: { method: request.method, url: request.url, headers: checkHeaders(request.headers, entry, 'snapshot.request.headers'), body: request.body as string | undefined },
    responses: rawResponses.map((r, i) => checkResponse(r, entry, `snapshot.responses[${i}]`)),
    callCount: typeof snapshot.callCount === 'number' ? snapshot.callCount : 0,
    // An entry without a date (an older undici file) counts as recorded long ago.
    timestamp: typeof snapshot.timestamp === 'string' ? snapshot.timestamp : new Date(0).toISOString()
  }
  if (snapshot.source === 'har') checked.source = 'har'
  return { hash, snapshot: checked }
}

/** Validates file content (the array layout, or undici's older `{ [hash]: snapshot }` object). */
export function parseSnapshotData (data: unknown): SnapshotRecord[] {
  if (Array.isArray(data)) return data.map((item, i) => checkRecord(item, i))
  if (isObject(data)) return Object.keys(data).map((hash) => checkRecord({ hash, snapshot: data[hash] }, hash))
  throw new Error(`expected a JSON array of { hash, snapshot } entries, got ${describeKind(data)}`)
}

/**
 * Reads a snapshot file. Resolves to `undefined` when the file does not exist; rejects with a
 * {@link SnapshotFileError} naming the file, the entry and the field when it cannot be read or
 * is not a snapshot file. Temporary files that processes no longer running left next to it are removed first.
 */
export async function loadSnapshotFile (path: string): Promise<SnapshotRecord[] | undefined> {
  const resolved = resolve(path)
  // A run that only replays never saves, so loading is the other moment to clear what killed writers left.
  await removeStaleTemps(dirname(resolved), basename(resolved))
  const data = await readJsonFile(resolved, 'snapshot file')
  if (data === undefined) return undefined
  try {
    return parseSnapshotData(data)
  } catch (err) {
    throw fileError(resolved, 'snapshot file', err)
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
        trailers: sortedHeaders(r.trailers),
        ...(r.delayMs !== undefined ? { delayMs: r.delayMs } : {}),
        ...(r.chunkDelaysMs !== undefined ? { chunkDelaysMs: r.chunkDelaysMs } : {})
      })),
      timestamp: snapshot.timestamp,
      ...(snapshot.source !== undefined ? { source: snapshot.source } : {})
    }
  }))
  return `${JSON.stringify(data, null, 2)}\n`
}

function compare (a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * Writes the records atomically (see {@link writeFileAtomically}): a crash mid-save leaves the
 * previous file intact.
 */
export async function saveSnapshotFile (path: string, records: readonly SnapshotRecord[]): Promise<void> {
  await writeFileAtomically(path, serializeSnapshots(records), 'snapshot file')
}
