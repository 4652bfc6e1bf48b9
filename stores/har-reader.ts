/**
 * Reading HAR 1.2 files (and 1.1, which 1.2 extends) as a snapshot source: what browsers'
 * developer tools, proxies such as mitmproxy, and other tools export. Each answered entry
 * becomes one exchange (a request and the response to replay for it); `_`-prefixed
 * extensions are ignored except conduit's own (`_chunks`, `_trailers`, `_encoded`, `_source`).
 *
 * A HAR file keeps response content decoded (the `text` of a gzip-compressed answer is the
 * plain text), so the `content-encoding` of such a response is dropped and its
 * `content-length` set to what is replayed.
 * @module
 */

import { basename, dirname, resolve } from 'node:path'
import { removeStaleTemps } from './atomic-file.js'
import { FileProblem, checkMilliseconds, describeKind, fileError, isObject, readJsonFile } from './snapshot-file-input.js'
import type { SnapshotHeaders, SnapshotResponse } from './snapshot-file-store.js'

/** The HAR versions read: 1.2, and 1.1 (an empty version means 1.1). */
export const HAR_VERSIONS: readonly string[] = ['1.2', '1.1', '']

/** The `creator.name` conduit writes into the HAR files it exports. */
export const HAR_CREATOR = 'conduit'

/** Content codings a HAR writer undoes before it writes `content.text`. */
const DECODED_CODINGS = new Set(['gzip', 'x-gzip', 'deflate', 'br', 'zstd', 'identity'])

/** The request of a HAR entry, as recorded (headers as sent, body as text). */
export interface HarRequest {
  /** Request method. */
  method: string
  /** Absolute URL, query included. */
  url: string
  /** Request headers (pseudo-headers such as `:authority` left out). */
  headers: SnapshotHeaders
  /** The body as text; empty when there was none. */
  body: string
}

/** One answered HAR entry. */
export interface HarExchange {
  /** Its index in `log.entries`, for messages. */
  entry: number
  /** When it was started (ISO 8601). */
  startedDateTime: string
  /** The request. */
  request: HarRequest
  /** The response to replay, in the snapshot layout (body base64). */
  response: SnapshotResponse
  /** True when conduit wrote the file: the request is as conduit keyed it (normalised, filtered, redacted). */
  keyed: boolean
  /**
   * True when the request headers match as in a snapshot file (conduit recorded the request);
   * false for another tool's, matched only by the headers `matchHeaders` names.
   */
  exactHeaders: boolean
}

function headerList (value: unknown, entry: number, field: string): Array<[string, string]> {
  if (!Array.isArray(value)) throw new FileProblem(entry, field, `must be an array of { name, value }, got ${describeKind(value)}`)
  return value.map((header, i) => {
    if (!isObject(header) || typeof header.name !== 'string' || header.name === '') {
      throw new FileProblem(entry, `${field}[${i}].name`, `must be a non-empty string, got ${describeKind(isObject(header) ? header.name : header)}`)
    }
    if (typeof header.value !== 'string') throw new FileProblem(entry, `${field}[${i}].value`, `must be a string, got ${describeKind(header.value)}`)
    return [header.name, header.value] as [string, string]
  })
}

/** A `{ name, value }` list as a header record: names lower-cased, repeated names as arrays, pseudo-headers dropped. */
function toRecord (list: Array<[string, string]>): SnapshotHeaders {
  const out: SnapshotHeaders = {}
  for (const [rawName, value] of list) {
    if (rawName.startsWith(':')) continue
    const name = rawName.toLowerCase()
    const existing = Object.hasOwn(out, name) ? out[name] : undefined
    const next = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value]
    Object.defineProperty(out, name, { value: next, enumerable: true, writable: true, configurable: true })
  }
  return out
}

function base64 (text: string, entry: number, field: string): Buffer {
  const compact = text.replace(/\s+/g, '')
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) throw new FileProblem(entry, field, 'must be base64 (its encoding says so)')
  return Buffer.from(compact, 'base64')
}

function requestBody (postData: unknown, entry: number): string {
  if (postData === undefined) return ''
  if (!isObject(postData)) throw new FileProblem(entry, 'request.postData', `must be an object, got ${describeKind(postData)}`)
  if (postData.text !== undefined) {
    if (typeof postData.text !== 'string') throw new FileProblem(entry, 'request.postData.text', `must be a string, got ${describeKind(postData.text)}`)
    if (postData.encoding === 'base64') return base64(postData.text, entry, 'request.postData.text').toString('utf8')
    return postData.text
  }
  if (postData.params === undefined) return ''
  // Only the form fields were kept: the urlencoded body they were sent as.
  const params = headerList(postData.params, entry, 'request.postData.params')
  return new URLSearchParams(params).toString()
}

/** The body bytes and whether the `content-encoding` header still describes them. */
function responseBody (content: unknown, entry: number): { body: Buffer, encoded: boolean } {
  if (!isObject(content)) throw new FileProblem(entry, 'response.content', `must be an object, got ${describeKind(content)}`)
  const encoded = content._encoded === true
  if (content.text === undefined) return { body: Buffer.alloc(0), encoded }
  if (typeof content.text !== 'string') throw new FileProblem(entry, 'response.content.text', `must be a string, got ${describeKind(content.text)}`)
  if (content.encoding === undefined || content.encoding === '') return { body: Buffer.from(content.text, 'utf8'), encoded }
  if (content.encoding !== 'base64') {
    throw new FileProblem(entry, 'response.content.encoding', `must be "base64" when present, got ${typeof content.encoding === 'string' ? JSON.stringify(content.encoding) : describeKind(content.encoding)}`)
  }
  return { body: base64(content.text, entry, 'response.content.text'), encoded }
}

/** Drops a `content-encoding` the HAR writer already undid, and sets `content-length` to the body replayed. */
function replayedHeaders (headers: SnapshotHeaders, body: Buffer, encoded: boolean): SnapshotHeaders {
  const coding = headers['content-encoding']
  if (coding !== undefined && !encoded) {
    const codings = (Array.isArray(coding) ? coding.join(',') : coding).split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== '')
    if (codings.every((c) => DECODED_CODINGS.has(c))) delete headers['content-encoding']
  }
  if (headers['content-length'] !== undefined) headers['content-length'] = String(body.length)
  return headers
}

function timing (timings: unknown, entry: number): { delayMs: number, receiveMs: number } | undefined {
  if (timings === undefined) return undefined
  if (!isObject(timings)) throw new FileProblem(entry, 'timings', `must be an object, got ${describeKind(timings)}`)
  let delayMs = 0
  let receiveMs = 0
  // `ssl` is part of `connect` (HAR 1.2); -1 means "does not apply".
  for (const phase of ['blocked', 'dns', 'connect', 'send', 'wait', 'receive']) {
    const value = timings[phase]
    if (value === undefined || value === -1) continue
    const ms = checkMilliseconds(value, entry, `timings.${phase}`)
    if (phase === 'receive') receiveMs = ms
    else delayMs += ms
  }
  return { delayMs, receiveMs }
}

/** Conduit's `_chunks` extension: the body's chunks by size, each with the delay before it. */
function recordedChunks (value: unknown, body: Buffer, entry: number): { chunks: string[], delays: number[] } | undefined {
  if (value === undefined) return undefined
  if (!Array.isArray(value)) throw new FileProblem(entry, 'response._chunks', `must be an array of { bytes, delayMs }, got ${describeKind(value)}`)
  const chunks: string[] = []
  const delays: number[] = []
  let offset = 0
  for (const [i, chunk] of value.entries()) {
    if (!isObject(chunk) || typeof chunk.bytes !== 'number' || !Number.isInteger(chunk.bytes) || chunk.bytes < 0) {
      throw new FileProblem(entry, `response._chunks[${i}].bytes`, 'must be a non-negative integer')
    }
    chunks.push(body.subarray(offset, offset + chunk.bytes).toString('base64'))
    delays.push(checkMilliseconds(chunk.delayMs ?? 0, entry, `response._chunks[${i}].delayMs`))
    offset += chunk.bytes
  }
  if (offset !== body.length) throw new FileProblem(entry, 'response._chunks', `must add up to the ${body.length} bytes of the content, got ${offset}`)
  return { chunks, delays }
}

function exchange (raw: unknown, entry: number, byConduit: boolean): HarExchange | null {
  if (!isObject(raw)) throw new FileProblem(entry, '', `must be an object, got ${describeKind(raw)}`)
  const { request, response } = raw
  if (typeof raw.startedDateTime !== 'string' || Number.isNaN(Date.parse(raw.startedDateTime))) {
    throw new FileProblem(entry, 'startedDateTime', `must be an ISO 8601 date, got ${describeKind(raw.startedDateTime)}`)
  }
  if (!isObject(request)) throw new FileProblem(entry, 'request', `must be an object, got ${describeKind(request)}`)
  if (typeof request.method !== 'string' || request.method === '') throw new FileProblem(entry, 'request.method', `must be a non-empty string, got ${describeKind(request.method)}`)
  if (typeof request.url !== 'string' || !URL.canParse(request.url)) {
    throw new FileProblem(entry, 'request.url', typeof request.url === 'string' ? 'must be an absolute URL' : `must be a string, got ${describeKind(request.url)}`)
  }
  if (!isObject(response)) throw new FileProblem(entry, 'response', `must be an object, got ${describeKind(response)}`)
  if (typeof response.status !== 'number' || !Number.isInteger(response.status) || response.status < 0 || response.status > 999) {
    throw new FileProblem(entry, 'response.status', `must be an integer status code, got ${typeof response.status === 'number' ? String(response.status) : describeKind(response.status)}`)
  }
  const requestHeaders = toRecord(headerList(request.headers, entry, 'request.headers'))
  const responseHeaders = toRecord(headerList(response.headers, entry, 'response.headers'))
  const { body, encoded } = responseBody(response.content, entry)
  const requestText = requestBody(request.postData, entry)
  // Status 0 is a request that got no answer (blocked, failed, cancelled); 101 a WebSocket or other upgrade: neither replays as a response.
  if (response.status === 0 || response.status === 101) return null
  const replayed: SnapshotResponse = {
    statusCode: response.status,
    headers: replayedHeaders(responseHeaders, body, encoded),
    body: body.toString('base64'),
    trailers: response._trailers === undefined ? {} : toRecord(headerList(response._trailers, entry, 'response._trailers'))
  }
  const timed = timing(raw.timings, entry)
  const chunks = recordedChunks(response._chunks, body, entry)
  if (chunks !== undefined && chunks.chunks.length > 1) replayed.chunks = chunks.chunks
  if (timed !== undefined) {
    replayed.delayMs = timed.delayMs
    if (body.length > 0) replayed.chunkDelaysMs = chunks !== undefined && chunks.chunks.length > 1 ? chunks.delays : [timed.receiveMs]
  }
  return {
    entry,
    startedDateTime: new Date(raw.startedDateTime).toISOString(),
    request: { method: request.method, url: request.url, headers: requestHeaders, body: requestText },
    response: replayed,
    keyed: byConduit,
    exactHeaders: byConduit && raw._source !== 'har'
  }
}

/** Validates parsed HAR content; throws a {@link FileProblem} naming the entry and the field. */
export function parseHar (data: unknown): HarExchange[] {
  if (!isObject(data)) throw new FileProblem(undefined, '', `must be an object with a log, got ${describeKind(data)}`)
  const log = data.log
  if (!isObject(log)) throw new FileProblem(undefined, 'log', `must be an object, got ${describeKind(log)}`)
  if (typeof log.version !== 'string' || !HAR_VERSIONS.includes(log.version)) {
    throw new FileProblem(undefined, 'log.version', `must be "1.2" or "1.1", got ${typeof log.version === 'string' ? JSON.stringify(log.version) : describeKind(log.version)}`)
  }
  if (!Array.isArray(log.entries)) throw new FileProblem(undefined, 'log.entries', `must be an array, got ${describeKind(log.entries)}`)
  const byConduit = isObject(log.creator) && log.creator.name === HAR_CREATOR
  const exchanges: HarExchange[] = []
  for (const [i, raw] of log.entries.entries()) {
    const one = exchange(raw, i, byConduit)
    if (one !== null) exchanges.push(one)
  }
  return exchanges
}

/**
 * Reads a HAR file. Resolves to `undefined` when it does not exist; rejects with a
 * `SnapshotFileError` naming the file, the entry and the field when it is not a HAR file.
 */
export async function loadHarFile (path: string): Promise<HarExchange[] | undefined> {
  const resolved = resolve(path)
  await removeStaleTemps(dirname(resolved), basename(resolved))
  const data = await readJsonFile(resolved, 'HAR file')
  if (data === undefined) return undefined
  try {
    return parseHar(data)
  } catch (err) {
    throw fileError(resolved, 'HAR file', err)
  }
}
