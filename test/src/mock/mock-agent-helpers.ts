/** Shared setup of the MockAgent test files: an offline agent and request() with GET by default. */

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
