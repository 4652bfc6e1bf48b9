import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { Agent, interceptors } from '../../src/index.js'
import { startHttpServer, startTcpServer } from '../helpers/servers.js'

describe('interceptors.debug()', () => {
  it('gives the logger the per-request lines of the core log', async (t) => {
    const server = await startHttpServer((req, res) => res.end('ok'))
    const lines: string[] = []
    const agent = new Agent()
    const dispatcher = agent.compose(interceptors.debug({ logger: (line) => lines.push(line) }))
    t.after(async () => { await agent.close(); await server.close() })
    const { body } = await dispatcher.request({ origin: server.origin, path: '/x?y=1', method: 'GET' })
    await body.text()
    assert.deepEqual(lines, [
      `sending request to GET ${server.origin}/x?y=1`,
      `received response to GET ${server.origin}/x?y=1 - HTTP 200`,
      `trailers received from GET ${server.origin}/x?y=1`
    ])
  })

  it('logs a failed request', async (t) => {
    const server = await startTcpServer((socket) => socket.once('data', () => socket.end('garbage\r\n\r\n')))
    const lines: string[] = []
    const agent = new Agent()
    const dispatcher = agent.compose(interceptors.debug({ logger: (line) => lines.push(line) }))
    t.after(async () => { await agent.close(); await server.close() })
    await assert.rejects(dispatcher.request({ origin: server.origin, path: '/', method: 'GET' }), { code: 'LIB_ERR_HTTP_PARSER' })
    assert.equal(lines.length, 2)
    assert.match(lines[1]!, new RegExp(`^request to GET ${server.origin}/ errored - invalid status line`))
  })

  it('writes to stderr in the NODE_DEBUG line shape when no logger is given', async () => {
    const indexUrl = new URL('../../src/index.js', import.meta.url).href
    const script = `
      import http from 'node:http'
      import { Agent, interceptors } from ${JSON.stringify(indexUrl)}
      const server = http.createServer((req, res) => res.end('ok'))
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
      const agent = new Agent()
      const { body } = await agent.compose(interceptors.debug()).request({ origin: 'http://127.0.0.1:' + server.address().port, path: '/', method: 'GET' })
      await body.text()
      await agent.close()
      server.close()
    `
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NODE_DEBUG: '' } })
    let stderr = ''
    child.stderr.on('data', (c: Buffer) => { stderr += c.toString() })
    const code = await new Promise((resolve) => child.on('close', resolve))
    assert.equal(code, 0, stderr)
    const lines = stderr.trim().split('\n')
    assert.equal(lines.length, 3, stderr)
    assert.match(lines[0]!, new RegExp(`^CONDUIT ${child.pid!}: sending request to GET http://127\\.0\\.0\\.1:\\d+/$`))
  })

  it('rejects a logger that is not a function', () => {
    assert.throws(() => interceptors.debug({ logger: 'console' as never }), { code: 'LIB_ERR_INVALID_ARG', message: 'debug(): logger must be a function, got "console"' })
  })
})
