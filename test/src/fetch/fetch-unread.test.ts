import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { startHttpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'

const entry = new URL('../../../src/index.js', import.meta.url).href

/** Runs an ES module `script` in a child process with --expose-gc; resolves with its exit code and output. */
async function runWithGc (script: string): Promise<{ code: number, stdout: string, stderr: string }> {
  const child = spawn(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 20000 })
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
    server = await startHttpServer((_req, res) => {
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

  it('releases the connection once a response with an unread body is garbage collected', async () => {
    // A child process with --expose-gc: drop the response, collect it, and check the agent has nothing in flight.
    const script = `
      import { fetch, Agent } from ${JSON.stringify(entry)}
      const agent = new Agent()
      let response = await fetch(${JSON.stringify(`${server.origin}/big`)}, { dispatcher: agent })
      response = null
      for (let i = 0; i < 20; i++) {
        globalThis.gc()
        await new Promise((resolve) => setImmediate(resolve))
      }
      await agent.close()
      process.stdout.write('closed')`
    const { code, stdout, stderr } = await runWithGc(script)
    assert.equal(code, 0, stderr)
    // agent.close() waits for requests in flight, so it resolves only if the unread body was cancelled.
    assert.equal(stdout, 'closed')
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
