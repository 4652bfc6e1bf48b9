/**
 * One measured client run of the fetch benchmark, in a fresh process per run so the JIT state
 * of one implementation does not help or hurt another. Prints one JSON line of results.
 *
 * Usage: node fetch-client.js <impl> <origin> <requests> <concurrency>
 *   impl: conduit | undici | global
 */

import { Agent as UndiciAgent, fetch as undiciFetch } from '../../test/helpers/undici-reference.js'
import { Agent } from '../../src/dispatcher/agent.js'
import { fetch as conduitFetch } from '../../src/fetch/fetch.js'

type FetchFn = (url: string) => Promise<{ json (): Promise<unknown>, status: number }>

async function main (): Promise<void> {
  const [impl, origin, requestsArg, concurrencyArg] = process.argv.slice(2)
  const requests = Number(requestsArg)
  const concurrency = Number(concurrencyArg)
  let run: FetchFn
  let close: () => Promise<void>
  if (impl === 'conduit') {
    const agent = new Agent({ connections: concurrency })
    run = (url) => conduitFetch(url, { dispatcher: agent })
    close = () => agent.close()
  } else if (impl === 'undici') {
    const agent = new UndiciAgent({ connections: concurrency })
    run = (url) => undiciFetch(url, { dispatcher: agent }) as never
    close = () => agent.close()
  } else if (impl === 'global') {
    run = (url) => globalThis.fetch(url) as never
    close = async () => {}
  } else {
    throw new TypeError(`fetch-client: unknown implementation ${String(impl)}`)
  }
  const url = `${origin}/small`
  const once = async (): Promise<void> => {
    const response = await run(url)
    if (response.status !== 200) throw new Error(`unexpected status ${response.status}`)
    await response.json()
  }
  // Warm-up: connections opened and code paths compiled before measuring.
  const warm = Math.min(2000, Math.floor(requests / 5))
  await worker(once, warm, concurrency)
  const cpuStart = process.cpuUsage()
  const start = process.hrtime.bigint()
  await worker(once, requests, concurrency)
  const elapsedNs = Number(process.hrtime.bigint() - start)
  const cpu = process.cpuUsage(cpuStart)
  await close()
  process.stdout.write(JSON.stringify({
    impl,
    requests,
    reqPerSec: requests / (elapsedNs / 1e9),
    cpuUsPerReq: (cpu.user + cpu.system) / requests
  }) + '\n')
}

async function worker (once: () => Promise<void>, total: number, concurrency: number): Promise<void> {
  let started = 0
  const lane = async (): Promise<void> => {
    while (started < total) {
      started++
      await once()
    }
  }
  await Promise.all(Array.from({ length: concurrency }, lane))
}

main().catch((err) => {
  process.stderr.write(`${String(err?.stack ?? err)}\n`)
  process.exit(1)
})
