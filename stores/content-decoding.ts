/**
 * Response bodies as a person reads them: a recording keeps the bytes the server sent
 * (gzip-compressed, say), while a HAR file and the secret scan need them decoded.
 * @module
 */

import { BodyDecoder } from '../src/handler.js'
import type { SnapshotHeaders } from './snapshot-file-store.js'

/** The `content-encoding` of a header record (any spelling of the name), joined; empty when there is none. */
export function contentEncodingOf (headers: SnapshotHeaders): string {
  for (const name of Object.keys(headers)) {
    if (name.toLowerCase() !== 'content-encoding') continue
    const value = headers[name]!
    return (Array.isArray(value) ? value.join(', ') : value).trim()
  }
  return ''
}

/** True when a `content-encoding` value names a coding (other than `identity`). */
export function isEncoded (contentEncoding: string): boolean {
  return contentEncoding.split(',').some((coding) => {
    const name = coding.trim().toLowerCase()
    return name !== '' && name !== 'identity'
  })
}

/**
 * `body` with its content codings undone, or null when one of them cannot be undone here (an
 * unknown coding, or bytes that are not what the coding says). A body cut short decodes as far
 * as it goes, as a browser shows it.
 */
export function decodeContent (body: Buffer, contentEncoding: string): Promise<Buffer | null> {
  if (!isEncoded(contentEncoding)) return Promise.resolve(body)
  return new Promise((resolve) => {
    const parts: Buffer[] = []
    let decoder: BodyDecoder | null
    try {
      decoder = BodyDecoder.create(contentEncoding, {
        push: (chunk) => parts.push(chunk),
        end: () => resolve(Buffer.concat(parts)),
        error: () => resolve(null)
      }, { who: 'snapshot', lenient: true })
    } catch {
      // More codings than any decoder undoes.
      resolve(null)
      return
    }
    if (decoder === null) {
      resolve(null)
      return
    }
    decoder.write(body)
    decoder.end()
  })
}
