/**
 * The top-level `request`, `stream`, `pipeline`, `connect` and `upgrade`: the dispatcher methods
 * called on the global dispatcher (or `options.dispatcher`), with the target given as a URL.
 * @module
 */

import type { Duplex } from 'node:stream'
import type { Dispatcher } from './dispatcher/dispatcher.js'
import { getGlobalDispatcher } from './global.js'
import { InvalidArgumentError } from './errors.js'
import { describeValue } from './validation/describe-value.js'
import { copyOptions } from './runtime/copy-options.js'
import { request as dispatcherRequest } from './api/request.js'
import type { RequestCallback, RequestOptions, ResponseData } from './api/request.js'
import { stream as dispatcherStream } from './api/stream.js'
import type { StreamCallback, StreamData, StreamFactory, StreamOptions } from './api/stream.js'
import { pipeline as dispatcherPipeline } from './api/pipeline.js'
import type { PipelineHandlerFunction, PipelineOptions } from './api/pipeline.js'
import { parseUrl, toUrl } from './connection/url-like.js'
import type { Target, UrlLike } from './connection/url-like.js'
import { connect as dispatcherConnect, upgrade as dispatcherUpgrade } from './api/upgrade.js'
import type { UpgradeCallback, UpgradeData, UpgradeOptions } from './api/upgrade.js'

export type { UrlLike }

/** What the top-level functions add to a dispatcher method's options. */
export interface TopLevelExtras {
  /** Dispatcher to use instead of the global one. */
  dispatcher?: Dispatcher | undefined
}

/** Options of the top-level {@link request}: `request()` options, with `dispatcher` to pick another one. */
export type TopLevelRequestOptions<TOpaque = null> = Partial<RequestOptions<TOpaque>> & TopLevelExtras

/**
 * Resolves the target and options of a top-level call into the dispatcher and the options of
 * the dispatcher method. `opts.path` replaces the URL's path and query.
 */
function resolve<O extends object> (who: string, target: unknown, given: unknown): { dispatcher: Dispatcher, opts: O & { origin: string, path: string, method: string } } {
  if (target == null || (typeof target !== 'string' && typeof target !== 'object')) {
    throw new InvalidArgumentError(`${who}: expected a URL string, URL or options object, got ${describeValue(target)}`)
  }
  if (given != null && typeof given !== 'object') throw new InvalidArgumentError(`${who}: options must be an object, got ${describeValue(given)}`)
  let opts = given as (Record<string, unknown> & TopLevelExtras) | null | undefined
  let url: URL
  if (opts != null && opts.path != null) {
    if (typeof opts.path !== 'string') throw new InvalidArgumentError(`${who}: path must be a string, got ${describeValue(opts.path)}`)
    const path = opts.path.startsWith('/') ? opts.path : `/${opts.path}`
    url = parseUrl(who, `${toUrl(who, target as Target).origin}${path}`)
  } else {
    opts ??= (typeof target === 'object' && !(target instanceof URL) ? target as Record<string, unknown> : {})
    url = toUrl(who, target as Target)
  }
  if (opts.agent != null) throw new InvalidArgumentError(`${who}: there is no "agent" option; pass the dispatcher as "dispatcher"`)
  const { dispatcher, ...rest } = opts
  if (dispatcher !== undefined && (dispatcher === null || typeof dispatcher.dispatch !== 'function')) {
    throw new InvalidArgumentError(`${who}: dispatcher must be a Dispatcher, got ${describeValue(dispatcher)}`)
  }
  const method = typeof rest.method === 'string' && rest.method !== '' ? rest.method : (rest.body != null ? 'PUT' : 'GET')
  return {
    dispatcher: dispatcher ?? getGlobalDispatcher(),
    opts: withTarget(rest, url.origin, `${url.pathname}${url.search}`, method) as O & { origin: string, path: string, method: string }
  }
}

/**
 * undici's top-level functions read `(url, fn)` as `(url, null, fn)`: a function in the
 * options' place is the factory, handler or callback that follows them.
 */
function shifted<F> (options: unknown, fn: F | undefined, rest?: unknown): [options: unknown, fn: F | undefined, rest: unknown] {
  return typeof options === 'function' ? [null, options as F, fn] : [options, fn, rest]
}

/**
 * Runs `call` with the resolved dispatcher and options. Bad arguments reject the promise form
 * and throw in the callback form (there is no promise to reject).
 */
function withResolved<O extends object, R> (who: string, url: unknown, options: unknown, callback: unknown, call: (dispatcher: Dispatcher, opts: O & { origin: string, path: string, method: string }) => R): R | Promise<never> {
  let resolved
  try {
    resolved = resolve<O>(who, url, options)
  } catch (err) {
    if (callback === undefined) return Promise.reject(err)
    throw err
  }
  return call(resolved.dispatcher, resolved.opts)
}

/**
 * Sends a request through the global dispatcher (or `options.dispatcher`); resolves once the
 * response head arrives. `url` may carry the path and query; `options.path` overrides them. The
 * method defaults to `PUT` when a body is given, `GET` otherwise.
 * @example
 * const { statusCode, body } = await request('http://127.0.0.1:3000/items?page=2')
 * console.log(statusCode, await body.json())
 */
export function request<TOpaque = null> (url: string | URL | UrlLike | TopLevelRequestOptions<TOpaque>, options?: TopLevelRequestOptions<TOpaque> | null): Promise<ResponseData<TOpaque>>
export function request<TOpaque = null> (url: string | URL | UrlLike | TopLevelRequestOptions<TOpaque>, options: TopLevelRequestOptions<TOpaque> | null | undefined, callback: RequestCallback<TOpaque>): void
export function request<TOpaque = null> (url: string | URL | UrlLike | TopLevelRequestOptions<TOpaque>, callback: RequestCallback<TOpaque>): void
export function request (url: string | URL | UrlLike | TopLevelRequestOptions<unknown>, givenOptions?: TopLevelRequestOptions<unknown> | RequestCallback<unknown> | null, givenCallback?: RequestCallback<unknown>): Promise<ResponseData<unknown>> | void {
  const [options, callback] = shifted<RequestCallback<unknown>>(givenOptions, givenCallback)
  return withResolved<RequestOptions<unknown>, Promise<ResponseData<unknown>> | void>('request()', url, options, callback, (dispatcher, opts) =>
    callback === undefined ? dispatcherRequest(dispatcher, opts) : dispatcherRequest(dispatcher, opts, callback))
}

/**
 * `stream()` on the global dispatcher (or `options.dispatcher`): the response body is written
 * into the Writable `factory` returns.
 * @example
 * await stream('http://127.0.0.1:3000/file', {}, () => fs.createWriteStream('file'))
 */
export function stream<TOpaque = null> (url: string | URL | UrlLike, options: (Partial<StreamOptions<TOpaque>> & TopLevelExtras) | null | undefined, factory: StreamFactory<TOpaque>): Promise<StreamData<TOpaque>>
export function stream<TOpaque = null> (url: string | URL | UrlLike, options: (Partial<StreamOptions<TOpaque>> & TopLevelExtras) | null | undefined, factory: StreamFactory<TOpaque>, callback: StreamCallback<TOpaque>): void
export function stream<TOpaque = null> (url: string | URL | UrlLike, factory: StreamFactory<TOpaque>): Promise<StreamData<TOpaque>>
export function stream<TOpaque = null> (url: string | URL | UrlLike, factory: StreamFactory<TOpaque>, callback: StreamCallback<TOpaque>): void
export function stream (url: string | URL | UrlLike, givenOptions: (Partial<StreamOptions<unknown>> & TopLevelExtras) | StreamFactory<unknown> | null | undefined, givenFactory?: StreamFactory<unknown> | StreamCallback<unknown>, givenCallback?: StreamCallback<unknown>): Promise<StreamData<unknown>> | void {
  const [options, factory, rest] = shifted<StreamFactory<unknown>>(givenOptions, givenFactory as StreamFactory<unknown> | undefined, givenCallback)
  const callback = rest as StreamCallback<unknown> | undefined
  const { dispatcher, opts } = resolve<StreamOptions<unknown>>('stream()', url, options)
  return callback === undefined ? dispatcherStream(dispatcher, opts, factory!) : dispatcherStream(dispatcher, opts, factory!, callback)
}

/**
 * `pipeline()` on the global dispatcher (or `options.dispatcher`): a Duplex whose written data
 * is the request body and whose read data is what `handler` makes of the response.
 * @example
 * const duplex = pipeline('http://127.0.0.1:3000/echo', { method: 'POST' }, ({ body }) => body)
 */
export function pipeline<TOpaque = null> (url: string | URL | UrlLike, options: (Partial<PipelineOptions<TOpaque>> & TopLevelExtras) | null | undefined, handler: PipelineHandlerFunction<TOpaque>): Duplex
export function pipeline<TOpaque = null> (url: string | URL | UrlLike, handler: PipelineHandlerFunction<TOpaque>): Duplex
export function pipeline (url: string | URL | UrlLike, givenOptions: (Partial<PipelineOptions<unknown>> & TopLevelExtras) | PipelineHandlerFunction<unknown> | null | undefined, givenHandler?: PipelineHandlerFunction<unknown>): Duplex {
  const [options, handler] = shifted<PipelineHandlerFunction<unknown>>(givenOptions, givenHandler)
  const { dispatcher, opts } = resolve<PipelineOptions<unknown>>('pipeline()', url, options)
  return dispatcherPipeline(dispatcher, opts, handler!)
}

/**
 * `upgrade()` on the global dispatcher (or `options.dispatcher`): resolves with the socket once
 * the server answers 101.
 * @example
 * const { socket } = await upgrade('http://127.0.0.1:3000/chat', { protocol: 'my-proto' })
 */
export function upgrade<TOpaque = null> (url: string | URL | UrlLike | (UpgradeOptions<TOpaque> & TopLevelExtras), options?: (UpgradeOptions<TOpaque> & TopLevelExtras) | null): Promise<UpgradeData<TOpaque>>
export function upgrade<TOpaque = null> (url: string | URL | UrlLike | (UpgradeOptions<TOpaque> & TopLevelExtras), options: (UpgradeOptions<TOpaque> & TopLevelExtras) | null | undefined, callback: UpgradeCallback<TOpaque>): void
export function upgrade<TOpaque = null> (url: string | URL | UrlLike | (UpgradeOptions<TOpaque> & TopLevelExtras), callback: UpgradeCallback<TOpaque>): void
export function upgrade (url: string | URL | UrlLike | (UpgradeOptions<unknown> & TopLevelExtras), givenOptions?: (UpgradeOptions<unknown> & TopLevelExtras) | UpgradeCallback<unknown> | null, givenCallback?: UpgradeCallback<unknown>): Promise<UpgradeData<unknown>> | void {
  const [options, callback] = shifted<UpgradeCallback<unknown>>(givenOptions, givenCallback)
  return withResolved<UpgradeOptions<unknown>, Promise<UpgradeData<unknown>> | void>('upgrade()', url, options, callback, (dispatcher, opts) => dispatcherUpgrade(dispatcher, opts, callback))
}

/**
 * `connect()` on the global dispatcher (or `options.dispatcher`): opens a `CONNECT` tunnel to
 * `path`, kept as written (`host:port`), and resolves with the socket.
 * @example
 * const { socket } = await connect({ origin: 'http://127.0.0.1:8080', path: 'example.org:443', dispatcher: proxyClient })
 */
export function connect<TOpaque = null> (url: string | URL | UrlLike | (UpgradeOptions<TOpaque> & TopLevelExtras), options?: (UpgradeOptions<TOpaque> & TopLevelExtras) | null): Promise<UpgradeData<TOpaque>>
export function connect<TOpaque = null> (url: string | URL | UrlLike | (UpgradeOptions<TOpaque> & TopLevelExtras), options: (UpgradeOptions<TOpaque> & TopLevelExtras) | null | undefined, callback: UpgradeCallback<TOpaque>): void
export function connect<TOpaque = null> (url: string | URL | UrlLike | (UpgradeOptions<TOpaque> & TopLevelExtras), callback: UpgradeCallback<TOpaque>): void
export function connect (url: string | URL | UrlLike | (UpgradeOptions<unknown> & TopLevelExtras), givenOptions?: (UpgradeOptions<unknown> & TopLevelExtras) | UpgradeCallback<unknown> | null, givenCallback?: UpgradeCallback<unknown>): Promise<UpgradeData<unknown>> | void {
  const [options, callback] = shifted<UpgradeCallback<unknown>>(givenOptions, givenCallback)
  return withResolved<UpgradeOptions<unknown>, Promise<UpgradeData<unknown>> | void>('connect()', url, options, callback, (dispatcher, opts) => {
    // A CONNECT target is host:port, not a path: the one given is sent as is.
    const given = (options ?? (typeof url === 'object' && !(url instanceof URL) ? url : null)) as UpgradeOptions<unknown> | null
    const path = typeof given?.path === 'string' ? given.path : opts.path
    const tunnel = copyOptions(opts)
    tunnel.path = path
    return dispatcherConnect(dispatcher, tunnel, callback)
  })
}
/** The request's options with the origin, path and method its URL and body decided. */
function withTarget (rest: Record<string, unknown>, origin: string, path: string, method: string): Record<string, unknown> {
  const opts = copyOptions(rest)
  opts.origin = origin
  opts.path = path
  opts.method = method
  return opts
}

