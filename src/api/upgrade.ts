/**
 * `dispatcher.upgrade()` and `dispatcher.connect()`: protocol switches (`Upgrade` / 101) and
 * `CONNECT` tunnels, resolving (or calling back) with the raw socket.
 * @module
 */

import type { DispatchOptions, DispatchTarget } from '../contracts/dispatch-contract.js'
import { SimpleController } from '../handlers/simple-controller.js'
import { InvalidArgumentError } from '../errors.js'
import { UpgradeHandler } from './upgrade-handler.js'
import type { UpgradeCallback, UpgradeData } from './upgrade-handler.js'
import { describeValue } from '../validation/describe-value.js'
import { abortReason, checkSignal } from './abort-signal.js'
import type { ApiSignal } from './abort-signal.js'
import { toDispatchOptions } from './api-options.js'
import { queueMicrotask } from '../runtime/timers.js'

/** Options of `upgrade()` and `connect()`; `TOpaque` is the type of the `opaque` option. */
export interface UpgradeOptions<TOpaque = null> {
  /** Target origin; required on an Agent. */
  origin?: string | URL | undefined
  /** Request target: a path for `upgrade`, `host:port` for `connect`. */
  path?: string | undefined
  /** Request headers. */
  headers?: DispatchOptions['headers']
  /**
   * Method of the upgrade request (`connect` always sends `CONNECT`).
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
  opaque?: TOpaque
  /** Cancels the request until the socket is handed over: an `AbortSignal` or an EventEmitter. */
  signal?: ApiSignal | null | undefined
}

function run (dispatcher: DispatchTarget, who: string, what: string, opts: UpgradeOptions<unknown>, dispatchOpts: () => DispatchOptions, callback?: UpgradeCallback<unknown>): Promise<UpgradeData<unknown>> | void {
  if (callback === undefined) {
    return new Promise((resolve, reject) => {
      run(dispatcher, who, what, opts, dispatchOpts, (err, data) => { err !== null ? reject(err) : resolve(data) })
    })
  }
  if (typeof callback !== 'function') throw new InvalidArgumentError(`${who}: callback must be a function, got ${describeValue(callback)}`)
  let handler: UpgradeHandler
  let resolved: DispatchOptions
  try {
    if (opts === null || typeof opts !== 'object') throw new InvalidArgumentError(`${who}: options must be an object, got ${describeValue(opts)}`)
    checkSignal(who, opts.signal)
    resolved = dispatchOpts()
    handler = new UpgradeHandler(what, opts.opaque, opts.signal, callback)
  } catch (err) {
    const opaque = (opts as UpgradeOptions<unknown> | null)?.opaque
    queueMicrotask(() => callback(err as Error, { opaque } as UpgradeData<unknown>))
    return
  }
  if (opts.signal?.aborted === true) {
    // Nothing is sent; as undici 8 does, the request fails with the signal's reason (its own abort error when the signal gives none).
    handler.onResponseError(new SimpleController(), abortReason(opts.signal))
    return
  }
  try {
    dispatcher.dispatch(toDispatchOptions(resolved), handler)
  } catch (err) {
    handler.onResponseError(new SimpleController(), err as Error)
  }
}

/**
 * Asks the server to switch protocols and settles with the socket once it answers 101. An
 * ordinary response fails with a `SocketError` naming its status.
 * @example
 * const { socket } = await client.upgrade({ path: '/chat', protocol: 'my-proto' })
 * socket.write('hello')
 */
export function upgrade<TOpaque = null> (dispatcher: DispatchTarget, opts: UpgradeOptions<TOpaque>): Promise<UpgradeData<TOpaque>>
export function upgrade<TOpaque = null> (dispatcher: DispatchTarget, opts: UpgradeOptions<TOpaque>, callback?: UpgradeCallback<TOpaque>): Promise<UpgradeData<TOpaque>> | void
export function upgrade (dispatcher: DispatchTarget, opts: UpgradeOptions<unknown>, callback?: UpgradeCallback<unknown>): Promise<UpgradeData<unknown>> | void {
  const protocol = opts?.protocol ?? 'Websocket'
  return run(dispatcher, 'upgrade()', `upgrade to ${protocol}`, opts, () => {
    const { protocol: _protocol, opaque: _opaque, ...rest } = opts
    return { ...rest, path: rest.path ?? '/', method: rest.method ?? 'GET', upgrade: protocol } as DispatchOptions
  }, callback)
}

/**
 * Opens a `CONNECT` tunnel to `path` (`host:port`) and settles with the socket on a 2xx.
 * @example
 * const { socket } = await proxyClient.connect({ path: 'example.org:443' })
 */
export function connect<TOpaque = null> (dispatcher: DispatchTarget, opts: UpgradeOptions<TOpaque>): Promise<UpgradeData<TOpaque>>
export function connect<TOpaque = null> (dispatcher: DispatchTarget, opts: UpgradeOptions<TOpaque>, callback?: UpgradeCallback<TOpaque>): Promise<UpgradeData<TOpaque>> | void
export function connect (dispatcher: DispatchTarget, opts: UpgradeOptions<unknown>, callback?: UpgradeCallback<unknown>): Promise<UpgradeData<unknown>> | void {
  return run(dispatcher, 'connect()', `CONNECT to ${String(opts?.path)}`, opts, () => {
    const { protocol: _protocol, opaque: _opaque, ...rest } = opts
    if (typeof rest.path !== 'string') throw new InvalidArgumentError(`connect(): path must be the tunnel target as host:port, got ${describeValue(rest.path)}`)
    return { ...rest, path: rest.path, method: 'CONNECT' } as DispatchOptions
  }, callback)
}

export type { UpgradeData, UpgradeCallback }
