import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { startHttpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'

const entry = new URL('../../../src/index.js', import.meta.url).href

/** Runs an ES module `script` in a child process with --expose-gc; resolves with its exit code and output. */
async function runWithGc (script: string): Promise<{ code: number, stdout: string, stderr: string }> {
  const child = spawn(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  child.stderr!.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const [code] = await once(child, 'exit') as [number]
  return { code, stdout, stderr }
}

describe('fetch responses dropped unread', () => {
  let server: TestServer
  before(async () => {
    server = await startHttpServer((req, res) => {
      if (req.url === '/small') {
        res.end('x'.repeat(1024))
        return
      }
      if (req.url === '/trickle') {
        // A body that never ends and never fills the buffer: only collection can release it.
        res.write('tick')
        const timer = setInterval(() => res.write('tick'), 20)
        res.on('close', () => clearInterval(timer))
        return
      }
      const size = 16 * 1024 * 1024
      res.setHeader('content-length', String(size))
      const chunk = Buffer.alloc(64 * 1024, 1)
      let sent = 0
      const pump = (): void => {
        while (sent < size) {
          sent += chunk.length
          if (!res.write(chunk)) {
            res.once('drain', pump)
            return
          }
        }
        res.end()
      }
      pump()
    })
  })
  after(async () => { await server.close() })

  /**
   * A child process with --expose-gc fetches `path`, drops the response unread and collects it;
   * `agent.close()` waits for requests in flight, so 'closed' is printed only if the body was cancelled.
   */
  async function dropUnreadAndClose (path: string): Promise<void> {
    const script = `
      import { fetch, Agent } from ${JSON.stringify(entry)}
      const agent = new Agent()
      let response = await fetch(${JSON.stringify(server.origin)} + ${JSON.stringify(path)}, { dispatcher: agent })
      response = null
      for (let i = 0; i < 20; i++) {
        globalThis.gc()
        await new Promise((resolve) => setImmediate(resolve))
      }
      await agent.close()
      process.stdout.write('closed')`
    const { code, stdout, stderr } = await runWithGc(script)
    assert.equal(code, 0, stderr)
    assert.equal(stdout, 'closed')
  }

  it('releases the connection once a response with an unread body is garbage collected', async () => {
    await dropUnreadAndClose('/big')
  })

  it('releases the connection of a response dropped unread while its body still trickles in', async () => {
    // The body was neither complete nor claimed after the caller's first reaction, so it is watched.
    await dropUnreadAndClose('/trickle')
  })

  it('reuses the connection of a small response dropped unread once its body arrived whole', async () => {
    const script = `
      import { fetch, Agent } from ${JSON.stringify(entry)}
      const agent = new Agent({ connections: 1 })
      const first = await fetch(${JSON.stringify(`${server.origin}/small`)}, { dispatcher: agent })
      const second = await fetch(${JSON.stringify(`${server.origin}/small`)}, { dispatcher: agent })
      const text = await second.text()
      await agent.close()
      process.stdout.write(first.status + ' ' + text.length)`
    const { code, stdout, stderr } = await runWithGc(script)
    assert.equal(code, 0, stderr)
    // With one connection, the second request is answered only if the first, unread, freed it.
    assert.equal(stdout, '200 1024')
    assert.equal(server.requests.filter((r) => r.url === '/small').length >= 2, true)
  })

  it('keeps reading a body whose Response was collected while a consumer holds it', async () => {
    const script = `
      import { fetch, Agent } from ${JSON.stringify(entry)}
      const agent = new Agent()
      const body = (await fetch(${JSON.stringify(`${server.origin}/big`)}, { dispatcher: agent })).body
      const pending = fetch(${JSON.stringify(`${server.origin}/big`)}, { dispatcher: agent }).then((r) => r.arrayBuffer())
      let total = 0
      const reader = body.getReader()
      for (let i = 0; ; i++) {
        if (i % 16 === 0) globalThis.gc()
        const { done, value } = await reader.read()
        if (done) break
        total += value.length
      }
      const other = await pending
      await agent.close()
      process.stdout.write(total + ' ' + other.byteLength)`
    const { code, stdout, stderr } = await runWithGc(script)
    assert.equal(code, 0, stderr)
    assert.equal(stdout, `${16 * 1024 * 1024} ${16 * 1024 * 1024}`)
  })
})
