import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import http2 from 'node:http2'
import type net from 'node:net'
import type { AddressInfo } from 'node:net'
import { Agent, Client } from '../../src/index.js'
import { startTcpServer } from '../helpers/servers.js'
import type { TestServer } from '../helpers/servers.js'
import { caCrt, serverCrt, serverKey } from '../helpers/certs.js'
import { describeGrowth, growth, takeCensus } from './heap-census.js'

// Guards for the scale benchmark's figures that are counts, not times: the objects and closures
// an idle keep-alive connection and an open HTTP/2 stream hold, from heap snapshots (each a full
// collection). The ceilings are today's counts plus a small margin; the collections that only
// some connections ever use (a set of draining sessions, a map of TLS sessions, the HTTP/1.1
// fallback for upgrades) must not be made for every connection. V8's own objects (`system / ...`:
// closure contexts and the like) are left out of the totals: how many of them a closure costs
// differs between V8 versions, so they would make the ceiling a property of the runtime.
const CONNECTIONS = 100
const STREAMS = 100

/**
 * Objects and closures per idle keep-alive connection, the test's server-side socket included:
 * 48.3 to 49.3 measured on Node 20 and 24, once the warm-up connections are fully closed (64.2
 * while every connection of a pool resolved its own config and built its own connector, had a
 * closure per owner callback and three event forwarders of its own).
 */
const CONNECTION_CEILING = 51
/**
 * Objects and closures per open HTTP/2 stream, the in-process server's side included: 37.9
 * measured on Node 20 (a stream's response limits are made only when one counts, and its default
 * timeouts are counted by the session's sweep, with no Node timer per stream).
 */
const STREAM_CEILING = 39

/** The growth without V8's own objects (`object:system / ...`), whose count depends on the engine. */
function ownGrowth (byKind: Map<string, number>): number {
  let total = 0
  for (const [kind, count] of byKind) if (!kind.startsWith('object:system / ')) total += count
  return total
}

describe('objects an idle connection and an open HTTP/2 stream hold', () => {
  let server: TestServer<net.Server>
  const serverSockets = new Set<net.Socket>()
  /** Resolves once the server has seen every connection close, so none is half-released at a census. */
  const allClosed = async (): Promise<void> => {
    await Promise.all([...serverSockets].map(async (socket) => { await new Promise((resolve) => socket.once('close', resolve)) }))
  }

  before(async () => {
    server = await startTcpServer((socket) => {
      serverSockets.add(socket)
      socket.once('close', () => serverSockets.delete(socket))
      socket.on('data', (chunk: Buffer) => {
        const requests = chunk.toString('latin1').split('\r\n\r\n').length - 1
        for (let i = 0; i < requests; i++) socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nkeep-alive: timeout=600\r\n\r\nok')
      })
    })
  })

  after(async () => {
    await server.close()
  })

  it('an idle keep-alive connection holds no more than its ceiling, and no Map or Set of its own', async () => {
    const options = { connections: CONNECTIONS, keepAliveTimeout: 600_000, keepAliveMaxTimeout: 600_000 }
    const open = async (agent: Agent): Promise<void> => {
      const texts = await Promise.all(Array.from({ length: CONNECTIONS }, () => agent.request({ origin: server.origin, path: '/', method: 'GET' }).then(({ body }) => body.text())))
      assert.deepEqual(new Set(texts), new Set(['ok']))
    }
    // A first Agent compiles every path; the measured one starts from that.
    const warm = new Agent(options)
    await open(warm)
    await warm.close()
    await allClosed()
    const agent = new Agent(options)
    try {
      const idle = await takeCensus()
      await open(agent)
      const { byKind } = growth(idle, await takeCensus())
      const perConnection = ownGrowth(byKind) / CONNECTIONS
      assert.ok(perConnection > 0, 'the census saw no connection state at all')
      assert.ok(perConnection <= CONNECTION_CEILING, `${perConnection} objects per idle connection (ceiling ${CONNECTION_CEILING}): ${describeGrowth(byKind, CONNECTIONS / 2)}`)
      assert.ok((byKind.get('object:Map') ?? 0) < CONNECTIONS / 2, `a Map per connection: ${describeGrowth(byKind, CONNECTIONS / 2)}`)
      assert.ok((byKind.get('object:Set') ?? 0) < CONNECTIONS / 2, `a Set per connection: ${describeGrowth(byKind, CONNECTIONS / 2)}`)
    } finally {
      await agent.close()
    }
  })

  it('an open HTTP/2 stream holds no more than its ceiling', async () => {
    const held: Array<() => void> = []
    let onHeld: () => void = () => {}
    let holding = false
    const h2 = http2.createSecureServer({ key: serverKey, cert: serverCrt, settings: { maxConcurrentStreams: 1000 } })
    h2.on('stream', (stream) => {
      stream.on('error', () => {})
      const answer = (): void => { stream.respond({ ':status': 200, 'content-length': 2 }); stream.end('ok') }
      if (!holding) return answer()
      held.push(answer)
      if (held.length === STREAMS) onHeld()
    })
    await new Promise<void>((resolve) => h2.listen(0, '127.0.0.1', resolve))
    const origin = `https://localhost:${(h2.address() as AddressInfo).port}`
    const options = { allowH2: true, connect: { ca: caCrt }, pipelining: STREAMS, maxConcurrentStreams: STREAMS }
    const streams = (client: Client): Array<Promise<string>> => Array.from({ length: STREAMS }, () => client.request({ path: '/', method: 'GET' }).then(({ body }) => body.text()))
    const warm = new Client(origin, options)
    await Promise.all(streams(warm))
    await warm.close()
    const client = new Client(origin, options)
    try {
      // The session exists before the first census: what grows after it is the streams.
      await client.request({ path: '/', method: 'GET' }).then(({ body }) => body.text())
      const idle = await takeCensus()
      holding = true
      const allHeld = new Promise<void>((resolve) => { onHeld = resolve })
      const texts = streams(client)
      await allHeld
      const { byKind } = growth(idle, await takeCensus())
      holding = false
      for (const answer of held.splice(0)) answer()
      assert.deepEqual(new Set(await Promise.all(texts)), new Set(['ok']))
      const perStream = ownGrowth(byKind) / STREAMS
      assert.ok(perStream > 0, 'the census saw no stream state at all')
      assert.ok(perStream <= STREAM_CEILING, `${perStream} objects per open stream (ceiling ${STREAM_CEILING}): ${describeGrowth(byKind, STREAMS / 2)}`)
    } finally {
      await client.close()
      await new Promise<void>((resolve) => h2.close(() => resolve()))
    }
  })
})
