/**
 * Benchmark client process for undici (the reference peer): the same modes as the conduit
 * client, through undici's Agent, cache interceptor and fetch.
 *
 * Usage (started by the transport runner): node undici.js <mode> <origin|memory> <connections>
 * @module
 */

import './tracing.js'
import { Agent, cacheStores, fetch, interceptors } from '../../test/helpers/undici-reference.js'
import { memoryConnector } from '../origins/memory-socket.js'
import { serveRounds } from './measure.js'
import { COMPOSED_MAX_REDIRECTIONS, agentClient, readAgentClientArgs } from './agent-client.js'
import type { BenchFetch, BenchRequester } from './agent-client.js'

const args = readAgentClientArgs()
const agent = new Agent({ connections: args.connections, connect: args.memory ? memoryConnector as never : undefined })
const cached = agent.compose(interceptors.cache({ store: new cacheStores.MemoryCacheStore() })) as unknown as BenchRequester
const composed = agent.compose(interceptors.redirect({ maxRedirections: COMPOSED_MAX_REDIRECTIONS }), interceptors.decompress()) as unknown as BenchRequester
const undiciFetch: BenchFetch = (url, init) => fetch(url, { ...init, dispatcher: agent })

serveRounds(agentClient({ agent, cached, composed, fetch: undiciFetch }, args))
