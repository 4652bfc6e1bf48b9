/**
 * `ProxyAgent`: a dispatcher that sends every request through one HTTP, HTTPS or SOCKS proxy.
 * A thin preset over the proxy interceptor; all proxy logic lives in `interceptors/proxy/`.
 * @module
 */

import { ProxiedDispatcher } from './proxy-dispatcher.js'
import type { ProxyOptions } from '../interceptors/proxy/index.js'
import type { AgentOptions } from '../src/dispatcher/agent.js'
import { InvalidArgumentError } from '../src/errors.js'

/** Options of {@link ProxyAgent}: the proxy options plus the agent options (`connect` excepted). */
export interface ProxyAgentOptions extends ProxyOptions, Omit<AgentOptions, 'connect'> {
  /** URI of the proxy (`http:`, `https:`, `socks5:`, `socks5h:`, `socks:`, `socks4:`, `socks4a:`). */
  uri: string | URL
}

/**
 * Routes every request through a proxy: `https:` targets (and `http:` ones with `proxyTunnel`)
 * through a tunnel, other `http:` targets as absolute-form requests; behaves as
 * `new Agent(options).compose(interceptors.proxy(options))`, closed as one.
 * @example
 * const agent = new ProxyAgent({ uri: 'http://proxy.internal:3128', token: `Bearer ${key}` })
 * const { statusCode } = await agent.request({ origin: 'https://example.org', path: '/', method: 'GET' })
 * await agent.close()
 */
export class ProxyAgent extends ProxiedDispatcher {
  constructor (options: ProxyAgentOptions | string | URL) {
    const opts = typeof options === 'string' || options instanceof URL ? { uri: options } : options
    if (typeof opts !== 'object' || opts === null || opts.uri === undefined || opts.uri === null || opts.uri === '') {
      const got = opts === null || typeof opts !== 'object' ? String(opts) : String(opts.uri)
      throw new InvalidArgumentError(`ProxyAgent: a proxy uri is required (a string, a URL, or { uri }), got ${got}`)
    }
    super(opts)
  }
}

/** undici's names for the ProxyAgent's types (`ProxyAgent.Options`). */
export declare namespace ProxyAgent {
  /** {@link ProxyAgentOptions}. */
  export type Options = ProxyAgentOptions
}
