/**
 * One resilience benchmark client process:
 * `node resilience-client.js <variant> <path> <requests> <concurrency> <origin>`.
 * Builds an Agent composed with the variant's interceptor (`RESILIENCE_VARIANTS`), set so that it
 * lets every request through, keeps `concurrency` requests in flight with `request()`, reads each
 * body with 'data' events, and prints `{ reqPerSec, cpuUsPerReq }` as JSON.
 * @module
 */

import { fileURLToPath } from 'node:url'
import { measureInFlight } from './in-flight.js'
import { Agent, interceptors } from '../../src/index.js'
import type { Dispatcher } from '../../src/index.js'

/** What each variant puts in front of the Agent; `plain` and `plain-again` put nothing (the noise band). */
export const RESILIENCE_VARIANTS: Readonly<Record<string, () => Dispatcher.DispatcherComposeInterceptor[]>> = {
  plain: () => [],
  'plain-again': () => [],
  deadline: () => [interceptors.deadline({ timeoutMs: 60_000 })],
  circuitBreaker: () => [interceptors.circuitBreaker({ consecutiveFailures: 5 })],
  // A bucket far above the benchmark's rate: every request takes a token and a slot, none waits.
  rateLimit: () => [interceptors.rateLimit({ rate: 10_000_000, burst: 10_000_000, maxConcurrent: 10_000 })],
  'retry+budget': () => [interceptors.retry({ maxRetries: 2, budget: { ratio: 0.1, minRetries: 5, windowMs: 10_000 } })],
  // A delay no answer here comes near: the timer is armed and cleared on every request.
  hedge: () => [interceptors.hedge({ delayMs: 10_000 })],
  // The order of docs/resilience.md, innermost first.
  all: () => [
    interceptors.circuitBreaker({ consecutiveFailures: 5 }),
    interceptors.rateLimit({ rate: 10_000_000, burst: 10_000_000, maxConcurrent: 10_000 }),
    interceptors.hedge({ delayMs: 10_000 }),
    interceptors.retry({ maxRetries: 2, budget: { ratio: 0.1, minRetries: 5, windowMs: 10_000 } }),
    interceptors.deadline({ timeoutMs: 60_000 })
  ]
}

function one (dispatcher: Dispatcher, origin: string, path: string): Promise<void> {
  return dispatcher.request({ origin, path, method: 'GET' }).then((res) => new Promise<void>((resolve, reject) => {
    if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`))
    res.body.on('data', () => {})
    res.body.on('end', resolve)
    res.body.on('error', reject)
  }))
}

async function main (): Promise<void> {
  const [variant = '', path = '', requests, concurrency, origin = ''] = process.argv.slice(2)
  const build = RESILIENCE_VARIANTS[variant]
  if (build === undefined) throw new TypeError(`unknown variant ${JSON.stringify(variant)}; known: ${Object.keys(RESILIENCE_VARIANTS).join(', ')}`)
  const agent = new Agent()
  const dispatcher = agent.compose(...build())
  const figures = await measureInFlight(Number(requests), Number(concurrency), 2000, () => one(dispatcher, origin, path))
  await agent.close()
  process.stdout.write(JSON.stringify(figures) + '\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main()
