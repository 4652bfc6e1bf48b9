/**
 * Shared pieces of the RedisCacheStore tests: the test server of a file, unique key prefixes (so stores sharing one test
 * server start empty), keys and values, and a bounded poll for effects that travel through Redis
 * to another connection (tracking invalidations, reconnects).
 */

import { after, before } from 'node:test'
import { Redis } from 'ioredis'
import type { CacheKey, CacheValue } from '../../../src/contracts/cache-store.js'
import { startRedisServer } from '../../helpers/redis-server.js'
import type { TestRedis } from '../../helpers/redis-server.js'

let counter = 0

/**
 * Time bound for stores whose Redis is healthy: on a loaded CI machine a slow answer must not
 * become a timeout (and a miss) in a test that is not about timeouts.
 */
export const HEALTHY_TIMEOUT_MS = 5000

/** Time bound for tests that stall Redis on purpose: short, yet far above a healthy answer. */
export const STALL_TIMEOUT_MS = 300

/** A key prefix no other store in this process uses. */
export function uniquePrefix (): string {
  counter++
  return `test:${process.pid}:${counter}:`
}

/** A GET key for `path` on a fixed origin. */
export function cacheKey (path: string, headers: Record<string, string | string[]> = {}): CacheKey {
  return { origin: 'http://127.0.0.1:3000', method: 'GET', path, headers }
}

/** A 200 response value that stays fresh for a minute; `overrides` replace fields. */
export function cacheValue (overrides: Partial<CacheValue> = {}): CacheValue {
  const now = Date.now()
  return { statusCode: 200, statusMessage: 'OK', headers: {}, cachedAt: now, staleAt: now + 60_000, deleteAt: now + 120_000, ...overrides }
}

/**
 * Polls `check` every few ms until it returns true; rejects with `what` after `limitMs`. For effects
 * that arrive asynchronously from another connection; never used to measure time.
 */
export async function eventually (what: string, check: () => boolean | Promise<boolean>, limitMs = 5000): Promise<void> {
  const deadline = Date.now() + limitMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

/** The Redis server of one test file, and a plain client to look at what the stores wrote. */
export interface SharedRedis {
  redis: TestRedis
  admin: Redis
}

/**
 * Starts a private Redis and an admin connection before the file's first test and closes both
 * after its last; the returned object is filled in once the tests start.
 */
export function useTestRedis (): SharedRedis {
  const shared = {} as Partial<SharedRedis> as SharedRedis
  before(async () => {
    shared.redis = await startRedisServer()
    shared.admin = new Redis(shared.redis.port, '127.0.0.1')
  })
  after(async () => {
    // Either may be missing when the before-hook failed (no redis-server installed).
    await shared.admin?.quit()
    await shared.redis?.close()
  })
  return shared
}
