/**
 * BalancedPool as the client side of a fleet: three upstreams in child processes, one killed
 * outright while requests run and later started again on the same port. With a retry policy
 * composed on the pool, no request is lost; while the upstream is down the others serve
 * everything and its weight drops; once it is back it serves requests again.
 */

import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { BalancedPool, interceptors } from '../../../src/index.js'

const CHILD = fileURLToPath(new URL('./upstream-child.js', import.meta.url))
const IN_FLIGHT = 20
// Bounds of each phase of load: a number of requests, and a time after which it stops anyway.
const PHASE_REQUESTS = 300
const RECOVERY_MAX_REQUESTS = 6000
const PHASE_MAX_MS = 30_000

interface Upstream { name: string, port: number, child: ChildProcess }

async function startUpstream (name: string, port = 0): Promise<Upstream> {
  const child = spawn(process.execPath, [CHILD, String(port), name], { stdio: ['pipe', 'pipe', 'inherit'] })
  const [data] = await once(child.stdout!, 'data') as [Buffer]
  return { name, port: Number(data.toString().trim()), child }
}

async function kill (upstream: Upstream): Promise<void> {
  const exited = once(upstream.child, 'exit')
  upstream.child.kill('SIGKILL')
  await exited
}

async function stop (upstream: Upstream): Promise<void> {
  if (upstream.child.exitCode !== null || upstream.child.signalCode !== null) return
  const exited = once(upstream.child, 'exit')
  upstream.child.stdin!.end()
  await exited
}

interface Phase { served: Record<string, number>, failed: string[], sent: number }

/** Sends GETs, IN_FLIGHT at a time, until `done(phase)` says so, `maxRequests` were sent or PHASE_MAX_MS passed. */
async function load (dispatcher: { request: BalancedPool['request'] }, maxRequests: number, done: (phase: Phase) => boolean = () => false): Promise<Phase> {
  const phase: Phase = { served: {}, failed: [], sent: 0 }
  const deadline = Date.now() + PHASE_MAX_MS
  const worker = async (): Promise<void> => {
    while (phase.sent < maxRequests && Date.now() < deadline && !done(phase)) {
      phase.sent++
      try {
        const { body } = await dispatcher.request({ path: '/', method: 'GET' })
        const name = await body.text()
        phase.served[name] = (phase.served[name] ?? 0) + 1
      } catch (err) {
        phase.failed.push(`${(err as Error).name}: ${(err as Error).message}`)
      }
    }
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker))
  return phase
}

describe('BalancedPool over three upstreams in child processes', () => {
  it('loses no request when one upstream is killed mid-load, and uses it again once it is back', async (t) => {
    const upstreams = [await startUpstream('a'), await startUpstream('b'), await startUpstream('c')]
    const [, b] = upstreams as [Upstream, Upstream, Upstream]
    const origins = upstreams.map((u) => `http://127.0.0.1:${u.port}`)
    const pool = new BalancedPool(origins)
    const client = pool.compose(interceptors.retry({ maxRetries: 10, minTimeout: 1, maxTimeout: 20 }))
    t.after(async () => {
      await client.destroy()
      await Promise.all(upstreams.map(stop))
    })

    const before = await load(client, PHASE_REQUESTS)
    assert.deepEqual(before.failed, [])
    for (const name of ['a', 'b', 'c']) assert.ok((before.served[name] ?? 0) > 0, `${name} served nothing: ${JSON.stringify(before.served)}`)

    // Killed while requests are in flight: those on its connections fail and are retried elsewhere.
    const killed = Promise.resolve().then(() => kill(b))
    const down = await load(client, PHASE_REQUESTS)
    await killed
    assert.deepEqual(down.failed, [], 'a retry policy of 10 attempts loses no request')
    assert.equal(down.sent, PHASE_REQUESTS)
    const weightsWhileDown = pool.weights
    assert.ok(weightsWhileDown[origins[1]!]! < 100, `b keeps a full weight while down: ${JSON.stringify(weightsWhileDown)}`)
    assert.ok((down.served.a ?? 0) > 0 && (down.served.c ?? 0) > 0)

    const restarted = await startUpstream('b again', b.port)
    upstreams[1] = restarted
    const after = await load(client, RECOVERY_MAX_REQUESTS, (phase) => (phase.served['b again'] ?? 0) >= 5)
    assert.deepEqual(after.failed, [])
    assert.ok((after.served['b again'] ?? 0) >= 5, `the restarted upstream served ${after.served['b again'] ?? 0} of ${after.sent} requests`)
    assert.ok(pool.weights[origins[1]!]! > weightsWhileDown[origins[1]!]!, `b's weight did not recover: ${JSON.stringify(pool.weights)}`)
    assert.deepEqual(pool.upstreams, origins)
  })
})
