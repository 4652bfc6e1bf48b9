/**
 * What a cache hit saves: sequential GETs of a small cacheable response over loopback, answered
 * by the origin (a miss: the cache steps aside with `cacheMode: 'no-store'`) or by the cache (a
 * hit), for conduit's cache interceptor and, in the same run, undici's. Prints requests per
 * second, microseconds per request and the ratios. Rounds alternate between clients so load
 * elsewhere on the machine hits every client alike; figures are medians of the rounds.
 *
 * Runs on its own: `node dist/benchmarks/cache-interceptor.js [requests] [rounds]`.
 * @module
 */

import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { Agent as UndiciAgent, interceptors as undiciInterceptors, cacheStores as undiciStores } from '../test/helpers/undici-reference.js'
import { Agent, interceptors } from '../src/index.js'
import type { Dispatcher } from '../src/index.js'
import { MemoryCacheStore } from '../stores/memory-cache-store.js'
import { median } from './report/stats.js'

const BODY = JSON.stringify({ id: 1, name: 'cached', tags: ['a', 'b', 'c'], text: 'x'.repeat(200) })

/** One measured client: sends one request and reads its body. */
interface Client {
  name: string
  send: () => Promise<void>
}

async function startOrigin (): Promise<{ origin: string, close: () => Promise<void> }> {
  const server = http.createServer({ keepAliveTimeout: 60_000 }, (_req, res) => {
    res.setHeader('cache-control', 'public, max-age=3600')
    res.setHeader('content-type', 'application/json')
    res.end(BODY)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { origin, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }) }
}

function conduitClient (name: string, dispatcher: Dispatcher, origin: string, extra: Record<string, unknown>): Client {
  return {
    name,
    send: async () => {
      const res = await dispatcher.request({ origin, path: '/item', method: 'GET', ...extra })
      await res.body.text()
    }
  }
}

function undiciClient (name: string, dispatcher: InstanceType<typeof UndiciAgent> | ReturnType<InstanceType<typeof UndiciAgent>['compose']>, origin: string, headers: Record<string, string>): Client {
  return {
    name,
    send: async () => {
      const res = await dispatcher.request({ origin, path: '/item', method: 'GET', headers })
      await res.body.text()
    }
  }
}

/** Runs the comparison and returns one line per client plus the ratios. */
export async function runCacheInterceptorBenchmark (requests = 5000, rounds = 5): Promise<string> {
  const server = await startOrigin()
  const conduitAgent = new Agent()
  const conduitCached = conduitAgent.compose(interceptors.cache({ store: new MemoryCacheStore() }))
  const undiciAgent = new UndiciAgent()
  const undiciCached = undiciAgent.compose(undiciInterceptors.cache({ store: new undiciStores.MemoryCacheStore() }))
  const clients: Client[] = [
    conduitClient('conduit network round trip', conduitCached, server.origin, { cacheMode: 'no-store' }),
    conduitClient('conduit cache hit', conduitCached, server.origin, {}),
    // undici's interceptor bypasses its cache for a request that says no-store.
    undiciClient('undici network round trip', undiciCached, server.origin, { 'cache-control': 'no-store' }),
    undiciClient('undici cache hit', undiciCached, server.origin, {})
  ]
  const micros = new Map<string, number[]>(clients.map((c) => [c.name, []]))
  try {
    for (const client of clients) for (let i = 0; i < 200; i++) await client.send()
    for (let round = 0; round < rounds; round++) {
      const order = clients.map((_, i) => clients[(i + round) % clients.length])
      for (const client of order) {
        const start = process.hrtime.bigint()
        for (let i = 0; i < requests; i++) await client.send()
        const elapsed = Number(process.hrtime.bigint() - start) / 1000
        micros.get(client.name)!.push(elapsed / requests)
      }
    }
  } finally {
    await conduitAgent.close()
    await undiciAgent.close()
    await server.close()
  }
  const m = (name: string): number => median(micros.get(name)!)
  const lines = [`cache interceptor: ${requests} sequential GETs per round, ${rounds} rounds, ${BODY.length}-byte body, medians`]
  for (const client of clients) {
    const us = m(client.name)
    lines.push(`  ${client.name.padEnd(28)} ${us.toFixed(1).padStart(8)} µs/req ${Math.round(1e6 / us).toString().padStart(8)} req/s`)
  }
  lines.push(`  conduit: a hit takes ${(m('conduit cache hit') / m('conduit network round trip')).toFixed(3)}x the time of a network round trip`)
  lines.push(`  undici:  a hit takes ${(m('undici cache hit') / m('undici network round trip')).toFixed(3)}x the time of a network round trip`)
  lines.push(`  conduit hit vs undici hit: ${(m('undici cache hit') / m('conduit cache hit')).toFixed(2)}x the speed`)
  return lines.join('\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const requests = process.argv[2] === undefined ? 5000 : Number(process.argv[2])
  const rounds = process.argv[3] === undefined ? 5 : Number(process.argv[3])
  if (!Number.isInteger(requests) || requests < 1) throw new Error(`requests must be a positive integer, got ${process.argv[2]}`)
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`rounds must be a positive integer, got ${process.argv[3]}`)
  console.log(await runCacheInterceptorBenchmark(requests, rounds))
}
