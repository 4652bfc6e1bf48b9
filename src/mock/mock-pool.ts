/**
 * {@link MockPool}: the mock for an origin served by a pool (what `mockAgent.get()` returns by default).
 * @module
 */

import { MockDispatcher } from './mock-dispatcher.js'
import type { MockPoolOptions } from './mock-dispatcher.js'

/**
 * Intercepts requests to one origin. Get one from `mockAgent.get(origin)`, or build one with
 * `new MockPool(origin, { agent: mockAgent })`.
 * @example
 * const pool = mockAgent.get('http://127.0.0.1:3000')
 * pool.intercept({ path: '/ping' }).reply(200, 'pong')
 */
export class MockPool extends MockDispatcher {}

/** undici's names for the MockPool's types (`MockPool.Options`). */
export declare namespace MockPool {
  /** {@link MockPoolOptions}. */
  export type Options = MockPoolOptions
}
