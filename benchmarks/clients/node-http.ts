/**
 * Benchmark client process for node:http with a keep-alive agent holding as many sockets as the
 * other clients open connections.
 *
 * Usage (started by the transport runner): node node-http.js request <origin|memory> <connections>
 * @module
 */

import http from 'node:http'
import { drainBody, serveRounds } from './measure.js'
import { MEMORY_ORIGIN, MemorySocket } from '../origins/memory-socket.js'
import type { BenchClient } from './measure.js'
import type { Scenario } from '../transport-scenarios.js'

const [, target, connections] = process.argv.slice(2)
// `memory` replaces the server with in-memory sockets: only the library's own work is measured.
const memory = target === 'memory'
const url = new URL(memory ? MEMORY_ORIGIN : target!)
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(connections), maxFreeSockets: Number(connections) })
if (memory) (agent as unknown as { createConnection: () => MemorySocket }).createConnection = () => new MemorySocket()
let payload: Buffer | null = null

const client: BenchClient = {
  send: (scenario: Scenario, done) => {
    const headers: http.OutgoingHttpHeaders = {}
    if (scenario.requestBytes > 0) {
      if (payload?.length !== scenario.requestBytes) payload = Buffer.alloc(scenario.requestBytes, 'u')
      headers['content-length'] = payload.length
    }
    const req = http.request({ agent, hostname: url.hostname, port: url.port, path: scenario.path, method: scenario.method, headers }, (res) => {
      if (res.statusCode !== 200) done(new Error(`unexpected status ${String(res.statusCode)}`), 0)
      drainBody(res, done)
    })
    req.on('error', (err) => done(err, 0))
    req.end(scenario.requestBytes > 0 ? payload : undefined)
  },
  close: async () => { agent.destroy() }
}

serveRounds(client)
