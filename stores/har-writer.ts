/**
 * Writing snapshots as a HAR 1.2 file, for browsers' developer tools, HAR viewers and other
 * tools: one HAR entry per recorded response (a repeated request's responses in order), its
 * content decoded as HAR wants it, text where it is UTF-8 and base64 otherwise. What HAR has no
 * field for is kept in `_`-prefixed extensions conduit reads back: the chunks of a streamed
 * response with their delays (`_chunks`), trailers (`_trailers`), a body whose coding could not
 * be undone (`content._encoded`) and entries imported from another tool (`_source`).
 * @module
 */

import { readFile } from 'node:fs/promises'
import { statusText } from '../src/handler.js'
import { writeFileAtomically } from './atomic-file.js'
import { contentEncodingOf, decodeContent, isEncoded } from './content-decoding.js'
import { HAR_CREATOR } from './har-reader.js'
import type { SnapshotHeaders, SnapshotRecord, SnapshotResponse } from './snapshot-file-store.js'

interface NameValue { name: string, value: string }

let version: Promise<string> | undefined

/** The library's version from its package.json (one level above its build folder), or empty when it cannot be read. */
function libraryVersion (): Promise<string> {
  version ??= readFile(new URL('../../package.json', import.meta.url), 'utf8')
    .then((text) => String((JSON.parse(text) as { version?: unknown }).version ?? ''), () => '')
  return version
}

function nameValues (headers: SnapshotHeaders | undefined): NameValue[] {
  const out: NameValue[] = []
  for (const name of Object.keys(headers ?? {})) {
    const value = headers![name]!
    for (const one of Array.isArray(value) ? value : [value]) out.push({ name, value: one })
  }
  return out
}

function header (headers: SnapshotHeaders, wanted: string): string | undefined {
  for (const name of Object.keys(headers)) {
    if (name.toLowerCase() !== wanted) continue
    const value = headers[name]!
    return Array.isArray(value) ? value.join(', ') : value
  }
  return undefined
}

/** `cookie: a=1; b=2` as HAR cookies. */
function requestCookies (headers: SnapshotHeaders): NameValue[] {
  const value = header(headers, 'cookie')
  if (value === undefined) return []
  return value.split(';').map((pair) => pair.trim()).filter((pair) => pair !== '').map((pair) => {
    const eq = pair.indexOf('=')
    return eq === -1 ? { name: pair, value: '' } : { name: pair.slice(0, eq), value: pair.slice(eq + 1) }
  })
}

/** `set-cookie` lines as HAR cookies: name, value and the attributes HAR names. */
function responseCookies (headers: SnapshotHeaders): Array<Record<string, string | boolean>> {
  const raw = headers['set-cookie']
  if (raw === undefined) return []
  return (Array.isArray(raw) ? raw : [raw]).map((line) => {
    const [pair = '', ...attributes] = line.split(';')
    const eq = pair.indexOf('=')
    const cookie: Record<string, string | boolean> = { name: eq === -1 ? pair.trim() : pair.slice(0, eq).trim(), value: eq === -1 ? '' : pair.slice(eq + 1).trim() }
    for (const attribute of attributes) {
      const [key = '', value = ''] = attribute.split('=').map((part) => part.trim())
      const lower = key.toLowerCase()
      if (lower === 'path' || lower === 'domain') cookie[lower] = value
      else if (lower === 'expires' && !Number.isNaN(Date.parse(value))) cookie.expires = new Date(value).toISOString()
      else if (lower === 'httponly') cookie.httpOnly = true
      else if (lower === 'secure') cookie.secure = true
      else if (lower === 'samesite') cookie.sameSite = value
    }
    return cookie
  })
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

function textContent (body: Buffer): { text: string, encoding?: 'base64' } {
  try {
    return { text: utf8.decode(body) }
  } catch {
    return { text: body.toString('base64'), encoding: 'base64' }
  }
}

function sum (values: readonly number[] | undefined): number {
  return (values ?? []).reduce((total, value) => total + value, 0)
}

async function harResponse (response: SnapshotResponse): Promise<Record<string, unknown>> {
  const wire = Buffer.from(response.body, 'base64')
  const coding = contentEncodingOf(response.headers)
  const decoded = await decodeContent(wire, coding)
  const body = decoded ?? wire
  const content: Record<string, unknown> = { size: body.length, mimeType: header(response.headers, 'content-type') ?? 'x-unknown', ...textContent(body) }
  // Bytes saved by the coding (HAR 1.2).
  if (decoded !== null && isEncoded(coding)) content.compression = body.length - wire.length
  if (decoded === null) content._encoded = true
  const out: Record<string, unknown> = {
    status: response.statusCode,
    statusText: statusText(response.statusCode),
    httpVersion: '',
    cookies: responseCookies(response.headers),
    headers: nameValues(response.headers),
    content,
    redirectURL: header(response.headers, 'location') ?? '',
    headersSize: -1,
    bodySize: wire.length
  }
  // Chunk boundaries are those of the bytes sent: they say nothing about decoded content.
  if (!isEncoded(coding) && (response.chunks !== undefined || response.chunkDelaysMs !== undefined)) {
    const chunks = response.chunks ?? (response.body === '' ? [] : [response.body])
    out._chunks = chunks.map((chunk, i) => ({ bytes: Buffer.from(chunk, 'base64').length, delayMs: response.chunkDelaysMs?.[i] ?? 0 }))
  }
  if (response.trailers !== undefined && Object.keys(response.trailers).length > 0) out._trailers = nameValues(response.trailers)
  return out
}

/** The HAR 1.2 text of the records. */
export async function serializeHar (records: readonly SnapshotRecord[]): Promise<string> {
  const entries: Array<Record<string, unknown>> = []
  for (const { snapshot } of records) {
    const { request } = snapshot
    const url = new URL(request.url)
    const body = request.body ?? ''
    for (const response of snapshot.responses) {
      const wait = response.delayMs ?? 0
      const receive = sum(response.chunkDelaysMs)
      const entry: Record<string, unknown> = {
        startedDateTime: snapshot.timestamp,
        time: wait + receive,
        request: {
          method: request.method,
          url: request.url,
          httpVersion: '',
          cookies: requestCookies(request.headers),
          headers: nameValues(request.headers),
          queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
          ...(body === '' ? {} : { postData: { mimeType: header(request.headers, 'content-type') ?? '', text: body } }),
          headersSize: -1,
          bodySize: Buffer.byteLength(body)
        },
        response: await harResponse(response),
        cache: {},
        timings: { send: 0, wait, receive }
      }
      if (snapshot.source === 'har') entry._source = 'har'
      entries.push(entry)
    }
  }
  const har = { log: { version: '1.2', creator: { name: HAR_CREATOR, version: await libraryVersion() }, entries } }
  return `${JSON.stringify(har, null, 2)}\n`
}

/** Writes the records to `path` as HAR 1.2, atomically. */
export async function saveHarFile (path: string, records: readonly SnapshotRecord[]): Promise<void> {
  await writeFileAtomically(path, await serializeHar(records), 'HAR file')
}
