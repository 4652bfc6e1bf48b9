/**
 * The HTTP/1.1 request head: written as one latin1 string from a request's structured fields,
 * when the request goes on the wire. Everything in it was validated when the request was made.
 * @module
 */

import { announcedLength } from '../connection/request-fields.js'

/** What an HTTP/1.1 head is written from: a prepared request (see `ClientRequest`). */
export interface RequestHeadSource {
  /** Method as validated and normalized. */
  readonly method: string
  /** Path with the query appended, as validated. */
  readonly path: string
  /** The `host` value: the caller's header or the one derived from the origin. */
  readonly authority: string
  /** The `upgrade` option, already checked, or null. */
  readonly upgrade: string | null
  /** The connection closes after this request. */
  readonly reset: boolean
  /** The body is held back until the server's `100 Continue`. */
  readonly expectContinue: boolean
  /** The caller's fields, validated: `[name, value, ...]`. */
  readonly fields: readonly string[]
  /** Body bytes, or -1 when the body is sent chunked. */
  readonly bodyLength: number
}

/** The framing line for a body of `length` bytes (-1: unknown, sent chunked). */
export function framingHeader (method: string, length: number): string {
  const announced = announcedLength(method, length)
  if (announced !== -1) return `content-length: ${announced}\r\n`
  return length === -1 ? 'transfer-encoding: chunked\r\n' : ''
}

/** The complete head of `req`, final CRLF included. */
export function writeRequestHead (req: RequestHeadSource): string {
  let head = `${req.method} ${req.path} HTTP/1.1\r\nhost: ${req.authority}\r\n`
  if (req.upgrade !== null) head += `connection: upgrade\r\nupgrade: ${req.upgrade}\r\n`
  else if (req.reset) head += 'connection: close\r\n'
  // Persistence is HTTP/1.1's default (RFC 9112 section 9.3), but undici says it, and servers and
  // tests written against undici look for it. A CONNECT becomes a tunnel: nothing to keep alive.
  else if (req.method !== 'CONNECT') head += 'connection: keep-alive\r\n'
  if (req.expectContinue) head += 'expect: 100-continue\r\n'
  const fields = req.fields
  for (let i = 0; i < fields.length; i += 2) head += `${fields[i]}: ${fields[i + 1]}\r\n`
  if (req.method !== 'CONNECT') head += framingHeader(req.method, req.bodyLength)
  return head + '\r\n'
}
