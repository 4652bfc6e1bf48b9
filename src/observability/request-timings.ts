/**
 * Where one request's time went: the timestamps the transport records as a request travels
 * (numbers on the request and connection objects that exist anyway), and the
 * {@link RequestTimings} view over them, built only when someone reads it.
 *
 * Every timestamp is milliseconds on the runtime's monotonic clock, `performance.now()`: the
 * clock of `performance.timeOrigin`, of Resource Timing entries and of `performance.mark()`,
 * so the numbers line up with the runtime's own performance timeline. A fake clock installed by a
 * test does not move it.
 * @module
 */

import type { RequestTimings, TimingPhases } from '../contracts/request-timings.js'
import { monotonicNow } from '../runtime/timers.js'

/** Not happened (yet): the value the transport leaves in a timestamp it has not recorded. */
export const NOT_YET = -1

/** When a connection's setup happened; {@link NOT_YET} for a step that did not happen. */
export class ConnectTimes {
  /** The connection attempt began. */
  connectStart: number
  dnsStart = NOT_YET
  dnsEnd = NOT_YET
  tcpStart = NOT_YET
  tcpEnd = NOT_YET
  tlsStart = NOT_YET
  tlsEnd = NOT_YET

  /** @param connectStart - when the attempt began */
  constructor (connectStart: number) {
    this.connectStart = connectStart
  }
}

const CONNECT_TIMES = Symbol('conduit.connectTimes')

/** Keeps `times` with the socket they describe, for the Client that receives it from its connector. */
export function attachConnectTimes (socket: object, times: ConnectTimes): void {
  (socket as { [CONNECT_TIMES]?: ConnectTimes })[CONNECT_TIMES] = times
}

/** The setup times the connector kept with `socket`, or null (a connector of the caller's own). */
export function connectTimesOf (socket: object): ConnectTimes | null {
  return (socket as { [CONNECT_TIMES]?: ConnectTimes })[CONNECT_TIMES] ?? null
}

/**
 * How `socket` was set up, from the times its connector kept with it. A step the connector did
 * not see (a connector of the caller's own, a proxy tunnel made before the TLS handshake) counts
 * as the TCP step, from when the Client asked for the connection.
 */
export function connectionSetup (socket: object, startedAt: number): ConnectTimes {
  const now = monotonicNow()
  const times = connectTimesOf(socket) ?? new ConnectTimes(startedAt)
  if (times.tcpStart === NOT_YET) {
    times.connectStart = startedAt
    times.tcpStart = startedAt
    times.tcpEnd = times.tlsStart !== NOT_YET ? times.tlsStart : now
  }
  return times
}

/** What the transport records for one request; the request object itself carries these. */
export interface TimingStamps {
  readonly queuedAt: number
  readonly assignedAt: number
  /** The setup of the connection the request opened, or null when it reused one (or none yet). */
  readonly connectTimes: ConnectTimes | null
  readonly headSentAt: number
  readonly bodySentAt: number
  readonly responseStartAt: number
  readonly responseEndAt: number
}

/** Order of the timestamps {@link phasesOf} reads; each phase is the gap between two of them. */
const Q = 0; const DNS_START = 1; const DNS_END = 2; const TCP_START = 3; const TCP_END = 4
const TLS_START = 5; const TLS_END = 6; const ASSIGNED = 7; const BODY_SENT = 8; const RESPONSE_START = 9; const RESPONSE_END = 10
/** How many timestamps {@link phasesOf} reads. */
export const TIMESTAMP_COUNT = 11

/**
 * The phases of a request from its timestamps in the order queued, dns start and end, tcp start
 * and end, tls start and end, connection assigned, request sent, response start, response end
 * (negative or non-finite for one that did not happen). A missing timestamp counts as the one
 * before it, and one earlier than the one before it (a server that answers before the request
 * body was written) as that one, so every phase is ≥ 0 and they add up to `total`.
 */
export function phasesOf (stamps: ArrayLike<number>): TimingPhases {
  const at = new Array<number>(TIMESTAMP_COUNT)
  let last = stamps[Q]!
  at[Q] = last
  for (let i = 1; i < TIMESTAMP_COUNT; i++) {
    const t = stamps[i]!
    if (Number.isFinite(t) && t >= 0 && t > last) last = t
    at[i] = last
  }
  const gap = (from: number, to: number): number => at[to]! - at[from]!
  return {
    wait: gap(Q, DNS_START) + gap(DNS_END, TCP_START) + gap(TCP_END, TLS_START) + gap(TLS_END, ASSIGNED),
    dns: gap(DNS_START, DNS_END),
    tcp: gap(TCP_START, TCP_END),
    tls: gap(TLS_START, TLS_END),
    request: gap(ASSIGNED, BODY_SENT),
    firstByte: gap(BODY_SENT, RESPONSE_START),
    download: gap(RESPONSE_START, RESPONSE_END),
    total: gap(Q, RESPONSE_END)
  }
}

function shown (t: number): number | null {
  return t === NOT_YET ? null : t
}

/** {@link RequestTimings} read from the stamps a request carries; one per request, made on first read. */
export class LiveRequestTimings implements RequestTimings {
  readonly #stamps: TimingStamps

  /** @param stamps - the request whose timestamps this shows */
  constructor (stamps: TimingStamps) {
    this.#stamps = stamps
  }

  get queued (): number { return this.#stamps.queuedAt }
  get socketAssigned (): number | null { return shown(this.#stamps.assignedAt) }
  get reusedSocket (): boolean { return this.#stamps.assignedAt !== NOT_YET && this.#stamps.connectTimes === null }
  get dnsStart (): number | null { return shown(this.#stamps.connectTimes?.dnsStart ?? NOT_YET) }
  get dnsEnd (): number | null { return shown(this.#stamps.connectTimes?.dnsEnd ?? NOT_YET) }
  get tcpStart (): number | null { return shown(this.#stamps.connectTimes?.tcpStart ?? NOT_YET) }
  get tcpEnd (): number | null { return shown(this.#stamps.connectTimes?.tcpEnd ?? NOT_YET) }
  get tlsStart (): number | null { return shown(this.#stamps.connectTimes?.tlsStart ?? NOT_YET) }
  get tlsEnd (): number | null { return shown(this.#stamps.connectTimes?.tlsEnd ?? NOT_YET) }
  get requestHeadSent (): number | null { return shown(this.#stamps.headSentAt) }
  get requestBodySent (): number | null { return shown(this.#stamps.bodySentAt) }
  get responseStart (): number | null { return shown(this.#stamps.responseStartAt) }
  get responseEnd (): number | null { return shown(this.#stamps.responseEndAt) }
  get complete (): boolean { return this.#stamps.responseEndAt !== NOT_YET }

  get phases (): TimingPhases {
    const s = this.#stamps
    const c = s.connectTimes
    return phasesOf([
      s.queuedAt,
      c?.dnsStart ?? NOT_YET, c?.dnsEnd ?? NOT_YET, c?.tcpStart ?? NOT_YET, c?.tcpEnd ?? NOT_YET,
      c?.tlsStart ?? NOT_YET, c?.tlsEnd ?? NOT_YET,
      s.assignedAt, s.bodySentAt, s.responseStartAt, s.responseEndAt
    ])
  }

  /** Every timestamp and the phases, as a plain object (for `JSON.stringify` and logs). */
  toJSON (): Omit<RequestTimings, 'toJSON'> {
    return {
      queued: this.queued,
      socketAssigned: this.socketAssigned,
      reusedSocket: this.reusedSocket,
      dnsStart: this.dnsStart,
      dnsEnd: this.dnsEnd,
      tcpStart: this.tcpStart,
      tcpEnd: this.tcpEnd,
      tlsStart: this.tlsStart,
      tlsEnd: this.tlsEnd,
      requestHeadSent: this.requestHeadSent,
      requestBodySent: this.requestBodySent,
      responseStart: this.responseStart,
      responseEnd: this.responseEnd,
      complete: this.complete,
      phases: this.phases
    }
  }
}
