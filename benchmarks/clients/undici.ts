/**
 * Benchmark client process for undici (the reference peer): `Agent#request` (body read as a
 * stream) or `Agent#dispatch` with the same handler the conduit client uses.
 *
 * Usage (started by the transport runner): node undici.js <request|dispatch> <origin|memory> <connections>
 * @module
 */

import { Agent } from 'undici'
import { memoryConnector } from './memory-socket.js'
import { serveRounds } from './measure.js'
import { agentClient, readAgentClientArgs } from './agent-client.js'

const args = readAgentClientArgs()
const agent = new Agent({ connections: args.connections, connect: args.memory ? memoryConnector as never : undefined })

serveRounds(agentClient(agent, args))
