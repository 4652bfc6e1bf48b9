/**
 * The writes a SqliteCacheStore has handed to its writer thread and that are not committed yet.
 * Reads look here before the database, so a response stored or a URL deleted is seen by the
 * very next `get` in this process, as when writes were synchronous.
 * @module
 */

import type { CacheKey, CacheValue, GetResult } from '../src/handler.js'
import { varyMatches } from './vary-match.js'

/** One write on its way to the database. */
export type PendingWrite =
  | { seq: number, kind: 'set', url: string, method: string, keyHeaders: CacheKey['headers'], value: CacheValue, body: Buffer | null }
  | { seq: number, kind: 'delete', url: string }

/** What the pending writes say about a read: its answer, or nothing (the database decides). */
export type PendingAnswer = { decided: true, result: GetResult | undefined } | { decided: false }

const UNDECIDED: PendingAnswer = Object.freeze({ decided: false })

function bytesOf (write: PendingWrite): number {
  return write.kind === 'set' ? (write.body?.length ?? 0) : 0
}

/** The uncommitted writes, in the order they were made, found by URL. */
export class PendingWrites {
  readonly #writes: PendingWrite[] = []
  readonly #byUrl = new Map<string, PendingWrite[]>()
  #bytes = 0

  /** How many writes are pending. */
  get count (): number {
    return this.#writes.length
  }

  /** Body bytes the pending writes hold. */
  get bytes (): number {
    return this.#bytes
  }

  /** The sequence number of the newest pending write (0 when none). */
  get lastSeq (): number {
    return this.#writes.at(-1)?.seq ?? 0
  }

  /** Adds a write, newer than every pending one. */
  add (write: PendingWrite): void {
    this.#writes.push(write)
    this.#bytes += bytesOf(write)
    const forUrl = this.#byUrl.get(write.url)
    if (forUrl === undefined) this.#byUrl.set(write.url, [write])
    else forUrl.push(write)
  }

  /** Forgets every write up to `seq` (committed, or given up); returns them. */
  settle (seq: number): PendingWrite[] {
    let n = 0
    while (n < this.#writes.length && this.#writes[n]!.seq <= seq) n++
    const settled = this.#writes.splice(0, n)
    for (const write of settled) {
      this.#bytes -= bytesOf(write)
      const forUrl = this.#byUrl.get(write.url)!
      forUrl.shift()
      if (forUrl.length === 0) this.#byUrl.delete(write.url)
    }
    return settled
  }

  /** Every pending write, oldest first. */
  all (): readonly PendingWrite[] {
    return this.#writes
  }

  /**
   * The answer the newest pending write for the key's URL gives: a response stored for the key
   * (method and Vary), or nothing after a delete of the URL. Undecided when no pending write
   * concerns the key.
   */
  answer (url: string, key: CacheKey, now: number): PendingAnswer {
    const forUrl = this.#byUrl.get(url)
    if (forUrl === undefined) return UNDECIDED
    for (let i = forUrl.length - 1; i >= 0; i--) {
      const write = forUrl[i]!
      if (write.kind === 'delete') return { decided: true, result: undefined }
      if (write.method !== key.method || !varyMatches(write.value.vary, key.headers)) continue
      if (write.value.deleteAt <= now) return { decided: true, result: undefined }
      // A copy: the caller may keep or change what it gets, and the pending write must not change.
      return { decided: true, result: { ...structuredClone(write.value), body: write.body === null ? Buffer.alloc(0) : Buffer.from(write.body) } }
    }
    return UNDECIDED
  }

  /** True when a pending write will replace a stored row of this URL, method and Vary map. */
  replaces (url: string, method: string, rowVary: CacheValue['vary']): boolean {
    const forUrl = this.#byUrl.get(url)
    if (forUrl === undefined) return false
    return forUrl.some((write) => write.kind === 'delete' || (write.method === method && varyMatches(rowVary, write.keyHeaders)))
  }
}
