/**
 * BalancedPool against an upstream that stops answering without breaking anything: its process
 * is stopped with SIGSTOP, so the kernel still accepts connections and takes requests, and no
 * byte comes back until SIGCONT. The load must go on through the other upstreams.
 */

import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { BalancedPool, interceptors } from '../../../src/index.js'
import { UNANSWERED_ALLOWANCE } from '../../../src/dispatcher/balanced-pool.js'

const CHILD = fileURLToPath(new URL('./upstream-child.js', import.meta.url))
const IN_FLIGHT = 20
const PHASE_MAX_MS = 30_000

interface Upstream { name: string, origin: string, child: ChildProcess }

async function startUpstream (name: string): Promise<Upstream> {
  const child = spawn(process.execPath, [CHILD, '0', name], { stdio: ['pipe', 'pipe', 'inherit'] })
  const [data] = await once(child.stdout!, 'data') as [Buffer]
  return { name, origin: `http://127.0.0.1:${Number(data.toString().trim())}`, child }
}

async function stop (upstream: Upstream): Promise<void> {
  if (upstream.child.exitCode !== null || upstream.child.signalCode !== null) return
  upstream.child.kill('SIGCONT')
  const exited = once(upstream.child, 'exit')
  upstream.child.stdin!.end()
  await exited
}

interface Load { served: Record<string, number>, failed: string[], sent: number, finished: Promise<void> }

/** Starts IN_FLIGHT workers sending GETs until `total` were sent or PHASE_MAX_MS passed; `finished` settles when all are done. */
function startLoad (dispatcher: { request: BalancedPool['request'] }, total: number): Load {
  const load: Load = { served: {}, failed: [], sent: 0, finished: Promise.resolve() }
  const deadline = Date.now() + PHASE_MAX_MS
  const worker = async (): Promise<void> => {
    while (load.sent < total && Date.now() < deadline) {
      load.sent++
      try {
        const { body } = await dispatcher.request({ path: '/', method: 'GET' })
        const name = await body.text()
        load.served[name] = (load.served[name] ?? 0) + 1
      } catch (err) {
        load.failed.push(`${(err as Error).name}: ${(err as Error).message}`)
      }
    }
  }
  load.finished = Promise.all(Array.from({ length: IN_FLIGHT }, worker)).then(() => undefined)
  return load
}

/** Resolves once `condition()` holds, checking every few milliseconds, or after PHASE_MAX_MS. */
async function until (condition: () => boolean): Promise<void> {
  const deadline = Date.now() + PHASE_MAX_MS
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5))
}

function unansweredAt (pool: BalancedPool, origin: string): number {
  const stats = (pool.getUpstream(origin) as unknown as { stats: { running: number, pending: number, queued: number } }).stats
  return stats.running + stats.pending + stats.queued
}

describe('BalancedPool with an upstream stopped by SIGSTOP in another process', () => {
  it('passes over it once it holds a few unanswered requests, so the other upstreams carry the load, and uses it again after SIGCONT', async (t) => {
    const upstreams = await Promise.all(['a', 'b', 'c'].map(startUpstream))
    const [, , c] = upstreams as [Upstream, Upstream, Upstream]
    // No timeout fires during the test: what keeps the load going is that c is passed over.
    const pool = new BalancedPool(upstreams.map((u) => u.origin), { headersTimeout: 120_000 })
    t.after(async () => {
      await Promise.all(upstreams.map(stop))
      await pool.destroy()
    })

    const warm = startLoad(pool, 90)
    await warm.finished
    assert.deepEqual(warm.failed, [])
    assert.ok((warm.served.c ?? 0) > 0, `c served nothing before it was stopped: ${JSON.stringify(warm.served)}`)

    c.child.kill('SIGSTOP')
    const total = 400
    const load = startLoad(pool, total)
    const servedByOthers = (): number => (load.served.a ?? 0) + (load.served.b ?? 0)
    // Every request but the few c holds is answered while c is stopped.
    await until(() => load.sent === total && servedByOthers() + unansweredAt(pool, c.origin) === total)
    const held = unansweredAt(pool, c.origin)
    assert.equal(load.served.c ?? 0, 0, 'a stopped upstream answered')
    assert.equal(servedByOthers(), total - held, `a and b served ${servedByOthers()} of ${total}, c holds ${held}`)
    // Its share of the 20 in flight beside the other two, plus the allowance: far from a third of 400.
    assert.ok(held > 0 && held <= IN_FLIGHT / 3 + UNANSWERED_ALLOWANCE + 1, `c holds ${held} requests`)

    c.child.kill('SIGCONT')
    await load.finished
    assert.deepEqual(load.failed, [])
    assert.equal(load.served.c, held, 'the requests c held were answered once it went on')
    const again = startLoad(pool, 90)
    await again.finished
    assert.ok((again.served.c ?? 0) > 0, `c served nothing after SIGCONT: ${JSON.stringify(again.served)}`)
  })

  it('lowers the weight of the upstream whose requests time out, and a retry policy sends them to the others', async (t) => {
    const upstreams = await Promise.all(['a', 'b', 'c'].map(startUpstream))
    const [, , c] = upstreams as [Upstream, Upstream, Upstream]
    const pool = new BalancedPool(upstreams.map((u) => u.origin), { headersTimeout: 300 })
    const client = pool.compose(interceptors.retry({ maxRetries: 10, minTimeout: 1, maxTimeout: 20, errorCodes: ['LIB_ERR_HEADERS_TIMEOUT', 'LIB_ERR_SOCKET'] }))
    t.after(async () => {
      await Promise.all(upstreams.map(stop))
      await client.destroy()
    })

    c.child.kill('SIGSTOP')
    const down = startLoad(client, 300)
    await down.finished
    assert.deepEqual(down.failed, [], 'every request that timed out on c was answered by a or b')
    assert.equal(down.served.c ?? 0, 0)
    assert.equal((down.served.a ?? 0) + (down.served.b ?? 0), 300)
    const weightWhileStopped = pool.weights[c.origin]!
    assert.ok(weightWhileStopped < 100, `c kept its full weight though its requests timed out: ${JSON.stringify(pool.weights)}`)
    assert.equal(pool.weights[upstreams[0]!.origin], 100)

    c.child.kill('SIGCONT')
    const back = startLoad(client, 600)
    await until(() => (back.served.c ?? 0) >= 5)
    await back.finished
    assert.deepEqual(back.failed, [])
    assert.ok((back.served.c ?? 0) >= 5, `c served ${back.served.c ?? 0} requests after SIGCONT`)
    assert.ok(pool.weights[c.origin]! > weightWhileStopped, `c's weight did not recover: ${JSON.stringify(pool.weights)}`)
  })
})
