/**
 * Benchmark client process for conduit: `Agent#request` (body read as a stream) or
 * `Agent#dispatch` with a plain handler.
 *
 * Usage (started by the transport runner): node conduit.js <request|dispatch> <origin|memory> <connections>
 * @module
 */

import { Agent } from '../../src/dispatcher/agent.js'
import { memoryConnector } from './memory-socket.js'
import { serveRounds } from './measure.js'
import { agentClient, readAgentClientArgs } from './agent-client.js'

const args = readAgentClientArgs()
const agent = new Agent({ connections: args.connections, connect: args.memory ? memoryConnector : undefined })

serveRounds(agentClient(agent, args))
