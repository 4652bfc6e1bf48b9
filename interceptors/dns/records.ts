/**
 * The DNS interceptor's records: their shapes (undici's, so custom `lookup`, `pick` and
 * `storage` written for it work here), the default in-memory storage, and the default
 * round-robin pick.
 * @module
 */

/** One resolved address. */
export interface DnsRecord {
  /** The IP address. */
  address: string
  /** Its family. */
  family: 4 | 6
  /** Milliseconds the record may be used; capped at `maxTTL`. */
  ttl: number
  /** When the record was stored (ms since the epoch); set by the interceptor. */
  timestamp?: number
  /** A port to connect to instead of the origin's. */
  port?: number
}

/** The addresses of one family, with the round-robin position. */
export interface DnsFamilyRecords {
  /** The addresses. */
  ips: DnsRecord[]
  /** Round-robin position, kept by `pick`. */
  offset?: number
}

/** Everything stored for one host name. */
export interface DnsOriginRecords {
  /** Addresses by family; null when the family had none. */
  records: {
    /** IPv4 addresses, or null when none are known. */
    4: DnsFamilyRecords | null
    /** IPv6 addresses, or null when none are known. */
    6: DnsFamilyRecords | null
  }
  /** Family alternation position, kept by `pick`. */
  offset?: number
}

/** Where resolved records are kept, keyed by host name. */
export interface DnsStorage {
  /** Host names stored. */
  readonly size: number
  /** The records of `hostname`, or null. */
  get (hostname: string): DnsOriginRecords | null
  /** Stores the records of `hostname`; `ttl` is the shortest record TTL, for stores that expire entries. */
  set (hostname: string, records: DnsOriginRecords | null, options: { ttl: number }): void
  /** Forgets `hostname`. */
  delete (hostname: string): void
  /** True when nothing more may be stored; new host names are then not resolved by the interceptor. */
  full (): boolean
}

/** The default storage: a Map holding at most `maxItems` host names. */
export class MemoryDnsStorage implements DnsStorage {
  readonly #maxItems: number
  readonly #records = new Map<string, DnsOriginRecords>()

  /** @param maxItems - most host names held */
  constructor (maxItems: number) {
    this.#maxItems = maxItems
  }

  get size (): number { return this.#records.size }
  get (hostname: string): DnsOriginRecords | null { return this.#records.get(hostname) ?? null }
  set (hostname: string, records: DnsOriginRecords | null): void {
    if (records === null) this.#records.delete(hostname)
    else this.#records.set(hostname, records)
  }

  delete (hostname: string): void { this.#records.delete(hostname) }
  full (): boolean { return this.#records.size >= this.#maxItems }
}

/** Groups records by family, stamping each with `now` and capping its TTL at `maxTTL`. */
export function groupRecords (addresses: Iterable<DnsRecord>, maxTTL: number, now: number): { records: DnsOriginRecords, ttl: number } {
  const records: DnsOriginRecords = { records: { 4: null, 6: null } }
  let ttl = maxTTL
  for (const address of addresses) {
    const record: DnsRecord = { ...address, timestamp: now, ttl: typeof address.ttl === 'number' ? Math.min(address.ttl, maxTTL) : maxTTL }
    ttl = Math.min(ttl, record.ttl)
    const family = records.records[record.family] ?? { ips: [] }
    family.ips.push(record)
    records.records[record.family] = family
  }
  return { records, ttl }
}

function expired (record: DnsRecord, now: number): boolean {
  return now - (record.timestamp ?? now) > record.ttl
}

/** The next live record of one family in round-robin order; expired records are dropped on the way. */
export function nextOfFamily (family: DnsFamilyRecords | null, now: number): DnsRecord | null {
  if (family === null) return null
  while (family.ips.length > 0) {
    const offset = family.offset === undefined || family.offset >= Number.MAX_SAFE_INTEGER ? 0 : family.offset + 1
    family.offset = offset
    const position = offset % family.ips.length
    const record = family.ips[position]!
    if (!expired(record, now)) return record
    family.ips.splice(position, 1)
  }
  return null
}

/**
 * The default `pick`: with `affinity` null (dual stack), alternates between the families and
 * falls back to the other one when a family has nothing; within a family, round-robin.
 * Null when no live record is left (the interceptor then resolves again).
 */
export function roundRobinPick (records: DnsOriginRecords, affinity: 4 | 6 | null, dualStack: boolean, now: number): DnsRecord | null {
  let family = affinity
  if (family === null) {
    records.offset = records.offset === undefined || records.offset >= Number.MAX_SAFE_INTEGER ? 0 : records.offset + 1
    family = records.offset % 2 === 0 ? 4 : 6
  }
  const first = nextOfFamily(records.records[family], now)
  if (first !== null || !dualStack) return first
  return nextOfFamily(records.records[family === 4 ? 6 : 4], now)
}
