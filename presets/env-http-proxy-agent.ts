/**
 * `EnvHttpProxyAgent`: a dispatcher that follows `HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY` and
 * `NO_PROXY` (lower-case names first). A thin preset over the proxy interceptor.
 * @module
 */

import { ProxiedDispatcher } from './proxy-dispatcher.js'
import { readProxyEnv } from '../interceptors/proxy/index.js'
import type { ProxyEnvOptions, ProxyOptions } from '../interceptors/proxy/index.js'
import type { AgentOptions } from '../src/dispatcher/agent.js'

/**
 * Options of {@link EnvHttpProxyAgent}: explicit proxies override the environment; agent options
 * apply to every route, `connect` to direct ones only.
 */
export interface EnvHttpProxyAgentOptions extends ProxyEnvOptions, Omit<ProxyOptions, 'uri'>, AgentOptions {}

/**
 * Reads the proxy environment once, at construction: targets matching NO_PROXY, and those whose
 * protocol has no proxy, go direct; the others go through their protocol's proxy.
 * @example
 * // HTTPS_PROXY=http://proxy.internal:3128 NO_PROXY=localhost,.internal
 * setGlobalDispatcher(new EnvHttpProxyAgent())
 */
export class EnvHttpProxyAgent extends ProxiedDispatcher {
  constructor (options: EnvHttpProxyAgentOptions = {}) {
    super({ ...options, ...readProxyEnv(options) })
  }
}

/** undici's names for the EnvHttpProxyAgent's types (`EnvHttpProxyAgent.Options`). */
export declare namespace EnvHttpProxyAgent {
  /** {@link EnvHttpProxyAgentOptions}. */
  export type Options = EnvHttpProxyAgentOptions
}
