/**
 * Benchmark client process for conduit: `Agent#request` (body read as a stream),
 * `Agent#dispatch` with a plain handler, or `request` through the redirect and decompress
 * interceptors (`composed`).
 *
 * Usage (started by the transport runner): node conduit.js <request|dispatch|composed> <origin|memory> <connections>
 * @module
 */

import { Agent } from '../../src/dispatcher/agent.js'
import { decompress, redirect } from '../../interceptors/index.js'
import { memoryConnector } from './memory-socket.js'
import { serveRounds } from './measure.js'
import { COMPOSED_MAX_REDIRECTIONS, agentClient, readAgentClientArgs } from './agent-client.js'
import type { BenchAgent } from './agent-client.js'

const args = readAgentClientArgs()
const agent = new Agent({ connections: args.connections, connect: args.memory ? memoryConnector : undefined })
const dispatcher = args.mode === 'composed' ? agent.compose(redirect({ maxRedirections: COMPOSED_MAX_REDIRECTIONS }), decompress()) : agent

serveRounds(agentClient(dispatcher as unknown as BenchAgent, args))
