import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { startOrigin } from './net-origin.js'

const TOOL = fileURLToPath(new URL('../../benchmarks/drivers/thread-steady.js', import.meta.url))

/** Runs the tool to its end; its exit code and what it printed. */
async function run (args: string[]): Promise<{ code: number | null, stdout: string, stderr: string }> {
  const child = spawn(process.execPath, [TOOL, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const [code] = await once(child, 'exit') as [number | null]
  return { code, stdout, stderr }
}

describe('thread-steady', () => {
  it('prints the main thread\'s and the workers\' CPU, sleeps and preemptions per request of the counted round', { timeout: 120_000 }, async () => {
    const { origin, close } = await startOrigin()
    try {
      const { code, stdout, stderr } = await run(['conduit', 'dispatch', 'small', '2', '3', origin])
      assert.equal(code, 0, stderr)
      assert.match(stdout, /^conduit dispatch small on Node [\d.]+, 3 requests after 2, per request:$/m)
      assert.match(stdout, /^ {2}main: CPU \d+\.\d µs user \+ \d+\.\d µs system, sleeps \d+\.\d{3}, preempted \d+\.\d{3}$/m)
      assert.match(stdout, /^ {2}workers \(.+\): CPU \d+\.\d µs user \+ \d+\.\d µs system, sleeps \d+\.\d{3}, preempted \d+\.\d{3}$/m)
    } finally {
      close()
    }
  })

  it('refuses a request or warm-up count that is not a positive integer, naming it', { timeout: 60_000 }, async () => {
    const requests = await run(['conduit', 'dispatch', 'small', '2', '0', 'http://127.0.0.1:9'])
    assert.notEqual(requests.code, 0)
    assert.match(requests.stderr, /TypeError: requests must be a positive integer, got 0/)
    const warmup = await run(['conduit', 'dispatch', 'small', 'x', '3', 'http://127.0.0.1:9'])
    assert.notEqual(warmup.code, 0)
    assert.match(warmup.stderr, /TypeError: warmup must be a positive integer, got x/)
  })
})
