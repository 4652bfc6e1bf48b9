/**
 * Child process for the debug-log test: runs a miss, a hit and an unstorable response through
 * the cache so the parent can read the `conduit:cache` lines on stderr.
 */

import { Agent, interceptors } from '../../../src/index.js'
import { startHttpServer } from '../../helpers/servers.js'

const server = await startHttpServer((req, res) => {
  res.setHeader('cache-control', req.url === '/private' ? 'private, max-age=60' : 'max-age=60')
  res.end('x')
})
const agent = new Agent().compose(interceptors.cache())
for (const path of ['/logged', '/logged', '/private']) {
  const res = await agent.request({ origin: server.origin, path, method: 'GET' })
  await res.body.dump()
}
await agent.close()
await server.close()
