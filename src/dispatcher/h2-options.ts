/**
 * The HTTP/2 options of a Client: undici 8's `h2Options` object and the older top-level
 * spellings (`maxConcurrentStreams`, `initialWindowSize`, `connectionWindowSize`, `pingInterval`,
 * `useH2c`, conduit's `h2c`), resolved once into the settings a session reads.
 * @module
 */

import type { SessionOptions } from 'node:http2'
import { failOption } from '../validation/options.js'
import { timerMilliseconds } from '../validation/timer-limit.js'
import { DEFAULT_CONNECTION_WINDOW_SIZE, DEFAULT_INITIAL_WINDOW_SIZE, DEFAULT_PING_INTERVAL } from '../h2/framing/session-options.js'
import { DEFAULT_WINDOW_SIZE, MAX_WINDOW_SIZE } from '../h2/framing/protocol.js'

/** Default most concurrent streams on one HTTP/2 session. */
export const DEFAULT_MAX_CONCURRENT_STREAMS = 100

/**
 * HTTP/2 options in one object, as undici 8 takes them; each one wins over its top-level
 * spelling. The other `node:http2` session options an undici caller may pass here (undici hands
 * them to its HTTP/2 layer) are typed as undici types them, and ignored.
 */
export interface H2Options extends Omit<SessionOptions, 'settings'> {
  /**
   * Speak HTTP/2 without negotiation on cleartext `http:` connections (conduit's `h2c`).
   * @defaultValue false
   */
  useH2c?: boolean | undefined
  /**
   * Most concurrent streams on one session (the server's own SETTINGS may lower it).
   * @defaultValue 100
   */
  maxConcurrentStreams?: number | undefined
  /**
   * Connection-level flow-control window of the client, bytes.
   * @defaultValue 524288
   */
  connectionWindowSize?: number | undefined
  /**
   * Interval between PING frames that check a session is alive (ms); 0 disables.
   * @defaultValue 60000
   */
  pingInterval?: number | undefined
  /**
   * Stream-level flow-control window the client advertises, bytes (also read from `settings`).
   * @defaultValue 262144
   */
  initialWindowSize?: number | undefined
  /** SETTINGS the client sends; `initialWindowSize` is the one conduit reads. */
  settings?: {
    /** The stream-level window to advertise, bytes. */
    initialWindowSize?: number | undefined
    [setting: string]: unknown
  } | undefined
}

/** The HTTP/2 options of a Client (and of the clients a Pool or Agent creates). */
export interface H2ClientOptions {
  /**
   * Speak HTTP/2 without negotiation ("prior knowledge") on cleartext `http:` connections. Only
   * for servers known to accept h2c; an HTTP/1.1 server fails every request.
   * @defaultValue false
   */
  h2c?: boolean | undefined
  /** undici's name of the `h2c` option. */
  useH2c?: boolean | undefined
  /**
   * Most concurrent streams on one HTTP/2 session (the server's own SETTINGS may lower it).
   * @defaultValue 100
   */
  maxConcurrentStreams?: number | undefined
  /**
   * HTTP/2 stream-level flow-control window the client advertises (SETTINGS_INITIAL_WINDOW_SIZE), bytes.
   * @defaultValue 262144
   */
  initialWindowSize?: number | undefined
  /**
   * HTTP/2 connection-level flow-control window of the client, bytes.
   * @defaultValue 524288
   */
  connectionWindowSize?: number | undefined
  /**
   * Interval between HTTP/2 PING frames that check a session is alive (ms); 0 disables.
   * @defaultValue 60000
   */
  pingInterval?: number | undefined
  /** The HTTP/2 options in one object, as undici 8 takes them; each wins over its top-level spelling. */
  h2Options?: H2Options | null | undefined
}

/** HTTP/2 settings after validation, with defaults applied. */
export interface H2Settings {
  h2c: boolean
  maxConcurrentStreams: number
  initialWindowSize: number
  connectionWindowSize: number
  pingInterval: number
}

/** Validates the HTTP/2 options of `o` and fills in defaults; a bad one is an `InvalidArgumentError` naming it. */
export function resolveH2Settings (o: H2ClientOptions, who: string): H2Settings {
  const h2 = o.h2Options ?? {}
  if (typeof h2 !== 'object' || Array.isArray(h2)) failOption(who, 'h2Options', 'an object', o.h2Options)
  const settings = h2.settings ?? {}
  if (typeof settings !== 'object' || Array.isArray(settings)) failOption(who, 'h2Options.settings', 'an object', h2.settings)
  for (const [name, value] of [['h2c', o.h2c], ['useH2c', o.useH2c], ['h2Options.useH2c', h2.useH2c]] as const) {
    if (value != null && typeof value !== 'boolean') failOption(who, name, 'a boolean', value)
  }
  // The nested spelling wins, then undici's top-level one, then conduit's.
  const pick = <T>(nested: [string, T | undefined], top: [string, T | undefined]): [string, T | undefined] => nested[1] != null ? nested : top
  const streams = pick(['h2Options.maxConcurrentStreams', h2.maxConcurrentStreams], ['maxConcurrentStreams', o.maxConcurrentStreams])
  const maxConcurrentStreams = positiveInteger(who, streams[0], streams[1], DEFAULT_MAX_CONCURRENT_STREAMS)
  const initial = pick(['h2Options.settings.initialWindowSize', settings.initialWindowSize], pick(['h2Options.initialWindowSize', h2.initialWindowSize], ['initialWindowSize', o.initialWindowSize]))
  const connection = pick(['h2Options.connectionWindowSize', h2.connectionWindowSize], ['connectionWindowSize', o.connectionWindowSize])
  const ping = pick(['h2Options.pingInterval', h2.pingInterval], ['pingInterval', o.pingInterval])
  return {
    h2c: (h2.useH2c ?? o.useH2c ?? o.h2c) === true,
    maxConcurrentStreams,
    initialWindowSize: windowSize(who, initial[0], initial[1], DEFAULT_INITIAL_WINDOW_SIZE),
    connectionWindowSize: windowSize(who, connection[0], connection[1], DEFAULT_CONNECTION_WINDOW_SIZE),
    pingInterval: timerMilliseconds(who, ping[0], ping[1], DEFAULT_PING_INTERVAL)
  }
}

function positiveInteger (who: string, name: string, value: unknown, fallback: number): number {
  if (value == null) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) failOption(who, name, 'a positive integer', value)
  return value
}

/** A flow-control window size: an integer HTTP/2 can carry in a WINDOW_UPDATE. */
function windowSize (who: string, name: string, value: unknown, fallback: number): number {
  if (value == null) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < DEFAULT_WINDOW_SIZE || value > MAX_WINDOW_SIZE) {
    failOption(who, name, `an integer from ${DEFAULT_WINDOW_SIZE} to ${MAX_WINDOW_SIZE}`, value)
  }
  return value
}
