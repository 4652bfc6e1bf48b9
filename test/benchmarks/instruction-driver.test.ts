import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { RequestReader, responseFor } from '../../benchmarks/clients/wire-answers.js'

const DRIVER = fileURLToPath(new URL('../../benchmarks/instruction-driver.js', import.meta.url))

/** The benchmark's net origin, in this process: one prebuilt response per request head. */
async function startOrigin (): Promise<{ origin: string, close: () => void }> {
  const sockets = new Set<net.Socket>()
  const server = net.createServer((socket) => {
    sockets.add(socket)
    const reader = new RequestReader((path) => { socket.write(responseFor(path)) }, (err) => socket.destroy(err))
    socket.on('data', (chunk: Buffer) => reader.consume(chunk))
    socket.on('error', () => {})
    socket.on('close', () => sockets.delete(socket))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => {
      for (const socket of sockets) socket.destroy()
      server.close()
    }
  }
}

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
      // V8 tags the collections gc() forces with "testing": one before the round, one after.
      assert.equal(forced.length, 2, forced.join('\n'))
      for (const line of forced) assert.match(line, /Scavenge/, line)
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
