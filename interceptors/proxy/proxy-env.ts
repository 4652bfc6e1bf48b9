/**
 * Reading proxy settings from the environment the way curl and undici users expect:
 * lower-case names win over upper-case, `ALL_PROXY` is the fallback for both protocols,
 * and explicit options win over the environment.
 * @module
 */

import { failOption } from '../../src/handler.js'

/** Proxy choices per target protocol; `null` means direct. */
export interface ProxyEnvOptions {
  /**
   * Proxy for `http:` targets; `null` or `''` sends them direct.
   * @defaultValue `http_proxy`, `HTTP_PROXY`, then `all_proxy`, `ALL_PROXY`
   */
  httpProxy?: string | URL | null | undefined
  /**
   * Proxy for `https:` targets; `null` sends them direct, `''` the way `http:` targets go.
   * @defaultValue `https_proxy`, `HTTPS_PROXY`, `all_proxy`, `ALL_PROXY`, then the http proxy
   */
  httpsProxy?: string | URL | null | undefined
  /**
   * Targets that bypass the proxy (see the NO_PROXY matcher for the syntax).
   * @defaultValue `no_proxy`, then `NO_PROXY`
   */
  noProxy?: string | undefined
}

/** The settings after the environment was consulted. */
export interface ResolvedProxyEnv {
  httpProxy: string | URL | null
  httpsProxy: string | URL | null
  noProxy: string
}

function read (env: NodeJS.ProcessEnv, name: string): string | undefined {
  for (const key of [name.toLowerCase(), name.toUpperCase()]) {
    const value = env[key]?.trim()
    if (value !== undefined && value !== '') return value
  }
  return undefined
}

/** Explicit choices are checked here, where they are first read, so a bad one is named before any environment value replaces it. */
function checkProxyEnvOptions (options: ProxyEnvOptions): void {
  if (options === null || typeof options !== 'object') {
    failOption('EnvHttpProxyAgent', 'options', 'an object', options)
  }
  for (const name of ['httpProxy', 'httpsProxy'] as const) {
    const value = options[name]
    if (value != null && typeof value !== 'string' && !(value instanceof URL)) {
      failOption('EnvHttpProxyAgent', name, 'a proxy URL string, a URL or null', value)
    }
  }
  if (options.noProxy !== undefined && typeof options.noProxy !== 'string') {
    failOption('EnvHttpProxyAgent', 'noProxy', 'a string', options.noProxy)
  }
}

function isBlank (value: unknown): boolean {
  return typeof value === 'string' && value.trim() === ''
}

/** Environment values are often written without a scheme (`proxy.local:3128`); curl reads those as http. */
function withScheme (value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`
}

/**
 * Resolves the proxy for each target protocol and the NO_PROXY list from options and environment.
 * @example
 * const { httpProxy, httpsProxy, noProxy } = readProxyEnv({ noProxy: 'localhost' })
 */
export function readProxyEnv (options: ProxyEnvOptions = {}, env: NodeJS.ProcessEnv = process.env): ResolvedProxyEnv {
  checkProxyEnvOptions(options)
  const all = withScheme(read(env, 'all_proxy'))
  // An empty string given as an option names no proxy, and the environment is not read for it,
  // as in undici: `httpProxy: ''` goes direct, `httpsProxy: ''` goes the way http: targets go.
  const httpProxy = isBlank(options.httpProxy)
    ? null
    : options.httpProxy !== undefined ? options.httpProxy : withScheme(read(env, 'http_proxy')) ?? all ?? null
  const httpsProxy = isBlank(options.httpsProxy)
    ? httpProxy
    : options.httpsProxy !== undefined ? options.httpsProxy : withScheme(read(env, 'https_proxy')) ?? all ?? httpProxy
  const noProxy = options.noProxy ?? read(env, 'no_proxy') ?? ''
  return { httpProxy, httpsProxy, noProxy }
}
