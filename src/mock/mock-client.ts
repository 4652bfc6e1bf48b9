/**
 * {@link MockClient}: the mock for an origin served by a single connection.
 * @module
 */

import { MockDispatcher } from './mock-dispatcher.js'
import type { MockPoolOptions } from './mock-dispatcher.js'
import type { ClientStats } from '../dispatcher/stats.js'

/**
 * Intercepts requests to one origin; `mockAgent.get()` returns one when the agent was built
 * with `connections: 1`, as a real agent would use a single client there.
 * @example
 * const agent = new MockAgent({ connections: 1 })
 * const client = agent.get('http://127.0.0.1:3000') // a MockClient
 * client.intercept({ path: '/ping' }).reply(200, 'pong')
 */
export class MockClient extends MockDispatcher {
  /** Requests in flight per connection, as undici's MockClient reports it (a Client's default). */
  pipelining = 1

  /** Load figures as undici's MockClient reports them: connected, nothing in flight (a mock answers at once). */
  get stats (): ClientStats {
    return { connected: true, pending: 0, running: 0, size: 0 }
  }
}

/** undici's names for the MockClient's types (`MockClient.Options`). */
export declare namespace MockClient {
  /** {@link MockPoolOptions}. */
  export type Options = MockPoolOptions
}
