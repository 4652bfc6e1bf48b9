/**
 * Benchmark client process for undici (the reference peer): `Agent#request` (body read as a
 * stream), `Agent#dispatch` with the same handler the conduit client uses, or `request` through
 * undici's redirect and decompress interceptors (`composed`).
 *
 * Usage (started by the transport runner): node undici.js <request|dispatch|composed> <origin|memory> <connections>
 * @module
 */

import { Agent, interceptors } from 'undici'
import { memoryConnector } from './memory-socket.js'
import { serveRounds } from './measure.js'
import { COMPOSED_MAX_REDIRECTIONS, agentClient, readAgentClientArgs } from './agent-client.js'
import type { BenchAgent } from './agent-client.js'

const args = readAgentClientArgs()
const agent = new Agent({ connections: args.connections, connect: args.memory ? memoryConnector as never : undefined })
const dispatcher = args.mode === 'composed'
  ? agent.compose(interceptors.redirect({ maxRedirections: COMPOSED_MAX_REDIRECTIONS }), interceptors.decompress())
  : agent

serveRounds(agentClient(dispatcher as unknown as BenchAgent, args))
