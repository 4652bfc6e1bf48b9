/**
 * `RetryAgent`: a dispatcher that retries every request of the dispatcher it wraps.
 * A thin preset over the retry interceptor; all retry logic lives in `interceptors/retry/`.
 * @module
 */

import { ComposedDispatcher, Dispatcher } from '../dispatcher/dispatcher.js'
import type { CloseCallback } from '../dispatcher/dispatcher.js'
import { ClientDestroyedError, InvalidArgumentError } from '../errors.js'
import { retryDispatch } from '../../interceptors/retry/index.js'
import type { RetryOptions } from '../../interceptors/retry/index.js'
import { resolveRetryOptions } from '../../interceptors/retry/retry-options.js'
import { defaultRetry } from '../../interceptors/retry/retry-strategy.js'
import { RetryTracker } from '../../interceptors/retry/retry-tracker.js'
import { checkCallback, destroyArguments, settleClose } from '../dispatcher/close-arguments.js'
import { describeValue } from '../validation/describe-value.js'

/**
 * Wraps a dispatcher so that every request is retried per {@link RetryOptions}; behaves as
 * `dispatcher.compose(interceptors.retry(options))`, and in addition `close()` waits for requests
 * between attempts while `destroy()` ends their waits at once.
 * @example
 * const agent = new RetryAgent(new Agent(), { maxRetries: 3 })
 * const { statusCode, body } = await agent.request({ origin: 'http://127.0.0.1:3000', path: '/', method: 'GET' })
 */
export class RetryAgent extends ComposedDispatcher {
  readonly #tracker: RetryTracker

  constructor (dispatcher: Dispatcher, options?: RetryOptions) {
    if (!(dispatcher instanceof Dispatcher)) throw new InvalidArgumentError(`RetryAgent: dispatcher must be a Dispatcher, got ${describeValue(dispatcher)}`)
    const tracker = new RetryTracker()
    super(dispatcher, retryDispatch((o, h) => dispatcher.dispatch(o, h), resolveRetryOptions(options, defaultRetry, 'RetryAgent'), tracker))
    this.#tracker = tracker
  }

  override close (): Promise<void>
  override close (callback: CloseCallback): void
  override close (callback?: CloseCallback): Promise<void> | void {
    checkCallback(callback, 'close')
    return settleClose(this.#tracker.close().then(() => super.close()), callback)
  }

  override destroy (err?: Error | null): Promise<void>
  override destroy (callback: CloseCallback): void
  override destroy (err: Error | null, callback: CloseCallback): void
  override destroy (errOrCallback?: Error | null | CloseCallback, callback?: CloseCallback): Promise<void> | void {
    const { err, callback: cb } = destroyArguments(errOrCallback, callback)
    this.#tracker.destroy(err ?? new ClientDestroyedError())
    return settleClose(super.destroy(err), cb)
  }
}
