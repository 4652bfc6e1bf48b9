// A Dispatcher of one's own: every request goes to a wrapped dispatcher, counted.
import { Agent, Dispatcher, setGlobalDispatcher } from 'undici'

export class CountingDispatcher extends Dispatcher {
  count = 0
  readonly #inner: Dispatcher

  constructor (inner: Dispatcher) {
    super()
    this.#inner = inner
  }

  dispatch (options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    this.count++
    return this.#inner.dispatch(options, handler)
  }

  async close (): Promise<void> {
    await this.#inner.close()
  }
}

setGlobalDispatcher(new CountingDispatcher(new Agent()))
