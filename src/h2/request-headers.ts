/**
 * Turns a prepared request into an HTTP/2 header list: its structured fields, validated when
 * the request was made (so the same CR/LF/NUL and token rules apply to every protocol), mapped
 * to pseudo-headers and the HTTP/2 rules of RFC 9113 section 8.2.
 * @module
 */

import http2 from 'node:http2'
import type { ClientRequest } from '../connection/client-request.js'
import { announcedLength } from '../connection/request-fields.js'

/**
 * Connection-specific fields that HTTP/2 forbids (RFC 9113 section 8.2.2). The request's fields
 * hold none of those the transport itself writes; a caller's `proxy-connection` is dropped here.
 */
const DROPPED = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'host'])

const {
  HTTP2_HEADER_AUTHORITY: AUTHORITY,
  HTTP2_HEADER_METHOD: METHOD,
  HTTP2_HEADER_PATH: PATH,
  HTTP2_HEADER_SCHEME: SCHEME
} = http2.constants
/** RFC 8441's pseudo-header (node:http2 has the constant, its type definitions do not). */
const PROTOCOL = ':protocol'

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
 * The header list of `req` for an HTTP/2 stream: pseudo-headers first, names lower-case,
 * repeated fields as arrays (cookie crumbs joined as RFC 9113 section 8.2.3 allows).
 * @param scheme - `http` or `https`
 */
export function h2RequestHeaders (req: ClientRequest, scheme: string): http2.OutgoingHttpHeaders {
  const extended = isExtendedConnect(req)
  // RFC 8441 section 4: a WebSocket is a CONNECT naming its protocol, with :scheme and :path.
  const out: http2.OutgoingHttpHeaders = extended ? { [METHOD]: 'CONNECT', [PROTOCOL]: WEBSOCKET } : { [METHOD]: req.method }
  if (req.expectContinue) out.expect = '100-continue'
  const fields = req.fields
  for (let i = 0; i < fields.length; i += 2) {
    const name = fields[i]!.toLowerCase()
    const value = fields[i + 1]!.trim()
    if (DROPPED.has(name) || (extended && NOT_IN_EXTENDED_CONNECT.has(name))) continue
    // `te` may only carry "trailers" over HTTP/2 (RFC 9113 section 8.2.2).
    if (name === 'te' && value.toLowerCase() !== 'trailers') continue
    const prev = out[name]
    if (prev === undefined) out[name] = value
    else if (name === 'cookie') out[name] = `${String(prev)}; ${value}`
    else if (Array.isArray(prev)) prev.push(value)
    else out[name] = [String(prev), value]
  }
  if (req.method === 'CONNECT') {
    // RFC 9113 section 8.5: CONNECT names the target in :authority and has no :scheme or :path.
    out[AUTHORITY] = req.path
    return out
  }
  const length = extended ? -1 : announcedLength(req.method, req.bodyLength)
  if (length !== -1) out['content-length'] = String(length)
  out[AUTHORITY] = req.authority
  out[SCHEME] = scheme
  out[PATH] = req.path
  return out
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
