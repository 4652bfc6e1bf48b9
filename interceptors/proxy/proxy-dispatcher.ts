/**
 * The dispatcher behind the proxy presets: an Agent (for direct routes) composed with the proxy
 * interceptor, whose close/destroy cover both and whose events include the proxied dispatchers'.
 * @module
 */

import { Agent } from '../../src/dispatcher/agent.js'
import type { AgentOptions } from '../../src/dispatcher/agent.js'
import { Dispatcher } from '../../src/dispatcher/dispatcher.js'
import type { CloseCallback } from '../../src/dispatcher/dispatcher.js'
import { checkCallback, destroyArguments, settleClose } from '../../src/dispatcher/close-arguments.js'
import type { DispatchHandler, DispatchOptions, LegacyDispatchHandler } from '../../src/handler.js'
import { agentOptionsOf, proxy } from './index.js'
import type { ProxyInterceptor, ProxyInterceptorOptions } from './index.js'
import { FORWARDED_EVENTS } from './proxy-route.js'

/** Options of {@link ProxiedDispatcher}: `connect` applies to direct routes only (tunnels bring their own). */
export interface ProxiedDispatcherOptions extends ProxyInterceptorOptions {
  connect?: AgentOptions['connect']
}

/** `new Agent(agentOptions).compose(proxy(options))`, closed and destroyed as one dispatcher. */
export class ProxiedDispatcher extends Dispatcher {
  readonly #agent: Agent
  readonly #proxy: ProxyInterceptor
  readonly #composed: Dispatcher

  constructor (options: ProxiedDispatcherOptions) {
    super()
    this.#proxy = proxy(options)
    this.#agent = new Agent({ ...agentOptionsOf(options), connect: options.connect })
    this.#composed = this.#agent.compose(this.#proxy)
    for (const event of FORWARDED_EVENTS) {
      const forward = (...args: unknown[]): boolean => this.emit(event, ...args)
      this.#agent.on(event, forward)
      this.#proxy.events.on(event, forward)
    }
  }

  override dispatch (opts: DispatchOptions, handler: DispatchHandler | LegacyDispatchHandler): boolean {
    return this.#composed.dispatch(opts, handler)
  }

  /** Waits for requests in flight, then closes the agent, the tunnels and the connections to the proxy. */
  override close (): Promise<void>
  /** Callback form of {@link close}. */
  override close (callback: CloseCallback): void
  override close (callback?: CloseCallback): Promise<void> | void {
    checkCallback(callback, 'close')
    return settleClose(Promise.all([this.#agent.close(), this.#proxy.close()]).then(() => undefined), callback)
  }

  /** Fails every request in flight with `err` (a destroyed-client error by default) and closes everything at once. */
  override destroy (err?: Error | null): Promise<void>
  /** Callback form of {@link destroy}, with the default error. */
  override destroy (callback: CloseCallback): void
  /** Callback form of {@link destroy}. */
  override destroy (err: Error | null, callback: CloseCallback): void
  override destroy (errOrCallback?: Error | null | CloseCallback, callback?: CloseCallback): Promise<void> | void {
    const { err, callback: cb } = destroyArguments(errOrCallback, callback)
    const done = Promise.all([this.#agent.destroy(err), this.#proxy.destroy(err)]).then(() => undefined)
    return settleClose(done, cb)
  }
}
