/**
 * `agent.stats` per origin through undici and conduit, against one server that holds answers
 * until told: the figures of each origin's pool while its connections are busy, while requests
 * wait in its queue, as they drain, and once the agent closed.
 */

import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { ServerResponse } from 'node:http'
import { both } from './harness.js'
import type { Lib } from './harness.js'
import { startHttpServer } from '../helpers/servers.js'
import type { TestServer } from '../helpers/servers.js'

let server: TestServer
let other: TestServer
const held: ServerResponse[] = []

before(async () => {
  const answer = (req: { url?: string | undefined }, res: ServerResponse): void => {
    if (req.url === '/hold') held.push(res)
    else res.end('ok')
  }
  server = await startHttpServer(answer)
  other = await startHttpServer(answer)
})
after(async () => { await server.close(); await other.close() })

/** Waits (bounded) until the server holds `count` answers. */
async function holding (count: number): Promise<void> {
  for (let i = 0; i < 1000 && held.length < count; i++) await new Promise((resolve) => setTimeout(resolve, 5))
  assert.equal(held.length, count)
}

/** A plain copy: undici's figures are class instances, conduit's plain objects, with the same fields. */
const snapshot = (agent: { stats: unknown }): unknown => JSON.parse(JSON.stringify(agent.stats))

describe('agent.stats, as undici 8 reports it', () => {
  it('gives each origin\'s pool figures as its connections fill, its queue grows and drains, and none once closed', async () => {
    const seen = await both(async (lib: Lib) => {
      const agent = new lib.Agent({ connections: 2 })
      const figures: Record<string, unknown> = { unused: snapshot(agent) }
      const pending = [1, 2, 3].map(async () => await agent.request({ origin: server.origin, path: '/hold', method: 'GET' }))
      const elsewhere = agent.request({ origin: other.origin, path: '/', method: 'GET' })
      await holding(2)
      await (await elsewhere).body.text()
      // Two requests on the wire, the third in the pool's queue; the other origin's pool is idle.
      figures.busy = snapshot(agent)
      held.splice(0).forEach((res) => res.end('x'))
      await holding(1)
      figures.draining = snapshot(agent)
      held.splice(0).forEach((res) => res.end('x'))
      for (const request of pending) await (await request).body.text()
      figures.drained = snapshot(agent)
      await agent.close()
      figures.closed = snapshot(agent)
      // Origins differ between runs only by port: name them by role.
      return JSON.parse(JSON.stringify(figures).replaceAll(server.origin, 'held').replaceAll(other.origin, 'other'))
    })
    // undici counts a client free only after its drain event, so right after a response ended its
    // `free` is one short (docs/undici-differences.md): compared where no response just ended.
    const withoutFree = (figures: unknown): unknown => JSON.parse(JSON.stringify(figures, (key, value: unknown) => key === 'free' ? undefined : value))
    assert.deepEqual(withoutFree(seen.conduit), withoutFree(seen.undici))
    for (const state of ['busy', 'draining']) {
      const free = (lib: 'undici' | 'conduit'): unknown => (seen[lib] as Record<string, { held: { free: number } }>)[state]!.held.free
      assert.equal(free('conduit'), free('undici'), `free while ${state}`)
    }
    assert.deepEqual((seen.conduit as { busy: { held: unknown } }).busy.held, { connected: 2, free: 0, pending: 1, queued: 1, running: 2, size: 3 })
    assert.deepEqual((seen.conduit as { closed: unknown }).closed, {})
  })
})
