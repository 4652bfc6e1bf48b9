import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { randomBytes } from 'node:crypto'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { startDelayRelay } from '../../benchmarks/origins/delay-relay.js'

const h2Bench = fileURLToPath(new URL('../../benchmarks/h2.js', import.meta.url))

/** Runs the h2 suite with `env` added; resolves with its exit code and output. */
async function runH2Bench (env: Record<string, string>): Promise<{ code: number | null, stdout: string, stderr: string }> {
  const child = spawn(process.execPath, [h2Bench], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  const [code] = await once(child, 'exit') as [number | null]
  return { code, stdout, stderr }
}

describe('h2 benchmark', () => {
  it('the delay relay carries every byte, in order, both ways', async () => {
    const echo = net.createServer((socket) => socket.pipe(socket))
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve))
    const relay = await startDelayRelay((echo.address() as AddressInfo).port, 2)
    try {
      const chunks = Array.from({ length: 64 }, () => randomBytes(1 + Math.floor(Math.random() * 20_000)))
      const sent = Buffer.concat(chunks)
      const socket = net.connect({ host: '127.0.0.1', port: relay.port })
      const received: Buffer[] = []
      let length = 0
      const done = new Promise<void>((resolve, reject) => {
        socket.on('data', (chunk: Buffer) => {
          received.push(chunk)
          length += chunk.length
          if (length >= sent.length) resolve()
        })
        socket.once('error', reject)
      })
      for (const chunk of chunks) socket.write(chunk)
      await done
      socket.destroy()
      assert.ok(Buffer.concat(received).equals(sent))
    } finally {
      await relay.close()
      await new Promise((resolve) => echo.close(resolve))
    }
  })

  it('runs every row with tiny counts against node:http2, nginx and h2o', { timeout: 240_000 }, async () => {
    const run = await runH2Bench({ BENCH_H2_ROUNDS: '1', BENCH_H2_SCALE: '0.005', BENCH_H2_STREAMS: '10', BENCH_H2_RTT_MS: '2' })
    assert.equal(run.code, 0, run.stderr)
    for (const origin of ['node-http2', 'nginx', 'h2o']) {
      for (const row of ['GET 1 KiB', 'GET 1 MiB']) {
        assert.match(run.stdout, new RegExp(`^h2 ${row} from ${origin}, 50 streams on one session, \\d+ requests: conduit ÷ undici req/s [\\d.]+x .*bare node:http2 ÷ undici req/s [\\d.]+x`, 'm'))
      }
    }
    assert.match(run.stdout, /^h2 10 concurrent streams on one session \(the scale suite's h2 scenario\):\n/m)
    assert.match(run.stdout, /^ {2}heap B +conduit +-?\d+ +undici +-?\d+/m)
    assert.match(run.stdout, /^h2 10 MiB download from nginx with 2 ms added RTT: conduit [\d.]+ s, conduit-64k [\d.]+ s, undici [\d.]+ s, node-http2-64k [\d.]+ s \(medians\); conduit ÷ conduit-64k speed [\d.]+x/m)
  })

  it('refuses an unknown origin, naming it', async () => {
    const run = await runH2Bench({ BENCH_H2_ORIGINS: 'node-http2,apache' })
    assert.notEqual(run.code, 0)
    assert.match(run.stderr, /BENCH_H2_ORIGINS: unknown apache \(node-http2, nginx, h2o\)/)
  })
})
