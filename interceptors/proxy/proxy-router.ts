/**
 * Which way a proxied request goes: per origin, direct (no proxy for its protocol, or it matches
 * `noProxy`) or through the route of one proxy. The router owns those routes, one per proxy URL.
 * @module
 */

import type { EventEmitter } from 'node:events'
import { InvalidArgumentError, describeUrl, describeValue, failOption } from '../../src/handler.js'
import type { AgentOptions, DispatchOptions } from '../../src/handler.js'
import { parseNoProxy } from './no-proxy.js'
import type { NoProxyMatcher } from './no-proxy.js'
import type { ProxyEnvOptions } from './proxy-env.js'
import { defaultPort, resolveProxy } from './proxy-options.js'
import type { ProxyOptions } from './proxy-options.js'
import { ProxyRoute } from './proxy-route.js'

/** Origins whose routing decision is kept; the cache is cleared when full. */
const DECISION_CACHE_SIZE = 256

/** Where requests to one origin go: a proxy route, or direct (`route` null, `why` says why). */
export interface RoutingDecision {
  /** The origin the request is for, which a tunnel connects to. */
  target: URL
  /** `target.origin`, computed once (URL getters are slow on a hot path). */
  origin: string
  /** `target.host`, for the derived `host` header. */
  host: string
  port: number
  route: ProxyRoute | null
  why: string
}

function targetOf (opts: DispatchOptions): URL {
  const origin = opts.origin
  if (origin instanceof URL) return origin
  if (typeof origin === 'string') {
    try {
      return new URL(origin)
    } catch {
      // The parser's error keeps the whole input (a password included): it is not passed on as the cause.
      failOption('proxy()', 'origin', 'a valid URL', origin, { show: (value) => describeUrl(String(value)) })
    }
  }
  throw new InvalidArgumentError(`proxy(): dispatch options need an origin, got ${describeValue(origin)}`)
}

/** Decides the way of each request, and keeps the proxy routes those decisions name. */
export class ProxyRouter {
  readonly #options: ProxyOptions
  readonly #agentOptions: AgentOptions
  readonly #events: EventEmitter
  readonly #routes = new Map<string, ProxyRoute>()
  readonly #byProtocol: Readonly<Record<string, ProxyRoute | null>>
  readonly #noProxy: NoProxyMatcher
  // Origins repeat far more than they vary, so the URL parse and the NO_PROXY walk run once per origin.
  readonly #decisions = new Map<string, RoutingDecision>()

  constructor (options: ProxyOptions & ProxyEnvOptions, agentOptions: AgentOptions, events: EventEmitter) {
    this.#options = options
    this.#agentOptions = agentOptions
    this.#events = events
    this.#byProtocol = {
      'http:': this.#routeOf('httpProxy' in options ? options.httpProxy : options.uri),
      'https:': this.#routeOf('httpsProxy' in options ? options.httpsProxy : options.uri)
    }
    this.#noProxy = parseNoProxy(options.noProxy)
  }

  /** Where `request` goes. */
  decide (request: DispatchOptions): RoutingDecision {
    const key = request.origin instanceof URL ? request.origin.href : request.origin
    let decision = typeof key === 'string' ? this.#decisions.get(key) : undefined
    if (decision === undefined) {
      const target = targetOf(request)
      const port = Number(target.port) || defaultPort(target.protocol)
      const route = this.#byProtocol[target.protocol] ?? null
      const bypass = route !== null && this.#noProxy.matches(target.hostname, port)
      decision = { target, origin: target.origin, host: target.host, port, route: bypass ? null : route, why: route === null ? `no proxy for ${target.protocol}` : 'matches NO_PROXY' }
      if (this.#decisions.size >= DECISION_CACHE_SIZE) this.#decisions.clear()
      this.#decisions.set(key as string, decision)
    }
    return decision
  }

  /** Every proxy route, one per proxy URL. */
  routes (): ProxyRoute[] {
    return [...this.#routes.values()]
  }

  #routeOf (uri: string | URL | null | undefined): ProxyRoute | null {
    if (uri === null || uri === undefined) return null
    const resolved = resolveProxy(uri, this.#options)
    const key = resolved.url.href
    let route = this.#routes.get(key)
    if (route === undefined) {
      route = new ProxyRoute(resolved, this.#agentOptions, this.#events)
      this.#routes.set(key, route)
    }
    return route
  }
}
