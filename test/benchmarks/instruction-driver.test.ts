import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { startOrigin } from './net-origin.js'

const DRIVER = fileURLToPath(new URL('../../benchmarks/drivers/instruction-driver.js', import.meta.url))

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
    // objects and deoptimize the code compiled against them: every round would re-warm. What the
    // driver asks gc() for is recorded by a preloaded wrapper, not read off V8's --trace-gc lines,
    // whose wording differs between V8 versions and with what V8 had under way by itself.
    const recordGcCalls = 'data:text/javascript,' + encodeURIComponent(
      'const collect = globalThis.gc;' +
      'globalThis.gc = (options) => { process.stderr.write("gc " + JSON.stringify(options ?? null) + "\\n"); return collect(options) }'
    )
    const child = spawn(process.execPath, ['--expose-gc', `--import=${recordGcCalls}`, DRIVER, 'conduit', 'dispatch', 'small', '3', origin, '2'], { stdio: ['pipe', 'pipe', 'pipe'] })
    try {
      const calls: string[] = []
      createInterface({ input: child.stderr }).on('line', (line) => {
        if (line.startsWith('gc ')) calls.push(line.slice(3))
      })
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (line === 'ready') child.stdin.write('go\n')
        else if (line === 'done') child.stdin.end()
      })
      const [code] = await once(child, 'exit') as [number | null]
      assert.equal(code, 0)
      // One before the counted round, one after it; each a young-generation collection.
      assert.deepEqual(calls, ['{"type":"minor"}', '{"type":"minor"}'])
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
