/**
 * {@link MockPool}: the mock for an origin served by a pool (what `mockAgent.get()` returns by default).
 * @module
 */

import { MockDispatcher } from './mock-dispatcher.js'
import type { MockPoolOptions } from './mock-dispatcher.js'
import type { PoolStats } from '../dispatcher/stats.js'

/**
 * Intercepts requests to one origin. Get one from `mockAgent.get(origin)`, or build one with
 * `new MockPool(origin, { agent: mockAgent })`.
 * @example
 * const pool = mockAgent.get('http://127.0.0.1:3000')
 * pool.intercept({ path: '/ping' }).reply(200, 'pong')
 */
export class MockPool extends MockDispatcher {
  /** Load figures as undici's MockPool reports them: one connected client, nothing in flight (a mock answers at once). */
  get stats (): PoolStats {
    return { connected: 1, free: 0, pending: 0, queued: 0, running: 0, size: 0 }
  }
}

/** undici's names for the MockPool's types (`MockPool.Options`). */
export declare namespace MockPool {
  /** {@link MockPoolOptions}. */
  export type Options = MockPoolOptions
}
