/**
 * Benchmark client process for undici (the reference peer): `Agent#request` (body read as a
 * stream) or `Agent#dispatch` with the same handler the conduit client uses.
 *
 * Usage (started by the transport runner): node undici.js <request|dispatch> <origin|memory> <connections>
 * @module
 */

import { Agent } from 'undici'
import type { Dispatcher } from 'undici'
import { DispatchSink } from './dispatch-sink.js'
import { MEMORY_ORIGIN, memoryConnector } from './memory-socket.js'
import { drainBody, serveRounds } from './measure.js'
import type { BenchClient } from './measure.js'
import type { Scenario } from '../transport-scenarios.js'

const [mode, target, connections] = process.argv.slice(2)
// `memory` replaces the server with in-memory sockets: only the library's own work is measured.
const memory = target === 'memory'
const origin = memory ? MEMORY_ORIGIN : target
const agent = new Agent({ connections: Number(connections), connect: memory ? memoryConnector as never : undefined })
let payload: Buffer | null = null

function options (scenario: Scenario): Dispatcher.DispatchOptions {
  if (scenario.requestBytes === 0) return { origin: origin!, path: scenario.path, method: scenario.method }
  if (payload?.length !== scenario.requestBytes) payload = Buffer.alloc(scenario.requestBytes, 'u')
  return { origin: origin!, path: scenario.path, method: scenario.method, body: payload }
}

const client: BenchClient = mode === 'dispatch'
  ? {
      send: (scenario, done) => { agent.dispatch(options(scenario), new DispatchSink(done) as unknown as Dispatcher.DispatchHandler) },
      close: () => agent.close()
    }
  : {
      send: (scenario, done) => {
        agent.request(options(scenario)).then((res) => {
          if (res.statusCode !== 200) done(new Error(`unexpected status ${res.statusCode}`), 0)
          drainBody(res.body, done)
        }, (err: Error) => done(err, 0))
      },
      close: () => agent.close()
    }

serveRounds(client)
