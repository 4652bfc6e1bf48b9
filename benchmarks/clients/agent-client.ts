/**
 * What the conduit and undici client processes share. Both libraries' Agents have the same
 * `dispatch`/`request` shape, so the process arguments, the request options of a scenario and
 * both measured modes are defined once here, and the two are measured doing exactly the same.
 * @module
 */

import type { Readable } from 'node:stream'
import { DispatchSink } from './dispatch-sink.js'
import { MEMORY_ORIGIN } from './memory-socket.js'
import { drainBody } from './measure.js'
import type { BenchClient } from './measure.js'
import type { Scenario } from '../transport-scenarios.js'

/** The arguments the transport runner starts an agent client with. */
export interface AgentClientArgs {
  /**
   * `request` (`Agent#request`, body read as a stream), `dispatch` (a plain handler), or
   * `composed` (`request` through the library's redirect and decompress interceptors).
   */
  mode: string
  /** In-memory sockets instead of the server: only the library's own work is measured. */
  memory: boolean
  origin: string
  connections: number
}

/** Reads `<request|dispatch> <origin|memory> <connections>` from the command line. */
export function readAgentClientArgs (argv: readonly string[] = process.argv.slice(2)): AgentClientArgs {
  const [mode, target, connections] = argv
  const memory = target === 'memory'
  return { mode: mode ?? 'request', memory, origin: memory ? MEMORY_ORIGIN : target!, connections: Number(connections) }
}

/**
 * The request options of one scenario request (a type alias, not an interface, so that it fits
 * dispatch option types with an index signature).
 */
export type BenchRequestOptions = {
  origin: string
  path: string
  method: string
  body?: Buffer
}

/**
 * Redirects followed by the `composed` clients: enough that the redirect handler is on the path
 * of every request (undici's passes requests through untouched without a limit).
 */
export const COMPOSED_MAX_REDIRECTIONS = 3

/** The parts of an Agent the benchmark drives. */
export interface BenchAgent {
  dispatch (opts: BenchRequestOptions, handler: DispatchSink): boolean
  request (opts: BenchRequestOptions): Promise<{ statusCode: number, body: Readable }>
  close (): Promise<void>
}

/** The round loop's client for `agent`, in the mode the runner asked for. */
export function agentClient (agent: BenchAgent, args: AgentClientArgs): BenchClient {
  const origin = args.origin
  // One request body per size, reused: allocating it would be measured as the library's work.
  let payload: Buffer | null = null
  const options = (scenario: Scenario): BenchRequestOptions => {
    if (scenario.requestBytes === 0) return { origin, path: scenario.path, method: scenario.method }
    if (payload?.length !== scenario.requestBytes) payload = Buffer.alloc(scenario.requestBytes, 'u')
    return { origin, path: scenario.path, method: scenario.method, body: payload }
  }
  if (args.mode === 'dispatch') {
    return {
      send: (scenario, done) => { agent.dispatch(options(scenario), new DispatchSink(done)) },
      close: () => agent.close()
    }
  }
  return {
    send: (scenario, done) => {
      agent.request(options(scenario)).then((res) => {
        if (res.statusCode !== 200) done(new Error(`unexpected status ${res.statusCode}`), 0)
        drainBody(res.body, done)
      }, (err: Error) => done(err, 0))
    },
    close: () => agent.close()
  }
}
