/**
 * Resolving a host name to one address for the next request: through the storage while its
 * records live, through `lookup` otherwise.
 * @module
 */

import { lookup as systemLookup } from 'node:dns'
import { debuglog } from 'node:util'
import { InformationalError } from '../../src/handler.js'
import type { DnsLookup, DnsRequestOptions, ResolvedDnsOptions } from './options.js'
import type { DnsRecord, DnsStorage } from './records.js'
import { MemoryDnsStorage, groupRecords, nextOfFamily, roundRobinPick } from './records.js'

/** Writes one line when `NODE_DEBUG` lists `conduit:dns`. */
export const log = debuglog('conduit:dns')

const defaultLookup: DnsLookup = (origin, options, callback) => {
  systemLookup(origin.hostname, { all: true, family: options.dualStack ? 0 : options.affinity ?? 4, order: 'ipv4first' }, (err, addresses) => {
    if (err !== null) {
      callback(err)
      return
    }
    // Some resolvers list an address twice; one entry per address and family is enough.
    const unique = new Map<string, DnsRecord>()
    for (const { address, family } of addresses) unique.set(`${address}/${family}`, { address, family: family as 4 | 6, ttl: Infinity })
    callback(null, unique.values())
  })
}

/** The URL origin that reaches `record` for a request to `origin`. */
export function addressOrigin (origin: URL, record: DnsRecord): string {
  const host = record.family === 6 ? `[${record.address}]` : record.address
  const port = typeof record.port === 'number' ? `:${record.port}` : origin.port === '' ? '' : `:${origin.port}`
  return `${origin.protocol}//${host}${port}`
}

/** Host name to address, shared by every request through one interceptor. */
export class DnsResolver {
  readonly #options: ResolvedDnsOptions
  readonly #storage: DnsStorage

  /** @param options - resolved interceptor options */
  constructor (options: ResolvedDnsOptions) {
    this.#options = options
    this.#storage = options.storage ?? new MemoryDnsStorage(options.maxItems)
  }

  /**
   * Calls back with the address for the next request to `origin`, or null when the storage is
   * full and the request should go out unresolved.
   */
  resolve (origin: URL, request: DnsRequestOptions, callback: (err: Error | null, record: DnsRecord | null) => void): void {
    const hostname = origin.hostname
    const stored = this.#storage.get(hostname)
    if (stored !== null) {
      const record = request.pick === undefined ? roundRobinPick(stored, request.affinity, request.dualStack, Date.now()) : request.pick(origin, stored, request.affinity)
      if (record != null) {
        callback(null, record)
        return
      }
      log('records of %s expired; resolving again', hostname)
      this.#storage.delete(hostname)
    } else if (this.#storage.full()) {
      log('storage full; %s goes out unresolved', hostname)
      callback(null, null)
      return
    }
    const lookup = request.lookup ?? defaultLookup
    lookup(origin, { all: true, family: request.dualStack ? 0 : request.affinity ?? 4, affinity: request.affinity, dualStack: request.dualStack }, (err, addresses) => {
      const list = err == null && addresses != null ? [...addresses] : []
      if (err != null || list.length === 0) {
        log('resolving %s failed: %s', hostname, err?.message ?? 'no addresses')
        callback(err ?? new InformationalError(`dns(): no addresses found for ${hostname}`), null)
        return
      }
      const { records, ttl } = groupRecords(list, this.#options.maxTTL, Date.now())
      this.#storage.set(hostname, records, { ttl })
      log('resolved %s to %s', hostname, list.map((r) => r.address).join(', '))
      const record = request.pick === undefined ? roundRobinPick(records, request.affinity, request.dualStack, Date.now()) : request.pick(origin, records, request.affinity)
      if (record == null) callback(new InformationalError(`dns(): no usable address for ${hostname}`), null)
      else callback(null, record)
    })
  }

  /** The next stored address of `family` for `hostname`, for a failover; null when there is none. */
  other (hostname: string, family: 4 | 6): DnsRecord | null {
    return nextOfFamily(this.#storage.get(hostname)?.records[family] ?? null, Date.now())
  }

  /** Forgets `hostname` (it no longer resolves). */
  forget (hostname: string): void {
    this.#storage.delete(hostname)
  }
}
