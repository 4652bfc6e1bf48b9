import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { startFetchServer } from './fetch-server.js'
import type { TestServer } from '../../helpers/servers.js'

const entry = new URL('../../../src/index.js', import.meta.url).href

async function runWithDebug (namespaces: string, script: string): Promise<{ stderr: string, pid: number }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, NODE_DEBUG: namespaces },
    stdio: ['ignore', 'ignore', 'pipe']
  })
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const [code] = await once(child, 'exit') as [number]
  assert.equal(code, 0, stderr)
  return { stderr, pid: child.pid! }
}

describe('NODE_DEBUG=fetch', () => {
  let server: TestServer
  before(async () => { server = await startFetchServer() })
  after(async () => { await server.close() })

  it('prints the connection, request, response and trailer lines of a fetch', async () => {
    const script = `
      import { fetch, Agent } from ${JSON.stringify(entry)}
      const agent = new Agent()
      const response = await fetch(${JSON.stringify(`${server.origin}/text`)}, { dispatcher: agent })
      await response.text()
      await agent.close()`
    const { stderr, pid } = await runWithDebug('fetch', script)
    const host = new URL(server.origin).host
    const url = `${server.origin}/text`
    for (const line of [
      `FETCH ${pid}: connecting to ${host} using http:h1`,
      `FETCH ${pid}: connected to ${host} using http:h1`,
      `FETCH ${pid}: sending request to GET ${url}`,
      `FETCH ${pid}: received response to GET ${url} - HTTP 200`,
      `FETCH ${pid}: trailers received from GET ${url}`
    ]) {
      assert.ok(stderr.includes(line), `missing line: ${line}\n${stderr}`)
    }
  })

  it('prints the request and response lines of a data: URL that fetch answers itself', async () => {
    const script = `
      import { fetch } from ${JSON.stringify(entry)}
      await (await fetch('data:,hi')).text()`
    const { stderr, pid } = await runWithDebug('fetch', script)
    assert.ok(stderr.includes(`FETCH ${pid}: sending request to GET data:,hi`), stderr)
    assert.ok(stderr.includes(`FETCH ${pid}: received response to GET data:,hi - HTTP 200`), stderr)
  })

  it('prints nothing under fetch for requests not made through fetch', async () => {
    const script = `
      import { Agent } from ${JSON.stringify(entry)}
      const agent = new Agent()
      const { body } = await agent.request({ origin: ${JSON.stringify(server.origin)}, path: '/text', method: 'GET' })
      await body.text()
      await agent.close()`
    const { stderr } = await runWithDebug('fetch', script)
    assert.equal(stderr.includes('FETCH'), false, stderr)
  })
})
