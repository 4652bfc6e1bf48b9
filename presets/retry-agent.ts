/**
 * `RetryAgent`: a dispatcher that retries every request of the dispatcher it wraps.
 * A thin preset over the retry interceptor; all retry logic lives in `interceptors/retry/`.
 * @module
 */

import { ComposedDispatcher, Dispatcher, composeChain } from '../src/dispatcher/dispatcher.js'
import { defaultRetry, resolveRetryOptions, retryWithOptions } from '../interceptors/retry/index.js'
import type { RetryOptions } from '../interceptors/retry/index.js'
import { failOption } from '../src/validation/options.js'

/**
 * Wraps a dispatcher so that every request is retried per {@link RetryOptions}; behaves as
 * `dispatcher.compose(interceptors.retry(options))`, and in addition `close()` waits for requests
 * between attempts while `destroy()` ends their waits at once.
 * @example
 * const agent = new RetryAgent(new Agent(), { maxRetries: 3 })
 * const { statusCode, body } = await agent.request({ origin: 'http://127.0.0.1:3000', path: '/', method: 'GET' })
 */
export class RetryAgent extends ComposedDispatcher {
  constructor (dispatcher: Dispatcher, options?: RetryOptions) {
    if (!(dispatcher instanceof Dispatcher)) failOption('RetryAgent', 'dispatcher', 'a Dispatcher', dispatcher)
    const { dispatch, lifecycles } = composeChain(dispatcher, [retryWithOptions(resolveRetryOptions(options, defaultRetry, 'RetryAgent'))])
    super(dispatcher, dispatch, lifecycles)
  }
}
