/**
 * Benchmark client process for conduit: `request()` (body read with 'data' events or with
 * `for await`), `dispatch()` with a plain handler, `fetch()`, or `request()` through the
 * redirect and decompress interceptors (`composed`).
 *
 * Usage (started by the transport runner): node conduit.js <mode> <origin|memory> <connections>
 * @module
 */

import './tracing.js'
import { Agent, cacheStores, fetch, interceptors } from '../../src/index.js'
import { memoryConnector } from '../origins/memory-socket.js'
import { serveRounds } from './measure.js'
import { COMPOSED_MAX_REDIRECTIONS, agentClient, readAgentClientArgs } from './agent-client.js'

const args = readAgentClientArgs()
const agent = new Agent({ connections: args.connections, connect: args.memory ? memoryConnector : undefined })
const cached = agent.compose(interceptors.cache({ store: new cacheStores.MemoryCacheStore() }))
const composed = agent.compose(interceptors.redirect({ maxRedirections: COMPOSED_MAX_REDIRECTIONS }), interceptors.decompress())

serveRounds(agentClient({ agent, cached, composed, fetch: (url, init) => fetch(url, { ...init, dispatcher: agent }) }, args))
