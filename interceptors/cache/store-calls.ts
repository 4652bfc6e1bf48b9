/**
 * Calls into a store that can never fail a request: sync or async, thrown or rejected, a store
 * error is logged under `conduit:cache` and the cache steps aside.
 * @module
 */

import { Readable } from 'node:stream'
import type { CacheKey, CacheStore, GetResult } from '../../src/contracts/cache-store.js'
import { describeKey, log } from './log.js'
import { storedEntryProblem } from './stored-entry-check.js'

/** What a store lookup found: a usable result (undefined when there is none), or that the store failed. */
export interface Lookup {
  result: GetResult | undefined
  failed: boolean
}

function storeFailed (key: CacheKey, err: unknown): Lookup {
  log('store error in get for %s, bypassing the cache: %s', describeKey(key), (err as Error)?.message)
  return { result: undefined, failed: true }
}

function checked (key: CacheKey, result: GetResult | undefined): Lookup {
  let problem: string | null
  try {
    problem = result === undefined ? null : storedEntryProblem(result)
  } catch (err) {
    return storeFailed(key, err)
  }
  if (problem !== null) {
    // A miss rather than a bypass: the fresh response then replaces the corrupted entry.
    log('unusable entry from the store for %s, treating it as a miss: %s', describeKey(key), problem)
    return { result: undefined, failed: false }
  }
  return { result, failed: false }
}

/**
 * The store's answer for `key`, with an unusable entry taken as none. A synchronous store is
 * answered synchronously, so a hit in a memory store costs no promise round trips; an
 * asynchronous one gets a promise. Never throws, never rejects.
 */
export function lookup (store: CacheStore, key: CacheKey): Lookup | Promise<Lookup> {
  let answer: ReturnType<CacheStore['get']>
  try {
    answer = store.get(key)
  } catch (err) {
    return storeFailed(key, err)
  }
  if (answer != null && typeof (answer as Promise<unknown>).then === 'function') {
    return Promise.resolve(answer).then((result) => checked(key, result ?? undefined), (err: unknown) => storeFailed(key, err))
  }
  return checked(key, (answer as GetResult | null | undefined) ?? undefined)
}

/** True when a {@link lookup} has to be waited for. */
export function isPending (found: Lookup | Promise<Lookup>): found is Promise<Lookup> {
  return typeof (found as Promise<Lookup>).then === 'function'
}

/**
 * Deletes every response stored for the key's URL. Returns a promise only when the store's
 * `delete` did, so callers of synchronous stores need not wait a turn.
 */
export function deleteQuietly (store: CacheStore, key: CacheKey): Promise<void> | undefined {
  let pending: void | Promise<void>
  try {
    pending = store.delete(key)
  } catch (err) {
    log('store error in delete for %s: %s', describeKey(key), (err as Error).message)
    return undefined
  }
  if (pending === undefined || typeof (pending as Promise<void>).then !== 'function') return undefined
  return Promise.resolve(pending).then(
    () => {},
    (err: Error) => { log('store error in delete for %s: %s', describeKey(key), err?.message) }
  )
}

/** The whole stored body as one Buffer, whatever form the store returned it in. */
export async function collectBody (body: GetResult['body']): Promise<Buffer> {
  if (body == null) return Buffer.alloc(0)
  if (Buffer.isBuffer(body)) return body
  if (typeof body === 'string') return Buffer.from(body)
  const chunks: Buffer[] = []
  if (body instanceof Readable || Symbol.asyncIterator in (body as object)) {
    for await (const chunk of body as AsyncIterable<Buffer | string>) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk))
  } else {
    for (const chunk of body as Iterable<Buffer | string>) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk))
  }
  return Buffer.concat(chunks)
}
