/**
 * Benchmark client process for node:http with a keep-alive agent holding as many sockets as the
 * other clients open connections.
 *
 * Usage (started by the transport runner): node node-http.js request <origin> <connections>
 * @module
 */

import http from 'node:http'
import { drainBody, serveRounds } from './measure.js'
import type { BenchClient } from './measure.js'
import type { Scenario } from '../transport-scenarios.js'

const [, origin, connections] = process.argv.slice(2)
const url = new URL(origin!)
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(connections), maxFreeSockets: Number(connections) })
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
