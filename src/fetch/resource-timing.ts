/**
 * The `PerformanceResourceTiming` entry a finished `fetch()` leaves on the runtime's performance
 * timeline, as browsers and undici's fetch mark theirs (initiator type `fetch`): made with the
 * runtime's own `performance.markResourceTiming()`, from the request's timings, so its fields
 * (and their order) are those of the runtime's own fetch entries.
 *
 * The runtime's function takes the timing info, URL, initiator type, global and cache state on
 * every supported Node version; Node 22 and later also read the body info, the response status
 * and the delivery type (an older runtime ignores the extra arguments).
 * @module
 */

import { performance } from 'node:perf_hooks'
import type { RequestTimings } from '../contracts/request-timings.js'
import { monotonicNow } from '../runtime/timers.js'

type MarkResourceTiming = (timingInfo: object, requestedUrl: string, initiatorType: string, global: object, cacheMode: '' | 'local', bodyInfo?: object, responseStatus?: number, deliveryType?: string) => unknown

const markResourceTiming = (performance as unknown as { markResourceTiming?: MarkResourceTiming }).markResourceTiming?.bind(performance) ?? null

/** What one fetch tells about itself once its response ended. */
export interface FetchTimingRecord {
  /** The URL the fetch was made for (the first of its URL list). */
  url: string
  /** When `fetch()` was called. */
  startedAt: number
  /** When its last hop began (the same as `startedAt` without redirects). */
  lastHopAt: number
  /** The last hop's timings, or null when no connection produced the response (a mock reply, a cache hit). */
  timings: RequestTimings | null
  /** The response status. */
  status: number
  /** Body bytes as received, and as decoded. */
  encodedBodySize: number
  decodedBodySize: number
}

/**
 * The connection part of the timing info. A connection that was open before the hop began
 * (reused, or opened for another request) is reported at the hop's start, as the Fetch Standard
 * clamps it.
 */
function connectionTimingInfo (timings: RequestTimings | null, hopStart: number): object | null {
  if (timings === null) return null
  const tcpStart = timings.tcpStart
  if (tcpStart === null || tcpStart < hopStart) {
    const secure = timings.tlsStart !== null
    return { domainLookupStartTime: hopStart, domainLookupEndTime: hopStart, connectionStartTime: hopStart, connectionEndTime: hopStart, secureConnectionStartTime: secure ? hopStart : 0 }
  }
  return {
    domainLookupStartTime: timings.dnsStart ?? tcpStart,
    domainLookupEndTime: timings.dnsEnd ?? tcpStart,
    connectionStartTime: tcpStart,
    connectionEndTime: timings.tlsEnd ?? timings.tcpEnd ?? tcpStart,
    secureConnectionStartTime: timings.tlsStart ?? 0
  }
}

/** Marks the resource timing entry of a fetch whose response just ended. */
export function markFetchTiming (record: FetchTimingRecord): void {
  if (markResourceTiming === null) return
  const { timings, startedAt, lastHopAt } = record
  const redirected = lastHopAt !== startedAt
  const timingInfo = {
    startTime: startedAt,
    redirectStartTime: redirected ? startedAt : 0,
    redirectEndTime: redirected ? lastHopAt : 0,
    postRedirectStartTime: lastHopAt,
    finalServiceWorkerStartTime: 0,
    finalNetworkRequestStartTime: timings?.requestHeadSent ?? timings?.socketAssigned ?? 0,
    finalNetworkResponseStartTime: timings?.responseStart ?? 0,
    endTime: monotonicNow(),
    encodedBodySize: record.encodedBodySize,
    decodedBodySize: record.decodedBodySize,
    finalConnectionTimingInfo: connectionTimingInfo(timings, lastHopAt)
  }
  // No origin restricts what a Node program may see: the timing-allow check passes, as in undici's fetch.
  markResourceTiming(timingInfo, record.url, 'fetch', globalThis, '', {}, record.status)
}
