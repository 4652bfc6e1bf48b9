/**
 * What a loaded file becomes in memory: its entries keyed by today's matching rules. Entries of
 * a snapshot file are keyed again from their recorded requests (so a file recorded with other
 * options, or by undici, matches as requests are matched now); the exchanges of a HAR file are
 * keyed as the requests they were, grouped into sequences where a request repeats.
 * @module
 */

import { debuglog } from 'node:util'
import { hashRequest, formatRequest, rekeyRecorded, withNamedHeadersOnly, withoutExcluded } from './snapshot-matching.js'
import type { HeaderFilters } from './snapshot-matching.js'
import type { ResolvedSnapshotOptions } from './snapshot-options.js'
import type { SnapshotEntry, SnapshotRecord, SnapshotRequest, SnapshotResponse } from '../../stores/snapshot-file-store.js'
import type { HarExchange } from '../../stores/har-reader.js'

const log = debuglog('conduit:snapshot')

/** A loaded response without the headers recording leaves out today (a file may come from undici, or from another tool). */
function filteredResponse (response: SnapshotResponse, filters: HeaderFilters): SnapshotResponse {
  return { ...response, headers: withoutExcluded(response.headers, filters), trailers: withoutExcluded(response.trailers ?? {}, filters) }
}

/** The entries of a snapshot file by their key; of two entries that now share a key, the first is kept. */
export function keyRecords (records: readonly SnapshotRecord[], filters: HeaderFilters): Map<string, SnapshotEntry> {
  const entries = new Map<string, SnapshotEntry>()
  for (const { snapshot } of records) {
    const rekeyed = rekeyRecorded(snapshot.request, filters)
    const request = snapshot.source === 'har' ? withNamedHeadersOnly(rekeyed, filters) : rekeyed
    const hash = hashRequest(request)
    if (entries.has(hash)) {
      log('two recorded entries match the same requests now; keeping the first: %s %s', request.method, request.url)
      continue
    }
    entries.set(hash, { ...snapshot, request, responses: snapshot.responses.map((r) => filteredResponse(r, filters)), callCount: 0 })
  }
  return entries
}

/**
 * The exchanges of a HAR file as entries: a request another tool sent is keyed as conduit keys
 * a request (normalisers, query redaction), with only the headers `matchHeaders` names; one
 * conduit exported is keyed as recorded. Repeats of a request become its sequence, in file order.
 */
export function keyHarExchanges (exchanges: readonly HarExchange[], opts: ResolvedSnapshotOptions, filters: HeaderFilters): Map<string, SnapshotEntry> {
  const entries = new Map<string, SnapshotEntry>()
  for (const exchange of exchanges) {
    const { method, url, headers, body } = exchange.request
    let request: SnapshotRequest
    if (exchange.keyed) {
      request = rekeyRecorded({ method, url, headers, body }, filters)
    } else {
      const parsed = new URL(url)
      request = formatRequest({ origin: parsed.origin, path: `${parsed.pathname}${parsed.search}`, method, headers, body }, opts, filters)
    }
    if (!exchange.exactHeaders) request = withNamedHeadersOnly(request, filters)
    const hash = hashRequest(request)
    const existing = entries.get(hash)
    if (existing !== undefined) {
      existing.responses.push(filteredResponse(exchange.response, filters))
      if (exchange.startedDateTime > existing.timestamp) existing.timestamp = exchange.startedDateTime
      continue
    }
    const entry: SnapshotEntry = { request, responses: [filteredResponse(exchange.response, filters)], callCount: 0, timestamp: exchange.startedDateTime }
    if (!exchange.exactHeaders) entry.source = 'har'
    entries.set(hash, entry)
  }
  return entries
}
