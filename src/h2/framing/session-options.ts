/**
 * The options of an HTTP/2 session and their defaults: what it advertises in SETTINGS, its
 * windows, its timers, and the limits that bound what a peer can make it hold or do. Each limit's
 * name is the one an error names when a peer exceeds it.
 * @module
 */

import { DEFAULT_MAX_HEADER_SIZE } from '../../connection/connection-config.js'
import { failOption } from '../../validation/options.js'
import { DEFAULT_MAX_FRAME_SIZE, DEFAULT_WINDOW_SIZE, MAX_ALLOWED_FRAME_SIZE, MAX_WINDOW_SIZE } from './protocol.js'

/** What a peer may send within one flood window before the session ends the connection. */
export interface FloodLimits {
  /** Milliseconds each count covers. */
  windowMs: number
  /** SETTINGS frames (each one costs an ACK). */
  maxSettings: number
  /** PING frames, ACKs included. */
  maxPings: number
  /** RST_STREAM frames (rapid reset, CVE-2023-44487). */
  maxResets: number
  /** DATA, HEADERS and CONTINUATION frames that carry nothing and end nothing (CVE-2019-9518). */
  maxEmptyFrames: number
  /** PRIORITY and unknown frames, which cost work and do nothing (CVE-2019-9513's family). */
  maxIgnoredFrames: number
  /** Stream errors the peer caused (a zero WINDOW_UPDATE, frames on a closed stream…). */
  maxStreamErrors: number
}

/** Options of an {@link H2Session}; every field has a default. */
export interface H2SessionOptions {
  /** SETTINGS_MAX_HEADER_LIST_SIZE advertised and enforced on every decoded block. */
  maxHeaderListSize: number
  /** Bytes of one encoded field block, CONTINUATIONs included, before it is decoded. */
  maxHeaderBlockBytes: number
  /** CONTINUATION frames one field block may take (CVE-2024-27316's family). */
  maxContinuationFrames: number
  /** SETTINGS_MAX_FRAME_SIZE advertised: the longest frame the peer may send. */
  maxFrameSize: number
  /** SETTINGS_INITIAL_WINDOW_SIZE advertised: each stream's receive window at its start. */
  initialWindowSize: number
  /** The connection's receive window. */
  connectionWindowSize: number
  /** Grows the receive windows from the measured bandwidth-delay product. */
  adaptiveWindow: boolean
  /** The most the adaptive window grows a window to. */
  maxAdaptiveWindow: number
  /** Milliseconds the peer has to acknowledge a SETTINGS frame (RFC 9113 section 6.5.3). */
  settingsTimeout: number
  /** Milliseconds between keep-alive PINGs; 0 for none. */
  pingInterval: number
  /** Milliseconds a keep-alive PING may wait for its ACK before the session ends. */
  pingTimeout: number
  /** Control replies (PING and SETTINGS ACKs) queued while the socket does not drain (CVE-2019-9512, 9515). */
  maxQueuedControlReplies: number
  /** Streams reset by this side whose late frames are still discarded quietly (RFC 9113 section 5.1, "closed"). */
  maxRecentlyReset: number
  /** Control-frame flood limits. */
  floods: FloodLimits
}

/** What a caller passes: any option, and any flood limit, left out takes its default. */
export type H2SessionInit = Partial<Omit<H2SessionOptions, 'floods'>> & { floods?: Partial<FloodLimits> }

/** The flood limits in force unless a session is given others. */
export const DEFAULT_FLOOD_LIMITS: Readonly<FloodLimits> = Object.freeze({
  windowMs: 1000,
  maxSettings: 100,
  maxPings: 100,
  maxResets: 1000,
  maxEmptyFrames: 100,
  maxIgnoredFrames: 1000,
  maxStreamErrors: 100
})

/** Default stream receive window (SETTINGS_INITIAL_WINDOW_SIZE), bytes: undici 8's. */
export const DEFAULT_INITIAL_WINDOW_SIZE = 262_144
/** Default connection receive window, bytes: undici 8's. */
export const DEFAULT_CONNECTION_WINDOW_SIZE = 524_288

/** Default milliseconds between keep-alive PINGs: undici 8's. */
export const DEFAULT_PING_INTERVAL = 60_000

/** The defaults; undici 8's HTTP/2 windows (256 KiB per stream, 512 KiB per connection). */
export const DEFAULT_SESSION_OPTIONS: Readonly<H2SessionOptions> = Object.freeze({
  maxHeaderListSize: DEFAULT_MAX_HEADER_SIZE,
  // An encoded block is no longer than its decoded list plus a few bytes per field; twice the
  // list's limit leaves room for that without holding a block that could never decode in bounds.
  maxHeaderBlockBytes: 2 * DEFAULT_MAX_HEADER_SIZE,
  maxContinuationFrames: 64,
  maxFrameSize: DEFAULT_MAX_FRAME_SIZE,
  initialWindowSize: DEFAULT_INITIAL_WINDOW_SIZE,
  connectionWindowSize: DEFAULT_CONNECTION_WINDOW_SIZE,
  adaptiveWindow: true,
  maxAdaptiveWindow: 16 * 1024 * 1024,
  settingsTimeout: 10_000,
  pingInterval: DEFAULT_PING_INTERVAL,
  pingTimeout: 20_000,
  maxQueuedControlReplies: 1000,
  maxRecentlyReset: 1000,
  floods: DEFAULT_FLOOD_LIMITS
})

/** `options` over the defaults; `maxHeaderBlockBytes` follows a changed `maxHeaderListSize` unless given. */
export function sessionOptions (options: H2SessionInit = {}): H2SessionOptions {
  const merged = { ...DEFAULT_SESSION_OPTIONS, ...options, floods: { ...DEFAULT_FLOOD_LIMITS, ...options.floods } }
  if (options.maxHeaderBlockBytes === undefined) merged.maxHeaderBlockBytes = 2 * merged.maxHeaderListSize
  checkOptions(merged)
  return merged
}

function checkOptions (o: H2SessionOptions): void {
  const ranges: Array<[keyof H2SessionOptions, number, number]> = [
    ['initialWindowSize', DEFAULT_WINDOW_SIZE, MAX_WINDOW_SIZE],
    ['connectionWindowSize', DEFAULT_WINDOW_SIZE, MAX_WINDOW_SIZE],
    ['maxFrameSize', DEFAULT_MAX_FRAME_SIZE, MAX_ALLOWED_FRAME_SIZE]
  ]
  for (const [name, min, max] of ranges) {
    const value = o[name]
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) failOption('H2Session', name, `an integer from ${min} to ${max}`, value)
  }
}
