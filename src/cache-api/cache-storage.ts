/**
 * `CacheStorage` and the `caches` object: the named caches of the Cache API, kept in memory for
 * the life of the process, as undici's are.
 * @module
 */

import { requireArguments, toDOMString } from '../fetch/webidl.js'
import type { RequestInfo } from '../fetch/request.js'
import type { Response } from '../fetch/response.js'
import { CONSTRUCT, illegalConstructor, toQueryFlags } from './arguments.js'
import { Cache } from './cache.js'
import type { MultiCacheQueryOptions } from './entries.js'
import { CacheList } from './cache-list.js'

/**
 * The set of named caches. Each `open()` returns a new Cache object over the same entries.
 * @example
 * const cache = await caches.open('v1')
 * await caches.has('v1') // true
 * await caches.keys() // ['v1']
 */
export class CacheStorage {
  readonly #caches = new Map<string, CacheList>()

  /** Not for direct use: the one instance is `caches` (anything else throws a TypeError). */
  constructor (token: never) {
    if ((token as unknown) !== CONSTRUCT) throw illegalConstructor('CacheStorage')
  }

  /** The first response any cache (or only `options.cacheName`) holds for `request`, in cache creation order. */
  async match (request: RequestInfo, options?: MultiCacheQueryOptions): Promise<Response | undefined> {
    requireArguments(arguments.length, 1, 'CacheStorage.match')
    toQueryFlags(options, 'CacheStorage.match')
    const rawName = (options as { cacheName?: unknown } | null | undefined)?.cacheName
    if (rawName !== undefined) {
      const list = this.#caches.get(toDOMString(rawName, 'CacheStorage.match: options.cacheName'))
      return list === undefined ? undefined : await new Cache(CONSTRUCT as never, list as never).match(request, options)
    }
    for (const list of this.#caches.values()) {
      const response = await new Cache(CONSTRUCT as never, list as never).match(request, options)
      if (response !== undefined) return response
    }
    return undefined
  }

  /** True when a cache named `cacheName` exists. */
  async has (cacheName: string): Promise<boolean> {
    requireArguments(arguments.length, 1, 'CacheStorage.has')
    return this.#caches.has(toDOMString(cacheName, 'CacheStorage.has'))
  }

  /** The cache named `cacheName`, created empty when it does not exist. */
  async open (cacheName: string): Promise<Cache> {
    requireArguments(arguments.length, 1, 'CacheStorage.open')
    const name = toDOMString(cacheName, 'CacheStorage.open')
    let list = this.#caches.get(name)
    if (list === undefined) {
      list = new CacheList()
      this.#caches.set(name, list)
    }
    return new Cache(CONSTRUCT as never, list as never)
  }

  /** Removes the cache named `cacheName`; true when it existed. Cache objects already open keep their entries. */
  async delete (cacheName: string): Promise<boolean> {
    requireArguments(arguments.length, 1, 'CacheStorage.delete')
    return this.#caches.delete(toDOMString(cacheName, 'CacheStorage.delete'))
  }

  /** The names of the caches, in creation order. */
  async keys (): Promise<string[]> {
    return [...this.#caches.keys()]
  }

  /** `'CacheStorage'`, as the runtime's classes report themselves to `Object.prototype.toString`. */
  get [Symbol.toStringTag] (): string {
    return 'CacheStorage'
  }
}

/**
 * The process-wide {@link CacheStorage}, as undici exports it: `caches.open(name)` gives a
 * {@link Cache} whose `add`/`addAll` fetch through conduit's fetch.
 * @example
 * import { caches, Response } from 'conduit'
 * const cache = await caches.open('pages')
 * await cache.put('http://127.0.0.1:3000/', new Response('home'))
 */
export const caches: CacheStorage = new CacheStorage(CONSTRUCT as never)
