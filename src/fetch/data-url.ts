/**
 * `data:` URLs (RFC 2397 as the Fetch Standard's data: URL processor reads them): fetch answers
 * them locally without any network access.
 * @module
 */

import { parseMimeType, serializeMimeType } from './mime.js'
import { trimAsciiWhitespace } from './whitespace.js'

/** The decoded content of a `data:` URL. */
export interface DataUrl {
  /** Serialized MIME type, `text/plain;charset=US-ASCII` when the URL names none or a bad one. */
  mimeType: string
  /** The decoded bytes. */
  body: Buffer
}

const ASCII_WHITESPACE = /[\t\n\f\r ]/g
const BASE64_SUFFIX = /;[\t\n\f\r ]*base64$/i
const BASE64_ALPHABET = /^[A-Za-z0-9+/]*$/

function hexValue (byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30
  const lower = byte | 0x20
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10
  return -1
}

/** Percent-decodes `text` into bytes; a `%` not followed by two hex digits stays as it is. */
export function percentDecode (text: string): Buffer {
  const input = Buffer.from(text, 'utf8')
  const output = Buffer.allocUnsafe(input.length)
  let length = 0
  for (let i = 0; i < input.length; i++) {
    const byte = input[i]!
    if (byte === 0x25 && i + 2 < input.length) {
      const high = hexValue(input[i + 1]!)
      const low = hexValue(input[i + 2]!)
      if (high !== -1 && low !== -1) {
        output[length++] = high * 16 + low
        i += 2
        continue
      }
    }
    output[length++] = byte
  }
  return output.subarray(0, length)
}

/** Decodes base64 the forgiving way the Infra Standard describes; null when it is not base64. */
export function forgivingBase64 (text: string): Buffer | null {
  let data = text.replace(ASCII_WHITESPACE, '')
  if (data.length % 4 === 0) data = data.replace(/={1,2}$/, '')
  if (data.length % 4 === 1 || !BASE64_ALPHABET.test(data)) return null
  return Buffer.from(data, 'base64')
}

/** Processes a `data:` URL; null when it is malformed (fetch then fails with a network error). */
export function parseDataUrl (url: URL): DataUrl | null {
  if (url.protocol !== 'data:') return null
  const href = url.hash === '' ? url.href : url.href.slice(0, -url.hash.length)
  const input = href.slice('data:'.length)
  const comma = input.indexOf(',')
  if (comma === -1) return null
  let mimeType = trimAsciiWhitespace(input.slice(0, comma))
  let body = percentDecode(input.slice(comma + 1))
  const base64 = BASE64_SUFFIX.exec(mimeType)
  if (base64 !== null) {
    mimeType = mimeType.slice(0, base64.index)
    const decoded = forgivingBase64(body.toString('latin1'))
    if (decoded === null) return null
    body = decoded
  }
  if (mimeType.startsWith(';')) mimeType = `text/plain${mimeType}`
  const parsed = parseMimeType(mimeType)
  return { mimeType: parsed === null ? 'text/plain;charset=US-ASCII' : serializeMimeType(parsed), body }
}
