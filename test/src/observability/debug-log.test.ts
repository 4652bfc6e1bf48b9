import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'

const indexUrl = new URL('../../../src/index.js', import.meta.url).href

/** Runs `body` in a child process with NODE_DEBUG set; resolves with its stderr lines. */
function runChild (nodeDebug: string, body: string): Promise<{ lines: string[], pid: number }> {
  const script = `
    import http from 'node:http'
    import * as conduit from ${JSON.stringify(indexUrl)}
    const server = http.createServer((req, res) => {
      if (req.url === '/trailers') { res.writeHead(200, { trailer: 'x-t' }); res.addTrailers({ 'x-t': '1' }); res.end('t'); return }
      res.end('ok')
    })
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
    const origin = 'http://127.0.0.1:' + server.address().port
    const agent = new conduit.Agent()
    try {
      ${body}
    } finally {
      await agent.close()
      server.close()
    }
  `
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, NODE_DEBUG: nodeDebug },
      stdio: ['ignore', 'ignore', 'pipe']
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
    child.on('error', reject)
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`child exited with ${String(code)}: ${stderr}`))
      else resolve({ lines: stderr.split('\n').filter((line) => line.length > 0), pid: child.pid! })
    })
  })
}

function messages (lines: string[], namespace: string, pid: number): string[] {
  const prefix = `${namespace} ${pid}: `
  return lines.filter((line) => line.startsWith(prefix)).map((line) => line.slice(prefix.length).replace(/127\.0\.0\.1:\d+/g, 'HOST'))
}

describe('NODE_DEBUG=conduit', () => {
  it('logs connection setup, the request, the response and the trailers in the documented shapes', async () => {
    const { lines, pid } = await runChild('conduit', `
      const a = await agent.request({ origin, path: '/first', method: 'GET' }); await a.body.text()
      const b = await agent.request({ origin, path: '/trailers', method: 'POST', body: 'x' }); await b.body.text()
    `)
    assert.deepEqual(messages(lines, 'CONDUIT', pid), [
      'connecting to HOST using http:h1',
      'connected to HOST using http:h1',
      'sending request to GET http://HOST/first',
      'received response to GET http://HOST/first - HTTP 200',
      'trailers received from GET http://HOST/first',
      'sending request to POST http://HOST/trailers',
      'received response to POST http://HOST/trailers - HTTP 200',
      'trailers received from POST http://HOST/trailers'
    ])
  })

  it('logs a failed connection and a failed request', async () => {
    const { lines, pid } = await runChild('conduit', `
      const closed = http.createServer()
      await new Promise((resolve) => closed.listen(0, '127.0.0.1', resolve))
      const port = closed.address().port
      await new Promise((resolve) => closed.close(resolve))
      await agent.request({ origin: 'http://127.0.0.1:' + port, path: '/down', method: 'GET' }).catch(() => {})
    `)
    const logged = messages(lines, 'CONDUIT', pid)
    assert.equal(logged[0], 'connecting to HOST using http:h1')
    assert.match(logged[1]!, /^connection to HOST using http:h1 errored - connect ECONNREFUSED/)
    assert.match(logged[2]!, /^request to GET http:\/\/HOST\/down errored - connect ECONNREFUSED/)
  })

  it('writes nothing when the namespace is not enabled', async () => {
    const { lines, pid } = await runChild('', `
      const a = await agent.request({ origin, path: '/', method: 'GET' }); await a.body.text()
    `)
    assert.deepEqual(messages(lines, 'CONDUIT', pid), [])
  })
})

describe('NODE_DEBUG=fetch', () => {
  it('logs only requests made through fetch(), with the core line shapes', async () => {
    const { lines, pid } = await runChild('fetch', `
      const plain = await agent.request({ origin, path: '/plain', method: 'GET' }); await plain.body.text()
      const response = await conduit.fetch(origin + '/fetched', { dispatcher: agent }); await response.text()
    `)
    const logged = messages(lines, 'FETCH', pid)
    assert.ok(!logged.some((line) => line.includes('/plain')), logged.join('\n'))
    assert.ok(logged.includes('sending request to GET http://HOST/fetched'), logged.join('\n'))
    assert.ok(logged.includes('received response to GET http://HOST/fetched - HTTP 200'), logged.join('\n'))
    assert.ok(logged.includes('trailers received from GET http://HOST/fetched'), logged.join('\n'))
  })

  it('logs fetch requests under both namespaces when both are enabled', async () => {
    const { lines, pid } = await runChild('conduit,fetch', `
      const response = await conduit.fetch(origin + '/both', { dispatcher: agent }); await response.text()
    `)
    for (const namespace of ['CONDUIT', 'FETCH']) {
      const logged = messages(lines, namespace, pid)
      assert.ok(logged.includes('connecting to HOST using http:h1'), `${namespace}: ${logged.join('\n')}`)
      assert.ok(logged.includes('received response to GET http://HOST/both - HTTP 200'), `${namespace}: ${logged.join('\n')}`)
    }
  })
})

describe('NODE_DEBUG with a caller tag', () => {
  it('logs the requests tagged with that name under it, and no others', async () => {
    const { lines, pid } = await runChild('my-api', `
      const tagged = await agent.request({ origin, path: '/tagged', method: 'GET', [Symbol.for('conduit.callerTag')]: 'my-api' }); await tagged.body.text()
      const plain = await agent.request({ origin, path: '/plain', method: 'GET' }); await plain.body.text()
      const fetched = await conduit.fetch(origin + '/fetched', { dispatcher: agent }); await fetched.text()
    `)
    assert.deepEqual(messages(lines, 'MY-API', pid), [
      'connecting to HOST using http:h1',
      'connected to HOST using http:h1',
      'sending request to GET http://HOST/tagged',
      'received response to GET http://HOST/tagged - HTTP 200',
      'trailers received from GET http://HOST/tagged'
    ])
  })
})
