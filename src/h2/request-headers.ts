/**
 * Turns a prepared request into an HTTP/2 header list: its structured fields, validated when
 * the request was made (so the same CR/LF/NUL and token rules apply to every protocol), mapped
 * to pseudo-headers and the HTTP/2 rules of RFC 9113 section 8.2.
 * @module
 */

import type { ClientRequest } from '../connection/client-request.js'
import { announcedLength } from '../connection/request-fields.js'
import type { HeaderList } from './framing/header-codec.js'

/**
 * Connection-specific fields that HTTP/2 forbids (RFC 9113 section 8.2.2). The request's fields
 * hold none of those the transport itself writes; a caller's `proxy-connection` is dropped here.
 */
const DROPPED = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'host'])

/** The one upgrade HTTP/2 carries, as an extended CONNECT stream (RFC 8441). */
export const WEBSOCKET = 'websocket'

/**
 * Fields of the HTTP/1.1 WebSocket handshake that an extended CONNECT does not use
 * (RFC 8441 section 5: no key, so no accept digest either).
 */
const NOT_IN_EXTENDED_CONNECT = new Set(['sec-websocket-key'])

/** Whether `req` goes out as an extended CONNECT stream rather than a request. */
export function isExtendedConnect (req: ClientRequest): boolean {
  return req.upgrade === WEBSOCKET
}

/**
 * The header list of `req` for an HTTP/2 stream: pseudo-headers first (RFC 9113 section
 * 8.3), names lower-case, repeated fields as repeated entries, cookie crumbs joined as RFC 9113
 * section 8.2.3 allows.
 * @param scheme - `http` or `https`
 */
export function h2RequestHeaders (req: ClientRequest, scheme: string): HeaderList {
  const extended = isExtendedConnect(req)
  const headers: HeaderList = []
  let lengthWritten = false
  if (req.method === 'CONNECT') {
    // RFC 9113 section 8.5: CONNECT names the target in :authority and has no :scheme or :path.
    headers.push([':method', 'CONNECT'], [':authority', req.path])
  } else {
    // RFC 8441 section 4: a WebSocket is a CONNECT naming its protocol, with :scheme and :path.
    headers.push([':method', extended ? 'CONNECT' : req.method])
    if (extended) headers.push([':protocol', WEBSOCKET])
    headers.push([':authority', req.authority], [':scheme', scheme], [':path', req.path])
    const length = extended ? -1 : announcedLength(req.method, req.bodyLength)
    if (length !== -1) headers.push(['content-length', String(length)])
    lengthWritten = length !== -1
  }
  if (req.expectContinue) headers.push(['expect', '100-continue'])
  let cookie = -1
  const fields = req.fields
  for (let i = 0; i < fields.length; i += 2) {
    const name = fields[i]!.toLowerCase()
    const value = fields[i + 1]!.trim()
    if (DROPPED.has(name) || (extended && NOT_IN_EXTENDED_CONNECT.has(name)) || (lengthWritten && name === 'content-length')) continue
    // `te` may only carry "trailers" over HTTP/2 (RFC 9113 section 8.2.2).
    if (name === 'te' && value.toLowerCase() !== 'trailers') continue
    if (name === 'cookie') {
      if (cookie !== -1) {
        headers[cookie]![1] += `; ${value}`
        continue
      }
      cookie = headers.length
    }
    headers.push([name, value])
  }
  return headers
}

/**
 * The request as a text head (`METHOD path HTTP/2`, `host`, then its fields), for diagnostics
 * messages that show the head written: HTTP/2 writes none, so this is the same request in the
 * form those messages carry for HTTP/1.1.
 */
export function requestHeadText (req: ClientRequest): string {
  const method = isExtendedConnect(req) ? 'CONNECT' : req.method
  let text = `${method} ${req.path} HTTP/2\r\nhost: ${req.authority}\r\n`
  const fields = req.fields
  for (let i = 0; i + 1 < fields.length; i += 2) text += `${fields[i]!}: ${fields[i + 1]!}\r\n`
  return text + '\r\n'
}
