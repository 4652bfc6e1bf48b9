/**
 * The in-process tier in front of Redis. It holds, per url key and method, every variant Redis had
 * (an empty list is a remembered miss), so a hit costs no round trip. It stays correct only while
 * something tells it about every change made elsewhere: the store keeps it `active` only while
 * Redis client-side tracking is confirmed (see tracking.ts), and clears it whenever that stops.
 * @module
 */

import { LRUCache } from 'lru-cache'
import type { StoredMeta } from './entry-codec.js'

/** One variant held in the tier; `body` is undefined until it has been read from Redis. */
export interface TierVariant {
  meta: StoredMeta
  body: Buffer | undefined
}

/** Limits of the memory tier. */
export interface RedisMemoryTierOptions {
  /**
   * Maximum number of URLs held.
   * @defaultValue `1024`
   */
  maxCount?: number
  /**
   * Maximum total bytes held (bodies plus stored metadata).
   * @defaultValue `33554432` (32 MiB)
   */
  maxSize?: number
  /**
   * How often the invalidation connection is pinged; an unanswered ping (within the store's
   * `timeoutMs`) turns the tier off until that connection is back.
   * @defaultValue `1000`
   */
  heartbeatMs?: number
}

/** Default {@link RedisMemoryTierOptions.heartbeatMs}. */
export const DEFAULT_TIER_HEARTBEAT_MS = 1000
/** Default {@link RedisMemoryTierOptions.maxCount}. */
export const DEFAULT_TIER_MAX_COUNT = 1024
/** Default {@link RedisMemoryTierOptions.maxSize}. */
export const DEFAULT_TIER_MAX_SIZE = 32 * 1024 * 1024

/**
 * Proof that a read from Redis started while nothing had invalidated its key. An invalidation can
 * reach us before the reply of a read that saw the old value (two connections, no ordering between
 * them), so a result is kept only if its ticket is still clean when the reply arrives.
 */
export interface ReadTicket {
  readonly key: string
  readonly generation: number
  stale: boolean
}

type Methods = Map<string, TierVariant[]>

/**
 * A copy of `body` in memory of its own. Replies are slices of the client's socket buffers, and a
 * slice held here would keep the whole buffer alive while the size accounting counts only the
 * slice; small Buffer.from() copies would likewise pin a shared 8 KiB pool slab.
 */
function own (body: Buffer | undefined): Buffer | undefined {
  if (body === undefined) return undefined
  const copy = Buffer.allocUnsafeSlow(body.length)
  body.copy(copy)
  return copy
}

function methodsSize (methods: Methods): number {
  let size = 64
  for (const variants of methods.values()) {
    for (const v of variants) size += 64 + v.meta.size + (v.body?.length ?? 0)
  }
  return size
}

/** The memory tier: an LRU of url key -> method -> variants, guarded by read tickets. */
export class MemoryTier {
  #lru: LRUCache<string, Methods>
  #tickets = new Map<string, Set<ReadTicket>>()
  #generation = 0
  #active = false

  constructor (maxCount: number, maxSize: number) {
    this.#lru = new LRUCache<string, Methods>({ max: Math.max(1, maxCount), maxSize: Math.max(1, maxSize), sizeCalculation: methodsSize })
  }

  /** Whether lookups may be answered from the tier and reads may fill it. */
  get active (): boolean {
    return this.#active
  }

  /** Number of URLs held. */
  get size (): number {
    return this.#lru.size
  }

  /** Starts (after tracking was confirmed) or stops (tracking lost) the tier; both empty it. */
  setActive (active: boolean): void {
    this.#active = active
    this.clear()
  }

  /** The variants held for the url key and method, or undefined when the tier cannot answer. */
  lookup (key: string, method: string): TierVariant[] | undefined {
    if (!this.#active) return undefined
    return this.#lru.get(key)?.get(method)
  }

  /** Registers a read of `key` from Redis that may later fill the tier. */
  begin (key: string): ReadTicket {
    const ticket: ReadTicket = { key, generation: this.#generation, stale: false }
    let set = this.#tickets.get(key)
    if (set === undefined) this.#tickets.set(key, set = new Set())
    set.add(ticket)
    return ticket
  }

  /** Ends a read; its result is dropped. */
  release (ticket: ReadTicket): void {
    const set = this.#tickets.get(ticket.key)
    if (set === undefined) return
    set.delete(ticket)
    if (set.size === 0) this.#tickets.delete(ticket.key)
  }

  #usable (ticket: ReadTicket): boolean {
    this.release(ticket)
    return this.#active && !ticket.stale && ticket.generation === this.#generation
  }

  /** Ends a read and keeps what Redis held for the method, if nothing invalidated it meanwhile. */
  commit (ticket: ReadTicket, method: string, variants: TierVariant[]): void {
    if (!this.#usable(ticket)) return
    const methods: Methods = new Map(this.#lru.get(ticket.key))
    methods.set(method, variants.map((v) => ({ meta: v.meta, body: own(v.body) })))
    this.#lru.set(ticket.key, methods)
  }

  /** Ends a read of one body and attaches it to the variant it belongs to, if that is unchanged. */
  commitBody (ticket: ReadTicket, method: string, meta: StoredMeta, body: Buffer): void {
    if (!this.#usable(ticket)) return
    const methods = this.#lru.get(ticket.key)
    const variants = methods?.get(method)
    if (methods === undefined || variants === undefined) return
    const index = variants.findIndex((v) => v.meta.suffix === meta.suffix && v.meta.writeId === meta.writeId)
    if (index === -1) return
    const next = new Map(methods)
    next.set(method, variants.map((v, i) => (i === index ? { meta: v.meta, body: own(body) } : v)))
    this.#lru.set(ticket.key, next)
  }

  /** Forgets a url key and spoils every read of it still in flight. */
  invalidate (key: string): void {
    this.#lru.delete(key)
    const set = this.#tickets.get(key)
    if (set !== undefined) for (const ticket of set) ticket.stale = true
  }

  /** Forgets everything and spoils every read in flight. */
  clear (): void {
    this.#generation++
    this.#lru.clear()
  }
}
