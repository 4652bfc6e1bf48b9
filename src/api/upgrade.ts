/**
 * `upgrade()` and `connect()`: protocol switches (`Upgrade` / 101) and `CONNECT` tunnels as
 * promises of the raw socket.
 * @module
 */

import type { Dispatcher } from '../dispatcher/dispatcher.js'
import { getGlobalDispatcher } from '../global.js'
import type { DispatchOptions } from '../handler.js'
import { InvalidArgumentError } from '../errors.js'
import { UpgradeHandler } from './upgrade-handler.js'
import type { UpgradeData } from './upgrade-handler.js'
import { describeValue } from '../validation/describe-value.js'

/** Options of {@link upgrade} and {@link connect}. */
export interface UpgradeOptions {
  /** Target origin; required on an Agent. */
  origin?: string | URL | undefined
  /** Request target: a path for `upgrade`, `host:port` for `connect`; taken from the URL when one is given. */
  path?: string | undefined
  /** Dispatcher to use instead of the global one. */
  dispatcher?: Dispatcher | undefined
  /** Request headers. */
  headers?: DispatchOptions['headers']
  /**
   * Method of the upgrade request.
   * @defaultValue `'GET'`
   */
  method?: string | undefined
  /**
   * Protocol asked for in the `Upgrade` header (ignored by `connect`).
   * @defaultValue `'Websocket'`
   */
  protocol?: string | undefined
  /** Milliseconds to wait for the answer; overrides the dispatcher's. */
  headersTimeout?: number | undefined
  /** Any value, handed back as `opaque`. */
  opaque?: unknown
  /** Cancels the request until the socket is handed over. */
  signal?: AbortSignal | null | undefined
  /** Anything else interceptors pass along. */
  [key: string]: unknown
}

function run (opts: DispatchOptions, dispatcher: Dispatcher | undefined, what: string, opaque: unknown, signal: AbortSignal | null | undefined): Promise<UpgradeData> {
  return new Promise((resolve, reject) => {
    const handler = new UpgradeHandler(what, opaque, signal, (err, data) => { err !== null ? reject(err) : resolve(data!) })
    ;(dispatcher ?? getGlobalDispatcher()).dispatch(opts, handler)
  })
}

function resolveOptions (who: string, url: unknown, opts: unknown): UpgradeOptions {
  if (typeof url === 'string' || url instanceof URL) {
    if (opts !== undefined && (opts === null || typeof opts !== 'object')) {
      throw new InvalidArgumentError(`${who}(): options must be an object, got ${describeValue(opts)}`)
    }
    let parsed: URL
    try {
      parsed = new URL(String(url))
    } catch {
      throw new InvalidArgumentError(`${who}(): invalid URL ${JSON.stringify(String(url))}`)
    }
    const given = (opts ?? {}) as UpgradeOptions
    return { ...given, origin: parsed.origin, path: given.path ?? `${parsed.pathname}${parsed.search}` }
  }
  if (url === null || typeof url !== 'object') {
    throw new InvalidArgumentError(`${who}(): expected a URL or an options object, got ${describeValue(url)}`)
  }
  return url as UpgradeOptions
}

/**
 * Asks the server to switch protocols and resolves with the socket once it answers 101.
 * An ordinary response rejects with a `SocketError` naming its status. Uses the global
 * dispatcher unless `dispatcher` is given.
 * @example
 * const { socket } = await upgrade('http://127.0.0.1:3000/chat', { protocol: 'my-proto' })
 * socket.write('hello')
 */
export function upgrade (url: string | URL | UpgradeOptions, opts?: UpgradeOptions): Promise<UpgradeData> {
  try {
    const { protocol, opaque, signal, dispatcher, ...rest } = resolveOptions('upgrade', url, opts)
    const proto = protocol ?? 'Websocket'
    return run({ ...rest, path: rest.path ?? '/', method: rest.method ?? 'GET', upgrade: proto }, dispatcher, `upgrade to ${proto}`, opaque, signal)
  } catch (err) {
    return Promise.reject(err)
  }
}

/**
 * Opens a `CONNECT` tunnel to `path` (`host:port`) and resolves with the socket on a 2xx.
 * Uses the global dispatcher unless `dispatcher` is given.
 * @example
 * const { socket } = await connect({ origin: 'http://127.0.0.1:8080', path: 'example.org:443', dispatcher: proxyClient })
 */
export function connect (url: string | URL | UpgradeOptions, opts?: UpgradeOptions): Promise<UpgradeData> {
  try {
    const { protocol: _protocol, opaque, signal, dispatcher, ...rest } = resolveOptions('connect', url, opts)
    if (typeof rest.path !== 'string') throw new InvalidArgumentError(`connect(): path must be the tunnel target as host:port, got ${describeValue(rest.path)}`)
    return run({ ...rest, path: rest.path, method: 'CONNECT' }, dispatcher, `CONNECT to ${rest.path}`, opaque, signal)
  } catch (err) {
    return Promise.reject(err)
  }
}

export type { UpgradeData }
