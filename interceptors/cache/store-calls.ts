/**
 * Calls into a store that can never fail a request: sync or async, thrown or rejected, a store
 * error is logged under `conduit:cache` and the cache steps aside.
 * @module
 */

import { Readable } from 'node:stream'
import type { CacheKey, CacheStore, GetResult } from '../../src/handler.js'
import { describeKey, log } from './log.js'
import { storedEntryProblem } from './stored-entry-check.js'

/** What reading the store found: the stored response (undefined when there is none), or that the store failed. */
export interface StoreRead {
  result: GetResult | undefined
  failed: boolean
}

const STORE_FAILED: StoreRead = Object.freeze({ result: undefined, failed: true })
const NOT_FOUND: StoreRead = Object.freeze({ result: undefined, failed: false })

function storeFailed (key: CacheKey, err: unknown): StoreRead {
  log('store error in get for %s, bypassing the cache: %s', describeKey(key), (err as Error | undefined)?.message)
  return STORE_FAILED
}

function checked (key: CacheKey, result: GetResult | null | undefined): StoreRead {
  if (result == null) return NOT_FOUND
  let problem: string | null
  try {
    problem = storedEntryProblem(result)
  } catch (err) {
    // An entry whose fields throw when read (a getter, a Proxy) is as unusable as a malformed one.
    problem = `reading it threw: ${(err as Error | undefined)?.message}`
  }
  if (problem !== null) {
    // A miss rather than a bypass: the fresh response then replaces the corrupted entry.
    log('unusable entry from the store for %s, treating it as a miss: %s', describeKey(key), problem)
    return NOT_FOUND
  }
  return { result, failed: false }
}

/**
 * The store's answer for `key`, or undefined when it has none, failed, or returned an unusable
 * entry. A store that answers synchronously is answered synchronously, so a hit costs no promise
 * round trip; an asynchronous store gets a promise. Never throws, never rejects.
 */
export function readStore (store: CacheStore, key: CacheKey): StoreRead | Promise<StoreRead> {
  let answer: ReturnType<CacheStore['get']>
  try {
    answer = store.get(key)
  } catch (err) {
    return storeFailed(key, err)
  }
  if (isPending(answer)) {
    return Promise.resolve(answer).then((result) => checked(key, result), (err: unknown) => storeFailed(key, err))
  }
  return checked(key, answer)
}

/** True when `value` has to be waited for (a promise or any other thenable). */
export function isPending<T> (value: T | PromiseLike<T>): value is PromiseLike<T> {
  return value != null && typeof (value as PromiseLike<T>).then === 'function'
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
  if (!isPending(pending)) return undefined
  return Promise.resolve(pending).then(
    () => {},
    (err: Error) => { log('store error in delete for %s: %s', describeKey(key), err?.message) }
  )
}

/** Tells a store that has `missSettled` how the fetch of a miss it answered ended; never throws. */
export function reportMissSettled (store: CacheStore, key: CacheKey, stored: boolean): void {
  if (typeof store.missSettled !== 'function') return
  try {
    store.missSettled(key, stored)
  } catch (err) {
    log('store error in missSettled for %s: %s', describeKey(key), (err as Error | undefined)?.message)
  }
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
