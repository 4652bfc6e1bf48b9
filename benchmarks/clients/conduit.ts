/**
 * Benchmark client process for conduit: `Agent#request` (body read as a stream) or
 * `Agent#dispatch` with a plain handler.
 *
 * Usage (started by the transport runner): node conduit.js <request|dispatch> <origin|memory> <connections>
 * @module
 */

import { Agent } from '../../src/dispatcher/agent.js'
import { DispatchSink } from './dispatch-sink.js'
import { MEMORY_ORIGIN, memoryConnector } from './memory-socket.js'
import { drainBody, serveRounds } from './measure.js'
import type { BenchClient } from './measure.js'
import type { Scenario } from '../transport-scenarios.js'

const [mode, target, connections] = process.argv.slice(2)
// `memory` replaces the server with in-memory sockets: only the library's own work is measured.
const memory = target === 'memory'
const origin = memory ? MEMORY_ORIGIN : target
const agent = new Agent({ connections: Number(connections), connect: memory ? memoryConnector : undefined })
let payload: Buffer | null = null

function options (scenario: Scenario): { origin: string, path: string, method: string, body?: Buffer } {
  if (scenario.requestBytes === 0) return { origin: origin!, path: scenario.path, method: scenario.method }
  if (payload?.length !== scenario.requestBytes) payload = Buffer.alloc(scenario.requestBytes, 'u')
  return { origin: origin!, path: scenario.path, method: scenario.method, body: payload }
}

const client: BenchClient = mode === 'dispatch'
  ? {
      send: (scenario, done) => { agent.dispatch(options(scenario), new DispatchSink(done)) },
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
