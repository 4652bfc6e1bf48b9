/**
 * `multipart/form-data` request bodies: a FormData (conduit's or the runtime's) laid out as
 * multipart parts of known length without reading its Blobs, for fetch and for the dispatcher
 * APIs alike (`request(url, { body: formData })`).
 * @module
 */

import { randomBytes } from 'node:crypto'
import { Blob } from 'node:buffer'

/** Anything with the FormData iteration shape (conduit's FormData or the runtime's). */
export interface FormDataEntries {
  entries (): IterableIterator<[string, string | Blob]>
}

/** True for a FormData of conduit's or of the runtime's class (both tag themselves `FormData`). */
export function isFormDataBody (value: unknown): value is FormDataEntries {
  return typeof value === 'object' && value !== null &&
    Object.prototype.toString.call(value) === '[object FormData]' &&
    typeof (value as FormDataEntries).entries === 'function'
}

const CRLF = Buffer.from('\r\n')

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
export function serializeMultipart (form: FormDataEntries, boundary: string = createBoundary()): MultipartBody {
  const parts: Array<Uint8Array | Blob> = []
  let length = 0
  const prefix = `--${boundary}\r\nContent-Disposition: form-data; name="`
  for (const [name, value] of form.entries()) {
    const escapedName = escapeQuoted(normalizeLineBreaks(name))
    if (typeof value === 'string') {
      const chunk = Buffer.from(`${prefix}${escapedName}"\r\n\r\n${normalizeLineBreaks(value)}\r\n`)
      parts.push(chunk)
      length += chunk.length
    } else if (value instanceof Blob) {
      const filename = escapeQuoted((value as { name?: string }).name ?? 'blob')
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

/**
 * `form` as one Blob of its serialized parts, typed with its multipart content type: a body of
 * known length that can be read again (for a retry), whose file parts are read only when sent.
 */
export function multipartBlob (form: FormDataEntries): Blob {
  const { parts, contentType } = serializeMultipart(form)
  return new Blob(parts, { type: contentType })
}
