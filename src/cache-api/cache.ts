/**
 * `Cache`: one named request-response list of the Cache API, in memory, with the standard's
 * checks (GET only unless `ignoreMethod`, Vary, no 206, no `Vary: *`, bodies read once).
 * @module
 */

import { requireArguments } from '../fetch/webidl.js'
import { Request } from '../fetch/request.js'
import { Response } from '../fetch/response.js'
import { bodyInternals } from '../fetch/body.js'
import { describeValue } from '../validation/describe-value.js'
import { CONSTRUCT, illegalConstructor, isHttpUrl, toQueryFlags, toQueryInput } from './arguments.js'
import { batchCacheOperations } from './batch.js'
import type { CacheOperation } from './batch.js'
import { hasVaryStar, replayRequest, replayResponse, storeRequest, storeResponse } from './entries.js'
import type { CacheEntry, CacheQueryOptions, QueryFlags } from './entries.js'
import type { CacheList } from './cache-list.js'
import { fetchAll } from './fetch-all.js'
import type { RequestInfo } from '../fetch/request.js'

/**
 * A cache of Request/Response pairs, reached through `caches.open(name)`. Entries live in memory,
 * for the life of the process.
 * @example
 * const cache = await caches.open('v1')
 * await cache.put('http://127.0.0.1:3000/a', new Response('hello'))
 * await (await cache.match('http://127.0.0.1:3000/a'))?.text() // 'hello'
 */
export class Cache {
  readonly #list: CacheList

  /** Not for direct use: `caches.open()` builds caches (anything else throws a TypeError). */
  constructor (token: never, list: never) {
    if ((token as unknown) !== CONSTRUCT) throw illegalConstructor('Cache')
    this.#list = list as CacheList
  }

  // The entries a request input selects, or every entry when there is none (undefined).
  #select (input: unknown, flags: QueryFlags, what: string): CacheEntry[] {
    if (input === undefined) return this.#list.all()
    const { request, isRequestObject } = toQueryInput(input, what)
    if (isRequestObject && request.method !== 'GET' && !flags.ignoreMethod) return []
    return this.#list.query(request, flags)
  }

  /** The first stored response `request` selects, or undefined. */
  async match (request: RequestInfo, options?: CacheQueryOptions): Promise<Response | undefined> {
    requireArguments(arguments.length, 1, 'Cache.match')
    const first = this.#select(request, toQueryFlags(options, 'Cache.match'), 'Cache.match')[0]
    return first === undefined ? undefined : replayResponse(first.response)
  }

  /** Every stored response `request` selects (all of them without a request), in insertion order. */
  async matchAll (request?: RequestInfo, options?: CacheQueryOptions): Promise<readonly Response[]> {
    const flags = toQueryFlags(options, 'Cache.matchAll')
    return Object.freeze(this.#select(request, flags, 'Cache.matchAll').map((entry) => replayResponse(entry.response)))
  }

  /** Fetches `request` with conduit's fetch and stores the response (see {@link Cache.addAll}). */
  async add (request: RequestInfo): Promise<void> {
    requireArguments(arguments.length, 1, 'Cache.add')
    await this.addAll([request])
  }

  /**
   * Fetches every request with conduit's fetch and stores all responses, or none: a failed fetch,
   * a status outside 200-299, a 206 or a `Vary: *` rejects with a TypeError and stores nothing.
   */
  async addAll (requests: Iterable<RequestInfo>): Promise<void> {
    requireArguments(arguments.length, 1, 'Cache.addAll')
    const inputs: unknown[] = [...(requests as Iterable<unknown>)]
    for (const input of inputs) {
      if (input === undefined) throw new TypeError('Cache.addAll: undefined is not a request')
      if (input instanceof Request && (!isHttpUrl(input.url) || input.method !== 'GET')) {
        throw new TypeError(`Cache.addAll: only GET requests to http or https URLs can be added, got ${input.method} ${input.url}`)
      }
    }
    const list = inputs.map((input) => new Request(input as RequestInfo))
    for (const request of list) {
      if (!isHttpUrl(request.url)) throw new TypeError(`Cache.addAll: only http and https URLs can be added, got ${request.url}`)
    }
    const fetched = await fetchAll(list)
    const operations: CacheOperation[] = fetched.map(({ request, response, body }) => ({ type: 'put', request: storeRequest(request), response: storeResponse(response, body) }))
    batchCacheOperations(this.#list, operations)
  }

  /**
   * Stores `response` for `request`, replacing what the same request selected. Refused with a
   * TypeError: a method other than GET, a URL other than http(s), status 206, `Vary: *`, a body
   * already read. The response's body is read here, so the caller cannot read it again.
   */
  async put (request: RequestInfo, response: Response): Promise<void> {
    requireArguments(arguments.length, 2, 'Cache.put')
    const { request: r } = toQueryInput(request, 'Cache.put')
    if (!(response instanceof Response)) throw new TypeError(`Cache.put: response must be a Response, got ${describeValue(response)}`)
    if (!isHttpUrl(r.url) || r.method !== 'GET') throw new TypeError(`Cache.put: only GET requests to http or https URLs can be stored, got ${r.method} ${r.url}`)
    if (response.status === 206) throw new TypeError('Cache.put: a 206 (partial content) response cannot be stored')
    if (hasVaryStar(response.headers)) throw new TypeError('Cache.put: a response with Vary: * cannot be stored')
    const hasBody = bodyInternals.source(response) !== null
    if (hasBody && (response.bodyUsed || response.body?.locked === true)) throw new TypeError('Cache.put: the response body is already used or locked')
    const stored = storeRequest(r)
    const body = hasBody ? new Uint8Array(await response.arrayBuffer()) : null
    batchCacheOperations(this.#list, [{ type: 'put', request: stored, response: storeResponse(response, body) }])
  }

  /** Removes what `request` selects; true when something was removed. */
  async delete (request: RequestInfo, options?: CacheQueryOptions): Promise<boolean> {
    requireArguments(arguments.length, 1, 'Cache.delete')
    const flags = toQueryFlags(options, 'Cache.delete')
    const { request: r, isRequestObject } = toQueryInput(request, 'Cache.delete')
    if (isRequestObject && r.method !== 'GET' && !flags.ignoreMethod) return false
    return batchCacheOperations(this.#list, [{ type: 'delete', request: r, flags }]).length > 0
  }

  /** The stored requests `request` selects (all of them without a request), with immutable headers. */
  async keys (request?: RequestInfo, options?: CacheQueryOptions): Promise<readonly Request[]> {
    const flags = toQueryFlags(options, 'Cache.keys')
    return Object.freeze(this.#select(request, flags, 'Cache.keys').map((entry) => replayRequest(entry.request)))
  }

  /** `'Cache'`, as the runtime's classes report themselves to `Object.prototype.toString`. */
  get [Symbol.toStringTag] (): string {
    return 'Cache'
  }
}
