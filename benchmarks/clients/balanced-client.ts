/**
 * One BalancedPool benchmark client process:
 * `node balanced-client.js <conduit|undici> <path> <requests> <concurrency> <origin> <origin> ...`.
 * Builds the library's BalancedPool over the origins, keeps `concurrency` requests in flight,
 * reads each body with 'data' events, and prints `{ reqPerSec, cpuUsPerReq }` as JSON.
 * @module
 */

import { fileURLToPath } from 'node:url'
import { measureInFlight } from './in-flight.js'
import type { Readable } from 'node:stream'
import { BalancedPool as ConduitBalancedPool } from '../../src/index.js'
import { undici } from '../../test/helpers/undici-reference.js'
const { BalancedPool: UndiciBalancedPool } = undici

interface BalancedBenchPool {
  request (opts: { path: string, method: string }): Promise<{ statusCode: number, body: Readable }>
  close (): Promise<void>
}

function open (impl: string, origins: string[]): BalancedBenchPool {
  if (impl === 'conduit') return new ConduitBalancedPool(origins) as unknown as BalancedBenchPool
  if (impl === 'undici') return new UndiciBalancedPool(origins) as unknown as BalancedBenchPool
  throw new TypeError(`unknown client ${impl}`)
}

function one (pool: BalancedBenchPool, path: string): Promise<void> {
  return pool.request({ path, method: 'GET' }).then((res) => new Promise<void>((resolve, reject) => {
    if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`))
    res.body.on('data', () => {})
    res.body.on('end', resolve)
    res.body.on('error', reject)
  }))
}

async function main (): Promise<void> {
  const [impl, path, requests, concurrency, ...origins] = process.argv.slice(2)
  const pool = open(impl!, origins)
  const figures = await measureInFlight(Number(requests), Number(concurrency), 500, () => one(pool, path!))
  await pool.close()
  process.stdout.write(JSON.stringify(figures) + '\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main()
