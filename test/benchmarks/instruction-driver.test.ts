import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { startOrigin } from './net-origin.js'

const DRIVER = fileURLToPath(new URL('../../benchmarks/instruction-driver.js', import.meta.url))

describe('instruction driver', () => {
  it('with a warm-up, says ready, runs the counted round on a line of stdin, says done and exits when stdin ends', { timeout: 120_000 }, async () => {
    const { origin, close } = await startOrigin()
    const child = spawn(process.execPath, [DRIVER, 'conduit', 'dispatch', 'small', '3', origin, '2'], { stdio: ['pipe', 'pipe', 'pipe'] })
    try {
      const said: string[] = []
      createInterface({ input: child.stdout }).on('line', (line) => {
        said.push(line)
        if (line === 'ready') child.stdin.write('go\n')
        if (line === 'done') child.stdin.end()
      })
      const [code] = await once(child, 'exit') as [number | null]
      assert.equal(code, 0)
      assert.deepEqual(said, ['ready', 'done'])
    } finally {
      child.kill()
      close()
    }
  })

  it('frames the counted round with young-generation collections: it forces no full collection', { timeout: 120_000 }, async () => {
    const { origin, close } = await startOrigin()
    // A forced full collection with no request alive would clear the hidden classes of per-request
    // objects and deoptimize the code compiled against them: every round would re-warm.
    const child = spawn(process.execPath, ['--expose-gc', '--trace-gc', DRIVER, 'conduit', 'dispatch', 'small', '3', origin, '2'], { stdio: ['pipe', 'pipe', 'pipe'] })
    try {
      const forced: string[] = []
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (line === 'ready') child.stdin.write('go\n')
        else if (line === 'done') child.stdin.end()
        else if (line.includes('testing')) forced.push(line)
      })
      const [code] = await once(child, 'exit') as [number | null]
      assert.equal(code, 0)
      // V8 tags the collections gc() forces with "testing": one before the round, one after. Asked
      // for a young-generation collection while a marking it started by itself is under way,
      // V8 (Node 26) finishes that marking instead: an incremental one, never a fresh full one.
      assert.equal(forced.length, 2, forced.join('\n'))
      for (const line of forced) assert.match(line, /Scavenge|Incremental Mark-Compact/, line)
    } finally {
      child.kill()
      close()
    }
  })

  it('refuses a warm-up count that is not an integer from 0 to 100000, naming it', { timeout: 60_000 }, async () => {
    for (const bad of ['x', '-1', '100001', '1.5']) {
      const child = spawn(process.execPath, [DRIVER, 'conduit', 'dispatch', 'small', '1', 'http://127.0.0.1:9', bad], { stdio: ['ignore', 'ignore', 'pipe'] })
      let stderr = ''
      child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
      const [code] = await once(child, 'exit') as [number | null]
      assert.notEqual(code, 0, bad)
      assert.match(stderr, new RegExp(`TypeError: warmup must be an integer from 0 to 100000, got ${bad.replace('.', '\\.')}`), bad)
    }
  })
})
