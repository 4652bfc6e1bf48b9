/** Shared setup of the MockAgent test files: an offline agent and request() with GET by default. */

import assert from 'node:assert/strict'
import { MockAgent } from '../../../src/mock/mock-agent.js'
import type { Dispatcher } from '../../../src/dispatcher/dispatcher.js'
import type { RequestOptions, ResponseData } from '../../../src/api/request.js'

/** An origin nothing listens on: a mock must answer, or the test fails with a connection error. */
export const ORIGIN = 'http://127.0.0.1:9'

/** request() defaults the method to GET; the options type asks for one, so tests go through this. */
export function req (dispatcher: Dispatcher, opts: Omit<RequestOptions, 'method'> & { method?: string }): Promise<ResponseData> {
  return dispatcher.request({ method: 'GET', ...opts } as RequestOptions)
}

/** A MockAgent with net connect disabled. */
export function offline (opts: ConstructorParameters<typeof MockAgent>[0] = {}): MockAgent {
  const agent = new MockAgent(opts)
  agent.disableNetConnect()
  return agent
}

/** How a failed fetch looks: a TypeError with the dispatcher's error as `cause`. */
export type FetchFailure = Error & { cause?: Error & { code?: string } }

/** Checks that a fetch failed because no mock matched, and optionally the message of the cause. */
export function notMatched (message?: RegExp): (err: FetchFailure) => boolean {
  return (err) => {
    assert.equal(err.name, 'TypeError')
    assert.equal(err.cause?.code, 'LIB_MOCK_ERR_MOCK_NOT_MATCHED')
    if (message !== undefined) assert.match(err.cause.message, message)
    return true
  }
}
