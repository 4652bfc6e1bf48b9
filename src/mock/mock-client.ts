/**
 * {@link MockClient}: the mock for an origin served by a single connection.
 * @module
 */

import { MockDispatcher } from './mock-dispatcher.js'
import type { MockPoolOptions } from './mock-dispatcher.js'

/**
 * Intercepts requests to one origin; `mockAgent.get()` returns one when the agent was built
 * with `connections: 1`, as a real agent would use a single client there.
 * @example
 * const agent = new MockAgent({ connections: 1 })
 * const client = agent.get('http://127.0.0.1:3000') // a MockClient
 * client.intercept({ path: '/ping' }).reply(200, 'pong')
 */
export class MockClient extends MockDispatcher {}

/** undici's names for the MockClient's types (`MockClient.Options`). */
export declare namespace MockClient {
  /** {@link MockPoolOptions}. */
  export type Options = MockPoolOptions
}
