import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { startHttpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'

const entry = new URL('../../../src/index.js', import.meta.url).href

describe('fetch responses dropped unread', () => {
  let server: TestServer
  before(async () => {
    server = await startHttpServer((req, res) => {
      res.setHeader('content-length', String(16 * 1024 * 1024))
      const chunk = Buffer.alloc(64 * 1024, 1)
      const pump = (): void => {
        while (res.write(chunk)) { /* fills until the client stops reading */ }
        res.once('drain', pump)
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
    const child = spawn(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 20000 })
    let stdout = ''
    let stderr = ''
    child.stdout!.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
    child.stderr!.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
    const [code] = await once(child, 'exit') as [number]
    assert.equal(code, 0, stderr)
    // agent.close() waits for requests in flight, so it resolves only if the unread body was cancelled.
    assert.equal(stdout, 'closed')
  })
})
