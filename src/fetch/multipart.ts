/**
 * `multipart/form-data`: parsing a received body back into a FormData (for `formData()`); the
 * serialization, which request bodies share, is in src/connection/multipart-body.ts.
 * @module
 */

import { File } from './file.js'
import { FormData } from './form-data.js'

export { createBoundary, multipartChunks, serializeMultipart } from '../connection/multipart-body.js'
export type { MultipartBody } from '../connection/multipart-body.js'

const CRLF = Buffer.from('\r\n')
const HEADER_END = Buffer.from('\r\n\r\n')

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
