/**
 * A bounded driver for counting a client's instructions under `valgrind --tool=callgrind`
 * (the load-independent way to compare libraries on a busy machine): one process sends a fixed
 * number of GET 1 KiB requests, 50 in flight, through conduit or undici, in one of the transport
 * benchmark's modes, and exits. With `BENCH_OTEL=1` the OpenTelemetry instrumentation is
 * registered first, as in `--otel` runs. Run it twice with two request counts and divide the
 * difference in instructions by the difference in requests: start-up and compilation cancel out.
 *
 * Usage: node count-driver.js <conduit|undici> <mode> <origin> <requests>
 * (the origin: `node dist/benchmarks/server.js` prints its port)
 * @module
 */

import './tracing.js'
import { agentClient, readAgentClientArgs } from './agent-client.js'
import type { BenchLibrary } from './agent-client.js'
import { runRound } from './measure.js'
import { scenarioByName } from '../transport-scenarios.js'

const [library = '', mode = 'request', origin = '', count = '1000'] = process.argv.slice(2)
const requests = Number(count)
if (!Number.isSafeInteger(requests) || requests < 1 || requests > 100_000) throw new TypeError(`requests must be 1 to 100000, got ${JSON.stringify(count)}`)
const scenario = scenarioByName('small')
const CONNECT_TIMEOUT_MS = 300_000
const args = readAgentClientArgs([mode, origin, String(scenario.concurrency)])

async function load (name: string): Promise<BenchLibrary> {
  const lib = name === 'conduit'
    ? await import('../../src/index.js')
    : name === 'undici' ? await import('../../test/helpers/undici-reference.js') : null
  if (lib === null) throw new TypeError(`library must be conduit or undici, got ${JSON.stringify(name)}`)
  // Under valgrind everything runs tens of times slower: the default connect timeout would fire.
  const agent = new lib.Agent({ connections: args.connections, connect: { timeout: CONNECT_TIMEOUT_MS } }) as unknown as BenchLibrary['agent']
  const fetch: BenchLibrary['fetch'] = (url, init) => (lib.fetch as (u: string, i: object) => ReturnType<BenchLibrary['fetch']>)(url, { ...init, dispatcher: agent })
  return { agent, cached: agent, composed: agent, fetch }
}

const client = agentClient(await load(library), args)
await runRound(client, scenario, requests, scenario.concurrency)
await client.close()
