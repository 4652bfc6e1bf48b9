/**
 * `multipart/form-data`: serializing a FormData to a streamable body of known length, and
 * parsing a received body back into a FormData (for `formData()`).
 * @module
 */

import { randomBytes } from 'node:crypto'
import { File, isBlob } from './file.js'
import { FormData } from './form-data.js'
import type { FormDataLike } from './form-data.js'

const CRLF = Buffer.from('\r\n')
const HEADER_END = Buffer.from('\r\n\r\n')

function escapeQuoted (text: string): string {
  return text.replace(/\n/g, '%0A').replace(/\r/g, '%0D').replace(/"/g, '%22')
}

function normalizeLineBreaks (text: string): string {
  return text.replace(/\r\n|\r|\n/g, '\r\n')
}

/** A new random boundary; random enough that it does not occur in the parts. */
export function createBoundary (): string {
  return `----conduit-formdata-${randomBytes(12).toString('hex')}`
}

/** A serialized FormData: its parts (bytes and Blobs, in order) and the total length. */
export interface MultipartBody {
  /** The boundary between parts. */
  boundary: string
  /** `multipart/form-data; boundary=...`. */
  contentType: string
  /** Total length in bytes. */
  length: number
  /** The parts in order; Blobs are read only when the body is sent. */
  parts: Array<Uint8Array | Blob>
}

/** Lays out `form` as multipart parts without reading any Blob. */
export function serializeMultipart (form: FormDataLike, boundary: string = createBoundary()): MultipartBody {
  const parts: Array<Uint8Array | Blob> = []
  let length = 0
  const prefix = `--${boundary}\r\nContent-Disposition: form-data; name="`
  for (const [name, value] of form.entries()) {
    const escapedName = escapeQuoted(normalizeLineBreaks(name))
    if (typeof value === 'string') {
      const chunk = Buffer.from(`${prefix}${escapedName}"\r\n\r\n${normalizeLineBreaks(value)}\r\n`)
      parts.push(chunk)
      length += chunk.length
    } else if (isBlob(value)) {
      const filename = escapeQuoted((value as File).name ?? 'blob')
      const head = Buffer.from(`${prefix}${escapedName}"; filename="${filename}"\r\nContent-Type: ${value.type || 'application/octet-stream'}\r\n\r\n`)
      parts.push(head, value, CRLF)
      length += head.length + value.size + CRLF.length
    }
  }
  const tail = Buffer.from(`--${boundary}--\r\n`)
  parts.push(tail)
  length += tail.length
  return { boundary, contentType: `multipart/form-data; boundary=${boundary}`, length, parts }
}

/** Streams the parts of a serialized body; Blob contents are read chunk by chunk, never whole. */
export async function * multipartChunks (body: MultipartBody): AsyncGenerator<Uint8Array> {
  for (const part of body.parts) {
    if (part instanceof Uint8Array) {
      yield part
    } else {
      for await (const chunk of part.stream() as unknown as AsyncIterable<Uint8Array>) yield chunk
    }
  }
}

function fail (reason: string): never {
  throw new TypeError(`Failed to parse body as FormData: ${reason}`)
}

interface PartHeaders { name: string, filename: string | undefined, contentType: string | undefined }

function dispositionParam (disposition: string, param: string): string | undefined {
  const match = new RegExp(`;\\s*${param}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]*))`, 'i').exec(disposition)
  if (match === null) return undefined
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2]
}

// Part headers are CRLF-delimited lines; a CR or LF on its own (even inside a quoted name) is malformed.
const BARE_CR_OR_LF = /\r(?!\n)|(?<!\r)\n/

function parsePartHeaders (block: string): PartHeaders {
  if (BARE_CR_OR_LF.test(block)) fail('a bare CR or LF in part headers')
  let disposition: string | undefined
  let contentType: string | undefined
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':')
    if (colon <= 0) fail(`malformed part header ${JSON.stringify(line)}`)
    const name = line.slice(0, colon).trim().toLowerCase()
    const value = line.slice(colon + 1).trim()
    if (name === 'content-disposition') disposition = value
    else if (name === 'content-type') contentType = value
  }
  if (disposition === undefined || !/^form-data\s*(;|$)/i.test(disposition)) fail('part without a form-data Content-Disposition')
  const name = dispositionParam(disposition, 'name')
  if (name === undefined) fail('part without a name')
  return { name, filename: dispositionParam(disposition, 'filename'), contentType }
}

/**
 * Parses a `multipart/form-data` body delimited by `boundary`.
 * Throws a `TypeError` naming the problem when the body is malformed.
 */
export function parseMultipart (body: Uint8Array, boundary: string): FormData {
  if (boundary === '' || boundary.length > 70) fail(`invalid boundary ${JSON.stringify(boundary)}`)
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength)
  const delimiter = Buffer.from(`--${boundary}`, 'latin1')
  const next = Buffer.from(`\r\n--${boundary}`, 'latin1')
  const form = new FormData()
  let pos = bytes.indexOf(delimiter)
  if (pos === -1) fail('boundary not found')
  pos += delimiter.length
  for (;;) {
    if (bytes[pos] === 0x2d && bytes[pos + 1] === 0x2d) return form
    while (bytes[pos] === 0x20 || bytes[pos] === 0x09) pos++
    if (bytes[pos] !== 0x0d || bytes[pos + 1] !== 0x0a) fail('expected CRLF after a boundary')
    pos += 2
    const headEnd = bytes.indexOf(HEADER_END, pos)
    if (headEnd === -1) fail('unterminated part headers')
    const headers = parsePartHeaders(bytes.toString('utf8', pos, headEnd))
    const start = headEnd + HEADER_END.length
    const end = bytes.indexOf(next, start)
    if (end === -1) fail('missing closing boundary')
    const content = bytes.subarray(start, end)
    if (headers.filename !== undefined) {
      form.append(headers.name, new File([content], headers.filename, { type: headers.contentType ?? 'text/plain' }))
    } else {
      form.append(headers.name, content.toString('utf8'))
    }
    pos = end + next.length
  }
}
