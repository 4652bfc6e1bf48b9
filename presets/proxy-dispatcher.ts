/**
 * The dispatcher behind the proxy presets: an Agent (for direct routes) composed with the proxy
 * interceptor.
 * @module
 */

import { Agent } from '../src/dispatcher/agent.js'
import type { AgentOptions } from '../src/dispatcher/agent.js'
import { ComposedDispatcher, composeChain } from '../src/dispatcher/dispatcher.js'
import { FORWARDED_EVENTS, agentOptionsOf, proxy } from '../interceptors/proxy/index.js'
import type { ProxyInterceptorOptions } from '../interceptors/proxy/index.js'

/** Options of {@link ProxiedDispatcher}: `connect` applies to direct routes only (tunnels bring their own). */
export interface ProxiedDispatcherOptions extends ProxyInterceptorOptions {
  connect?: AgentOptions['connect']
}

/**
 * `new Agent(agentOptions).compose(proxy(options))`: closing or destroying it reaches the proxy
 * interceptor through the dispatch lifecycle, and its events include the proxied dispatchers'.
 */
export class ProxiedDispatcher extends ComposedDispatcher {
  constructor (options: ProxiedDispatcherOptions) {
    const interceptor = proxy(options)
    const agent = new Agent({ ...agentOptionsOf(options), connect: options.connect })
    const { dispatch, lifecycles } = composeChain(agent, [interceptor])
    super(agent, dispatch, lifecycles)
    // Events belong to the base agent; the proxied dispatchers' are told there too.
    for (const event of FORWARDED_EVENTS) interceptor.events.on(event, (...args: unknown[]) => agent.emit(event, ...args))
  }
}
