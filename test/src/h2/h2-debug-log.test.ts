import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'

const indexUrl = new URL('../../../src/index.js', import.meta.url).href

describe('NODE_DEBUG=conduit over HTTP/2', () => {
  it('says h2 in the connection lines of an h2c client, where HTTP/1.1 says h1', async () => {
    const script = `
      import http2 from 'node:http2'
      import * as conduit from ${JSON.stringify(indexUrl)}
      const server = http2.createServer()
      server.on('stream', (stream) => { stream.respond({ ':status': 200 }); stream.end('ok') })
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
      const client = new conduit.H2CClient('http://127.0.0.1:' + server.address().port)
      const res = await client.request({ path: '/', method: 'GET' })
      await res.body.text()
      await client.close()
      server.close()
    `
    const stderr = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
        env: { ...process.env, NODE_DEBUG: 'conduit' },
        stdio: ['ignore', 'ignore', 'pipe']
      })
      let out = ''
      child.stderr.on('data', (chunk: Buffer) => { out += chunk.toString() })
      child.on('error', reject)
      child.on('close', (code) => code === 0 ? resolve(out) : reject(new Error(`child exited with ${String(code)}: ${out}`)))
    })
    const lines = stderr.split('\n').map((line) => line.replace(/^CONDUIT \d+: /, '').replace(/127\.0\.0\.1:\d+/g, 'HOST'))
    assert.ok(lines.includes('connecting to HOST using http:h2'), stderr)
    assert.ok(lines.includes('connected to HOST using http:h2'), stderr)
  })
})
