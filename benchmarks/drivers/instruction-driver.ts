/**
 * A bounded, self-contained client run for instruction counting (`valgrind --tool=callgrind`)
 * rather than timing: one Agent, one scenario, a fixed number of requests with 50 in flight over
 * 50 connections against an origin already running (`server.js`), then exit. The round is framed
 * as a benchmark round is (a young-generation collection before and after), so warm-up and the
 * garbage the round made count. Comparing a run of 0 requests with one of N gives the instructions of N
 * requests, warm-up included; comparing two non-zero runs gives the steady state. With
 * `BENCH_OTEL=1` the OpenTelemetry instrumentation is registered first, as in `--otel` runs.
 * With a `warmup` count it first runs that many requests, then says `ready` on stdout and waits
 * for a line on stdin before the counted round, and says `done` after it (and waits for stdin to
 * end): `instruction-steady.ts` counts only between the two, leaving compilation out.
 *
 * Usage: node instruction-driver.js <conduit|undici> <mode> <scenario> <requests> <origin> [warmup]
 * @module
 */

import '../clients/tracing.js'
import { agentClient, CLIENT_MODES } from '../clients/agent-client.js'
import type { BenchFetch, BenchLibrary, ClientMode } from '../clients/agent-client.js'
import { collectYoungGarbage, runRound } from '../clients/measure.js'
import { scenarioByName } from '../transport-scenarios.js'
import { awaitParentLine, tellParent } from '../clients/parent-handshake.js'

const CONNECTIONS = 50

async function load (library: string): Promise<BenchLibrary> {
  const lib = library === 'undici'
    ? await import('../../test/helpers/undici-reference.js') as unknown as typeof import('../../src/index.js')
    : library === 'conduit' ? await import('../../src/index.js') : null
  if (lib === null) throw new TypeError(`unknown library ${JSON.stringify(library)}; known: conduit, undici`)
  // Under valgrind on a busy machine a connection can take seconds: no connect timeout may cut the run short.
  const agent = new lib.Agent({ connections: CONNECTIONS, connectTimeout: 300_000 })
  const fetch: BenchFetch = (url, init) => lib.fetch(url, { ...init, dispatcher: agent })
  return { agent, cached: agent, composed: agent, fetch } as unknown as BenchLibrary
}

const [library = 'conduit', mode = 'request', scenarioName = 'small', requests = '3000', origin = '', warmupArg = '0'] = process.argv.slice(2)
if (!(CLIENT_MODES as readonly string[]).includes(mode)) throw new TypeError(`unknown client mode ${JSON.stringify(mode)}; known: ${CLIENT_MODES.join(', ')}`)
const total = Number(requests)
if (!Number.isInteger(total) || total < 0 || total > 100_000) throw new TypeError(`requests must be an integer from 0 to 100000, got ${requests}`)
const warmup = Number(warmupArg)
if (!Number.isInteger(warmup) || warmup < 0 || warmup > 100_000) throw new TypeError(`warmup must be an integer from 0 to 100000, got ${warmupArg}`)
const scenario = scenarioByName(scenarioName)
const lib = await load(library)
const client = agentClient(lib, { mode: mode as ClientMode, memory: false, origin, connections: CONNECTIONS })
const handshake = warmup > 0
if (warmup > 0) await runRound(client, scenario, warmup, Math.min(CONNECTIONS, warmup))
collectYoungGarbage()
if (handshake) {
  tellParent('ready')
  awaitParentLine()
}
if (total > 0) await runRound(client, scenario, total, Math.min(CONNECTIONS, total))
collectYoungGarbage()
if (handshake) {
  tellParent('done')
  awaitParentLine()
}
await client.close()
