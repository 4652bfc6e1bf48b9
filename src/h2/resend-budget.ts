/**
 * How often one request is sent again after HTTP/2 said the server did not process it, and how
 * much of its `headersTimeout` is left. A refused stream (RST_STREAM REFUSED_STREAM), a GOAWAY
 * that excludes the stream, or a session that ended before the stream went out all mean the
 * request may safely go again (RFC 9113 section 8.7); a server that answers every attempt that
 * way must still fail the request, promptly, instead of being asked forever.
 * @module
 */

import { InformationalError, SocketError } from '../errors.js'
import type { HeadersTimeoutError } from '../errors.js'
import { headersTimeoutError } from '../connection/timeout-errors.js'
import type { SocketInfo } from '../errors.js'
import type { ClientRequest } from '../connection/client-request.js'

/**
 * Times one request is sent again after the server did not process it, before it fails naming
 * why: with the first attempt, a request goes out at most twice. Once, as undici 8 does: a server
 * that refused a request twice is not going to take it, and each attempt costs it a session or a
 * stream.
 */
export const MAX_H2_RESENDS = 1

/** Why a request goes again: its stream was refused. */
export const RESEND_REFUSED = 0
/** Why a request goes again: the server sent GOAWAY before processing it. */
export const RESEND_GOAWAY = 1
/** Why a request goes again: its session ended before the stream was sent. */
export const RESEND_CLOSED = 2

interface ResendRecord {
  /** When the first attempt started (`monotonicNow()`), which `headersTimeout` is measured from. */
  firstStartedAt: number
  /** Resends so far, per cause (RESEND_*). */
  counts: [number, number, number]
  /** The error code of the last GOAWAY, for the message. */
  goawayCode: string
}

/** Only requests sent again have a record: a request that goes once costs nothing here. */
const records = new WeakMap<ClientRequest, ResendRecord>()

/**
 * Milliseconds of `headersTimeout` left for `req`, counted from its first attempt (0 when the
 * request has no headers timeout); negative once it ran out.
 */
export function headersTimeLeft (req: ClientRequest, now: number): number {
  const record = records.get(req)
  if (record === undefined || req.headersTimeout === 0) return req.headersTimeout
  // At least 1 ms while time is left: 0 would mean "no timeout" to the timer.
  const left = req.headersTimeout - (now - record.firstStartedAt)
  return left > 0 ? Math.max(1, Math.floor(left)) : -1
}

/** The error for a request whose headersTimeout ran out, counted from its first attempt. */
export function resendHeadersTimeoutError (req: ClientRequest): HeadersTimeoutError {
  const record = records.get(req)
  const across = record === undefined ? '' : `, counted from the first of ${1 + total(record)} attempts`
  return headersTimeoutError(req, req.headersTimeout, across)
}

/**
 * Notes that `req` must be sent again for `cause` (RESEND_*); `startedAt` is when the attempt
 * that just ended started. Returns null when it may go again, or the error to fail it with once
 * it was sent {@link MAX_H2_RESENDS} times more than once.
 */
export function noteResend (req: ClientRequest, startedAt: number, cause: number, goawayCode = ''): InformationalError | SocketError | null {
  let record = records.get(req)
  if (record === undefined) {
    record = { firstStartedAt: startedAt, counts: [0, 0, 0], goawayCode: '' }
    records.set(req, record)
  }
  record.counts[cause]!++
  if (cause === RESEND_GOAWAY) record.goawayCode = goawayCode
  if (total(record) <= MAX_H2_RESENDS) return null
  const message = `${req.method} ${req.path} was not processed by ${req.origin} after ${total(record)} attempts: ${describeCauses(record)}`
  return cause === RESEND_GOAWAY ? goawayError(goawayCode, message) : new SocketError(message)
}

/**
 * The error for a request a GOAWAY left unprocessed: an {@link InformationalError} when the
 * server shut down gracefully (`NO_ERROR`), as undici 8 raises, else a {@link SocketError}.
 */
export function goawayError (code: string, message: string, socket: SocketInfo | null = null): InformationalError | SocketError {
  return code === 'NO_ERROR' ? new InformationalError(message) : new SocketError(message, socket)
}

function total (record: ResendRecord): number {
  return record.counts[0] + record.counts[1] + record.counts[2]
}

function describeCauses (record: ResendRecord): string {
  const [refused, goaway, closed] = record.counts
  const parts: string[] = []
  if (refused > 0) parts.push(`the server refused its stream ${times(refused)} (RST_STREAM REFUSED_STREAM)`)
  if (goaway > 0) parts.push(`the server closed ${sessions(goaway)} with GOAWAY (${record.goawayCode}) before processing it`)
  if (closed > 0) parts.push(`${sessions(closed)} ended before the request could be sent`)
  return parts.join('; ')
}

function times (n: number): string {
  return n === 1 ? 'once' : `${n} times`
}

function sessions (n: number): string {
  return n === 1 ? '1 HTTP/2 session' : `${n} HTTP/2 sessions`
}
