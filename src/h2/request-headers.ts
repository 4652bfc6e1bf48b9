/**
 * Turns a prepared request into an HTTP/2 header list. The request head was already built and
 * validated by the HTTP/1.1 head builder (so the same CR/LF/NUL and token rules apply to both
 * protocols); this reads its lines back and applies the HTTP/2 rules of RFC 9113 section 8.2.
 * @module
 */

import http2 from 'node:http2'
import type { ClientRequest } from '../h1/client-request.js'

/**
 * Connection-specific fields that HTTP/2 forbids (RFC 9113 section 8.2.2); `host` becomes
 * `:authority`.
 */
const DROPPED = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'host'])

const {
  HTTP2_HEADER_AUTHORITY: AUTHORITY,
  HTTP2_HEADER_METHOD: METHOD,
  HTTP2_HEADER_PATH: PATH,
  HTTP2_HEADER_SCHEME: SCHEME
} = http2.constants

/**
 * The header list of `req` for an HTTP/2 stream: pseudo-headers first, names lower-case,
 * repeated fields as arrays (cookie crumbs joined as RFC 9113 section 8.2.3 allows).
 * @param scheme - `http` or `https`
 */
export function h2RequestHeaders (req: ClientRequest, scheme: string): http2.OutgoingHttpHeaders {
  const head = req.head
  const out: http2.OutgoingHttpHeaders = { [METHOD]: req.method }
  let authority = ''
  // The first line is the request line; every other line is `name: value`, already validated.
  let at = head.indexOf('\r\n') + 2
  const end = head.length - 2
  while (at < end) {
    const eol = head.indexOf('\r\n', at)
    const line = head.slice(at, eol)
    at = eol + 2
    const colon = line.indexOf(':')
    const name = line.slice(0, colon).toLowerCase()
    const value = line.slice(colon + 1).trim()
    if (name === 'host') {
      authority = value
      continue
    }
    if (DROPPED.has(name)) continue
    // `te` may only carry "trailers" over HTTP/2 (RFC 9113 section 8.2.2).
    if (name === 'te' && value.toLowerCase() !== 'trailers') continue
    const prev = out[name]
    if (prev === undefined) out[name] = value
    else if (name === 'cookie') out[name] = `${String(prev)}; ${value}`
    else if (Array.isArray(prev)) prev.push(value)
    else out[name] = [String(prev), value]
  }
  out[AUTHORITY] = authority
  if (req.method === 'CONNECT') {
    // RFC 9113 section 8.5: CONNECT names the target in :authority and has no :scheme or :path.
    out[AUTHORITY] = req.path
    return out
  }
  out[SCHEME] = scheme
  out[PATH] = req.path
  return out
}
