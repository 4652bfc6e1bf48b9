/**
 * Shared setup of the cache interceptor tests: a real HTTP server on 127.0.0.1 whose handler
 * each test writes, and an Agent composed with the cache in front of it.
 */

import type { TestContext } from 'node:test'
import type http from 'node:http'
import { Agent, interceptors } from '../../../src/index.js'
import type { Dispatcher } from '../../../src/index.js'
import type { CacheInterceptorOptions } from '../../../interceptors/cache/index.js'
import type { CacheStore } from '../../../src/contracts/cache-store.js'
import { MemoryCacheStore } from '../../../stores/memory-cache-store.js'
import { startHttpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'

/** A response as the tests look at it. */
export interface Fetched {
  status: number
  headers: Record<string, string | string[]>
  body: string
}

/** The server, the composed dispatcher and shortcuts. */
export interface CacheSetup {
  server: TestServer<http.Server>
  store: CacheStore
  dispatcher: Dispatcher
  /** Requests the server has received so far. */
  count: () => number
  /** Sends a request through the cache and reads the whole body. */
  send: (path?: string, opts?: Record<string, unknown>) => Promise<Fetched>
}

/** Starts a server with `handler` and a cache with `options` (a fresh MemoryCacheStore unless given). */
export async function setupCache (t: TestContext, handler: http.RequestListener, options: CacheInterceptorOptions = {}): Promise<CacheSetup> {
  const server = await startHttpServer(handler)
  const store = options.store ?? new MemoryCacheStore()
  const agent = new Agent()
  const dispatcher = agent.compose(interceptors.cache({ ...options, store }))
  t.after(async () => {
    await agent.destroy()
    await server.close()
  })
  const send = async (path = '/', opts: Record<string, unknown> = {}): Promise<Fetched> => {
    const res = await dispatcher.request({ origin: server.origin, path, method: 'GET', ...opts })
    return { status: res.statusCode, headers: res.headers, body: await res.body.text() }
  }
  return { server, store, dispatcher, count: () => server.requests.length, send }
}

/** Freezes `Date` at the current time so tests can move it forward with `t.mock.timers.tick`. */
export function freezeDate (t: TestContext): number {
  const now = Date.now()
  t.mock.timers.enable({ apis: ['Date'], now })
  return now
}

/** Sets the Date header from the (possibly frozen) clock; the server's own Date cache runs on real time. */
export function stamp (res: http.ServerResponse, cacheControl?: string): void {
  res.setHeader('date', new Date().toUTCString())
  if (cacheControl !== undefined) res.setHeader('cache-control', cacheControl)
}

/** Waits, one event-loop turn at a time (bounded), until `condition` holds; for background work. */
export async function until (condition: () => boolean | Promise<boolean>, turns = 2000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (await condition()) return
    await new Promise((resolve) => setImmediate(resolve))
  }
  throw new Error('condition not met')
}
