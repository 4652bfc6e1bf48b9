/**
 * Child process of the cookie flood test: a subdomain (`evil.shop.test`) answers 20 requests
 * with 1,000 `Set-Cookie: ...; Domain=shop.test` each, then a sibling (`www.shop.test`) reports
 * the Cookie header it receives. Prints a JSON report with the process's resident memory.
 * Usage: node cookie-flood-child.js
 */

import type { LookupFunction } from 'node:net'
import { Agent, interceptors } from '../../../src/index.js'
import { startHttpServer } from '../../helpers/servers.js'

const ROUNDS = 20
const PER_RESPONSE = 1000

const loopback: LookupFunction = (_host, options, callback) => {
  if ((options as { all?: boolean }).all === true) (callback as unknown as (err: null, all: Array<{ address: string, family: number }>) => void)(null, [{ address: '127.0.0.1', family: 4 }])
  else callback(null, '127.0.0.1', 4)
}

const server = await startHttpServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x')
  if (url.pathname === '/flood') {
    const round = url.searchParams.get('round')
    const cookies = Array.from({ length: PER_RESPONSE }, (_, i) => `r${round}c${i}=${'v'.repeat(40)}; Domain=shop.test; Path=/`)
    res.writeHead(200, { 'set-cookie': cookies }).end('flooded')
    return
  }
  const header = req.headers.cookie ?? ''
  res.end(JSON.stringify({ bytes: Buffer.byteLength(header), count: header === '' ? 0 : header.split('; ').length }))
})
// The flood's heads are about 60 KiB each: a client that accepts them is what the attack needs.
const agent = new Agent({ connect: { lookup: loopback }, maxHeaderSize: 1024 * 1024 })
const client = agent.compose(interceptors.cookies())
for (let round = 0; round < ROUNDS; round++) {
  const { body } = await client.request({ origin: `http://evil.shop.test:${server.port}`, path: `/flood?round=${round}`, method: 'GET' })
  await body.text()
}
const { body } = await client.request({ origin: `http://www.shop.test:${server.port}`, path: '/echo', method: 'GET' })
const seen = JSON.parse(await body.text()) as { bytes: number, count: number }
const rssMb = process.memoryUsage().rss / (1024 * 1024)
await agent.close()
await server.close()
process.stdout.write(JSON.stringify({ ...seen, rssMb }))
