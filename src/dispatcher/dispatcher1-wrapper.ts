/**
 * `Dispatcher1Wrapper`, as undici 8 ships it: a dispatcher for code written against the first
 * handler API (`onConnect`, `onHeaders`, `onData`, `onComplete`, `onError`). It adapts such a
 * handler once and hands the request to the dispatcher it wraps, over HTTP/1.1 (those handlers
 * predate HTTP/2). conduit's own dispatchers already take both handler shapes; the class exists
 * so code that wraps its global dispatcher for an older consumer moves over unchanged.
 * @module
 */

import { Dispatcher } from './dispatcher.js'
import type { CloseCallback } from './dispatcher.js'
import type { DispatchHandler, DispatchOptions, LegacyDispatchHandler } from '../contracts/dispatch-contract.js'
import { InvalidArgumentError } from '../errors.js'
import { toDispatchHandler } from '../handlers/legacy-handler.js'
import { describeValue } from '../validation/describe-value.js'
import { failOption } from '../validation/options.js'
import { copyOptions } from '../runtime/copy-options.js'

/** Serves handlers of the first handler API through a dispatcher of today's. */
export class Dispatcher1Wrapper extends Dispatcher {
  readonly #dispatcher: Dispatcher

  /** @param dispatcher - the dispatcher requests go to */
  constructor (dispatcher: Dispatcher) {
    super()
    if (dispatcher === null || typeof dispatcher !== 'object' || typeof (dispatcher as Partial<Dispatcher>).dispatch !== 'function') {
      throw new InvalidArgumentError(`Dispatcher1Wrapper: dispatcher must implement dispatch(), got ${describeValue(dispatcher)}`)
    }
    this.#dispatcher = dispatcher
  }

  /** `handler` as a handler of today's API: returned as it is when it already is one. */
  static wrapHandler (handler: DispatchHandler | LegacyDispatchHandler): DispatchHandler {
    if (handler === null || typeof handler !== 'object') {
      failOption('Dispatcher1Wrapper', 'handler', 'an object', handler)
    }
    return toDispatchHandler(handler)
  }

  /** The dispatcher's origin, for requests without one. */
  override get defaultOrigin (): string | undefined {
    return this.#dispatcher.defaultOrigin
  }

  /** Sends the request through the wrapped dispatcher over HTTP/1.1. */
  override dispatch (opts: DispatchOptions, handler: DispatchHandler | LegacyDispatchHandler): boolean {
    let options = opts
    if ((opts as { allowH2?: boolean }).allowH2 !== false) {
      options = copyOptions(opts);
      (options as { allowH2?: boolean }).allowH2 = false
    }
    return this.#dispatcher.dispatch(options, Dispatcher1Wrapper.wrapHandler(handler))
  }

  /** Closes the wrapped dispatcher. */
  override close (): Promise<void>
  override close (callback: CloseCallback): void
  override close (callback?: CloseCallback): Promise<void> | void {
    return callback === undefined ? this.#dispatcher.close() : this.#dispatcher.close(callback)
  }

  /** Destroys the wrapped dispatcher. */
  override destroy (err?: Error | null): Promise<void>
  override destroy (callback: CloseCallback): void
  override destroy (err: Error | null, callback: CloseCallback): void
  override destroy (errOrCallback?: Error | null | CloseCallback, callback?: CloseCallback): Promise<void> | void {
    const target = this.#dispatcher as unknown as { destroy: (...args: unknown[]) => Promise<void> | void }
    return callback !== undefined ? target.destroy(errOrCallback, callback) : target.destroy(errOrCallback)
  }
}
