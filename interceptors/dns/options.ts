/**
 * Options of the DNS interceptor, their defaults and their validation.
 * @module
 */

import type { LookupOptions } from 'node:dns'
import { failOption } from '../../src/handler.js'
import type { DnsOriginRecords, DnsRecord, DnsStorage } from './records.js'

/** Resolves the host of `origin`; the callback gets every address found. */
export type DnsLookup = (origin: URL, options: LookupOptions & { affinity: 4 | 6 | null, dualStack: boolean }, callback: (err: NodeJS.ErrnoException | null, addresses?: Iterable<DnsRecord> | null) => void) => void

/** Chooses the address for the next request among the stored ones; null to resolve again. */
export type DnsPick = (origin: URL, records: DnsOriginRecords, affinity: 4 | 6 | null) => DnsRecord | null

/** Options of `interceptors.dns()`; all optional. A request may override the last four with its `dns` option. */
export interface DnsInterceptorOptions {
  /**
   * Longest time in milliseconds a resolved address is used; 0 resolves for every request.
   * @defaultValue 10000
   */
  maxTTL?: number | undefined
  /**
   * Most host names kept; once full, other host names are passed on unresolved.
   * @defaultValue Infinity
   */
  maxItems?: number | undefined
  /**
   * Use both IPv4 and IPv6 addresses, alternating, and on a refused or timed-out connection
   * try once with an address of the other family.
   * @defaultValue true
   */
  dualStack?: boolean | undefined
  /**
   * The family to use: with `dualStack` the one tried first on every request, without it the
   * only one resolved.
   * @defaultValue 4 without dualStack, alternating with it
   */
  affinity?: 4 | 6 | undefined
  /**
   * Resolves a host name.
   * @defaultValue `dns.lookup` with `all: true`
   */
  lookup?: DnsLookup | undefined
  /**
   * Chooses among the stored addresses.
   * @defaultValue round-robin (alternating families with dualStack)
   */
  pick?: DnsPick | undefined
  /**
   * Where resolved addresses are kept.
   * @defaultValue an in-memory map of at most `maxItems` host names
   */
  storage?: DnsStorage | undefined
}

/** What a request may override with its `dns` dispatch option. */
export type DnsRequestOverrides = Pick<DnsInterceptorOptions, 'dualStack' | 'affinity' | 'lookup' | 'pick'>

/** The per-request part of the options (dispatch option `dns`). */
export interface DnsRequestOptions {
  dualStack: boolean
  affinity: 4 | 6 | null
  lookup: DnsLookup | undefined
  pick: DnsPick | undefined
}

/** Options after defaults and validation. */
export interface ResolvedDnsOptions extends DnsRequestOptions {
  maxTTL: number
  maxItems: number
  storage: DnsStorage | undefined
}

/** Default of {@link DnsInterceptorOptions.maxTTL}, in milliseconds. */
export const DEFAULT_DNS_MAX_TTL = 10_000

/** Checks the options a request may override and fills in the rest from `base`. */
export function resolveDnsRequestOptions (options: Partial<Record<keyof DnsRequestOptions, unknown>>, base: DnsRequestOptions | null, who: string): DnsRequestOptions {
  const dualStack = options.dualStack ?? base?.dualStack ?? true
  if (typeof dualStack !== 'boolean') failOption(who, 'dualStack', 'a boolean', dualStack)
  const affinity = options.affinity ?? (options.dualStack === undefined ? base?.affinity : undefined) ?? (dualStack ? null : 4)
  if (affinity !== null && affinity !== 4 && affinity !== 6) failOption(who, 'affinity', '4 or 6', affinity)
  const lookup = options.lookup ?? base?.lookup
  if (lookup !== undefined && typeof lookup !== 'function') failOption(who, 'lookup', 'a function', lookup)
  const pick = options.pick ?? base?.pick
  if (pick !== undefined && typeof pick !== 'function') failOption(who, 'pick', 'a function', pick)
  return { dualStack, affinity: affinity as 4 | 6 | null, lookup: lookup as DnsLookup | undefined, pick: pick as DnsPick | undefined }
}

/** Applies defaults; throws `InvalidArgumentError` naming the first bad option. */
export function resolveDnsOptions (options: DnsInterceptorOptions | undefined): ResolvedDnsOptions {
  const who = 'dns()'
  if (options === undefined) options = {}
  if (options === null || typeof options !== 'object') failOption(who, 'options', 'an object', options)
  const maxTTL = options.maxTTL ?? DEFAULT_DNS_MAX_TTL
  if (typeof maxTTL !== 'number' || !Number.isSafeInteger(maxTTL) || maxTTL < 0) failOption(who, 'maxTTL', 'a non-negative integer (milliseconds)', maxTTL)
  const maxItems = options.maxItems ?? Infinity
  if (typeof maxItems !== 'number' || !(Number.isSafeInteger(maxItems) || maxItems === Infinity) || maxItems < 1) failOption(who, 'maxItems', 'a positive integer', maxItems)
  const storage = options.storage
  if (storage !== undefined) {
    for (const method of ['get', 'set', 'delete', 'full'] as const) {
      if (storage === null || typeof storage !== 'object' || typeof storage[method] !== 'function') failOption(who, 'storage', `an object with get, set, delete and full methods (no ${method})`, storage)
    }
  }
  return { ...resolveDnsRequestOptions(options, null, who), maxTTL, maxItems, storage }
}
