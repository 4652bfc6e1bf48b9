import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { performance } from 'node:perf_hooks'
import type { PerformanceEntry } from 'node:perf_hooks'
import { Agent, fetch } from '../../../src/index.js'
import { startHttpServer, startHttpsServer, trustTestCa } from '../../helpers/servers.js'

/** A resource entry as its `toJSON()` shows it (the typings of older runtimes lack most fields). */
type ResourceFields = Record<string, number | string>

/** The resource entries for `url` so far. */
function entriesFor (url: string): PerformanceEntry[] {
  return performance.getEntriesByType('resource').filter((entry) => entry.name === url)
}

/** The entry `fetching` leaves for `url` (the runtime's own fetch may add it a turn after its body ended). */
async function entryOf (url: string, fetching: () => Promise<void>): Promise<ResourceFields> {
  performance.clearResourceTimings()
  await fetching()
  for (let turn = 0; turn < 100 && entriesFor(url).length === 0; turn++) await new Promise((resolve) => setImmediate(resolve))
  const entries = entriesFor(url)
  assert.equal(entries.length, 1, `one resource entry for ${url}`)
  return entries[0]!.toJSON() as ResourceFields
}

/** The timestamps of a resource entry come in the order Resource Timing defines. */
function assertOrdered (entry: ResourceFields): void {
  const order = ['startTime', 'fetchStart', 'domainLookupStart', 'domainLookupEnd', 'connectStart', 'connectEnd', 'requestStart', 'responseStart', 'responseEnd'] as const
  for (const name of order) assert.equal(typeof entry[name], 'number', name)
  for (let i = 1; i < order.length; i++) {
    assert.ok(entry[order[i]!]! >= entry[order[i - 1]!]!, `${order[i]} (${entry[order[i]!]}) is before ${order[i - 1]} (${entry[order[i - 1]!]})`)
  }
  assert.ok((entry.duration as number) >= 0)
  assert.ok((entry.responseStart as number) > 0)
}

describe('fetch() resource timing', () => {
  it('marks an entry with the same fields, in the same order, as the runtime\'s own fetch for the same request', async (t) => {
    const server = await startHttpServer((_req, res) => res.end('timed'))
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    const url = `${server.origin}/resource`
    const runtime = await entryOf(url, async () => { await (await globalThis.fetch(url)).text() })
    const conduit = await entryOf(url, async () => { assert.equal(await (await fetch(url, { dispatcher: agent })).text(), 'timed') })
    assert.deepEqual(Object.keys(conduit), Object.keys(runtime))
    assert.equal(conduit.initiatorType, 'fetch')
    assert.equal(conduit.entryType, 'resource')
    assert.equal(conduit.decodedBodySize, 'timed'.length)
    assert.equal(conduit.encodedBodySize, 'timed'.length)
    assertOrdered(conduit)
    assert.ok((conduit.connectEnd as number) >= (conduit.connectStart as number))
    // A second fetch reuses the connection: its connection fields are its own start.
    const reused = await entryOf(url, async () => { await (await fetch(url, { dispatcher: agent })).text() })
    assertOrdered(reused)
    assert.equal(reused.connectStart, reused.fetchStart)
    assert.equal(reused.connectEnd, reused.fetchStart)
  })

  it('over TLS the handshake is inside the connection, and a redirect shows as the redirect fields', async (t) => {
    const server = await startHttpsServer((req, res) => {
      if (req.url === '/from') res.writeHead(302, { location: '/to' }).end()
      else res.end('landed')
    })
    const agent = new Agent({ connect: { ...trustTestCa, allowH2: false } })
    t.after(async () => { await agent.close(); await server.close() })
    const url = `${server.origin}/from`
    const entry = await entryOf(url, async () => { assert.equal(await (await fetch(url, { dispatcher: agent })).text(), 'landed') })
    assertOrdered(entry)
    const { redirectStart, redirectEnd, fetchStart, secureConnectionStart, connectStart, connectEnd } = entry as Record<string, number>
    assert.ok(redirectStart! > 0 && redirectEnd! >= redirectStart!)
    assert.ok(fetchStart! >= redirectEnd!)
    assert.ok(secureConnectionStart! >= connectStart! && secureConnectionStart! <= connectEnd!)
  })
})
