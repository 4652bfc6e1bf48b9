/**
 * One request to the origin given as the first argument; run with NODE_DEBUG=conduit
 * by the demo to show the debug log lines.
 */

import { Agent } from '../src/index.js'

const agent = new Agent()
const { body } = await agent.request({ origin: process.argv[2]!, path: '/hello', method: 'GET' })
await body.text()
await agent.close()
