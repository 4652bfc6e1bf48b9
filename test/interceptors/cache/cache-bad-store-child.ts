/** Child process for the debug-log test: one request through a cache whose store returns a bad ETag. */

import { Agent, interceptors } from '../../../src/index.js'
import { startHttpServer } from '../../helpers/servers.js'
import { BAD_ENTRIES, CorruptedStore } from './cache-bad-store-values.js'

const server = await startHttpServer((_req, res) => res.end('fresh'))
const agent = new Agent().compose(interceptors.cache({ store: new CorruptedStore(BAD_ENTRIES[0]![1]) }))
const res = await agent.request({ origin: server.origin, path: '/page', method: 'GET' })
await res.body.dump()
await agent.close()
await server.close()
