/**
 * What a header block received on a client's stream is, by RFC 9113 section 8.1: any number of
 * 1xx heads, one final head, then at most one trailer block, which ends the stream. A block
 * outside that order makes the response malformed (a stream error of PROTOCOL_ERROR).
 * @module
 */

import type { HeaderList } from './header-codec.js'
import type { HeadKind } from './h2-stream.js'

const STATUS = /^[1-9][0-9]{2}$/

/** The block's kind, or the reason it is malformed. */
export function classifyHead (headers: HeaderList, finalSeen: boolean, endStream: boolean): { kind: HeadKind } | { malformed: string } {
  if (finalSeen) {
    return endStream ? { kind: 'trailers' } : { malformed: 'a second header block without END_STREAM: trailers must end the stream (RFC 9113 section 8.1)' }
  }
  let status: string | undefined
  for (const [name, value] of headers) {
    if (name === ':status') {
      status = value
      break
    }
  }
  if (status === undefined || !STATUS.test(status)) return { malformed: `response head without a valid :status, got ${String(status)} (RFC 9113 section 8.3.2)` }
  if (status[0] !== '1') return { kind: 'response' }
  if (status === '101') return { malformed: 'status 101 over HTTP/2 (RFC 9113 section 8.6)' }
  if (endStream) return { malformed: `informational ${status} head with END_STREAM (RFC 9113 section 8.1)` }
  return { kind: 'informational' }
}
