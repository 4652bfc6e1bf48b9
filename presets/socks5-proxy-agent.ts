/**
 * `Socks5ProxyAgent`: a dispatcher that sends every request through a SOCKS5 proxy.
 * A thin preset over the proxy interceptor; all proxy logic lives in `interceptors/proxy/`.
 * @module
 */

import { ProxiedDispatcher } from './proxy-dispatcher.js'
import { parseProxyUri } from '../interceptors/proxy/index.js'
import type { BuildOptions, Connector } from '../src/connect.js'
import type { AgentOptions } from '../src/dispatcher/agent.js'
import { InvalidArgumentError } from '../src/errors.js'
import { failOption } from '../src/validation/options.js'

/** Schemes a SOCKS5 proxy URI may use; `socks5h:` lets the proxy resolve target names. */
const SOCKS5_SCHEMES: readonly string[] = ['socks5:', 'socks5h:', 'socks:']

/** Options of {@link Socks5ProxyAgent}: agent options and TLS options for `https:` targets. */
export interface Socks5ProxyAgentOptions extends Omit<AgentOptions, 'connect'> {
  /** TLS options for the connection to `https:` targets through the proxy (e.g. `ca`). */
  requestTls?: BuildOptions | undefined
  /** User name for the proxy's username/password authentication; replaces one in the URI. */
  username?: string | undefined
  /** Password for the proxy's username/password authentication; replaces one in the URI. */
  password?: string | undefined
  /** Opens the connection to the proxy, as a connector does (`(options, callback)`). */
  connect?: Connector | undefined
}

/**
 * Routes every request through a SOCKS5 proxy (credentials in the URI, URL-encoded).
 * @example
 * const agent = new Socks5ProxyAgent('socks5h://user:pass@127.0.0.1:1080')
 * await agent.request({ origin: 'https://example.org', path: '/', method: 'GET' })
 */
export class Socks5ProxyAgent extends ProxiedDispatcher {
  constructor (uri: string | URL, options: Socks5ProxyAgentOptions = {}) {
    const url = parseProxyUri(uri, 'Socks5ProxyAgent')
    if (!SOCKS5_SCHEMES.includes(url.protocol)) {
      throw new InvalidArgumentError(`Socks5ProxyAgent: uri must use ${SOCKS5_SCHEMES.join(', ')}, got ${JSON.stringify(url.protocol)}`)
    }
    const { username, password, connect, ...rest } = options
    super({ ...rest, ...(connect === undefined ? {} : { socksConnect: connect }), uri: withCredentials(uri, username, password) })
  }
}

/** The proxy URI with `username` / `password` (options win over the URI's own), as the proxy options read them. */
function withCredentials (uri: string | URL, username: unknown, password: unknown): string | URL {
  if (username == null && password == null) return uri
  for (const [name, value] of [['username', username], ['password', password]] as const) {
    if (value != null && typeof value !== 'string') failOption('Socks5ProxyAgent', name, 'a string', value)
  }
  const url = new URL(String(uri))
  // The URL setters percent-encode; the proxy options decode again.
  if (typeof username === 'string') url.username = username
  if (typeof password === 'string') url.password = password
  return url
}

/** undici's names for the Socks5ProxyAgent's types (`Socks5ProxyAgent.Options`). */
export declare namespace Socks5ProxyAgent {
  /** {@link Socks5ProxyAgentOptions}. */
  export type Options = Socks5ProxyAgentOptions
}
