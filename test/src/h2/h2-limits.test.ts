import { describe, it, after } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '../../../src/index.js'
import { HeadersOverflowError, ResponseExceededMaxSizeError } from '../../../src/errors.js'
import { respond, startH2cServer } from '../../helpers/h2-server.js'

describe('HTTP/2: response limits', async () => {
  const server = await startH2cServer((stream, headers) => {
    const path = String(headers[':path'])
    if (path === '/hints') {
      // Bounded: 20 informational heads, then the answer.
      for (let i = 0; i < 20 && !stream.destroyed; i++) stream.additionalHeaders({ ':status': 103, link: `</${i}.css>` })
    }
    respond(stream, 200, path === '/big' ? 'x'.repeat(64 * 1024) : 'ok')
  })
  after(() => server.close())

  it('fails a stream whose body grows past maxResponseSize with ResponseExceededMaxSizeError', async (t) => {
    const client = new Client(server.origin, { h2c: true, maxResponseSize: 1000 })
    t.after(() => client.destroy())
    assert.equal(await (await client.request({ path: '/small', method: 'GET' })).body.text(), 'ok')
    const res = await client.request({ path: '/big', method: 'GET' })
    await assert.rejects(res.body.text(), (err: Error) => {
      assert.ok(err instanceof ResponseExceededMaxSizeError, String(err))
      assert.equal((err as ResponseExceededMaxSizeError).code, 'LIB_ERR_RES_EXCEEDED_MAX_SIZE')
      assert.match(err.message, /exceeds maxResponseSize \(1000 bytes\)/)
      return true
    })
  })

  it('fails a stream with more informational heads than maxInformationalResponses', async (t) => {
    const strict = new Client(server.origin, { h2c: true, maxInformationalResponses: 5 })
    const lenient = new Client(server.origin, { h2c: true, maxInformationalResponses: 20 })
    t.after(() => Promise.all([strict.destroy(), lenient.destroy()]))
    assert.equal(await (await lenient.request({ path: '/hints', method: 'GET' })).body.text(), 'ok')
    await assert.rejects(strict.request({ path: '/hints', method: 'GET' }), (err: Error) => {
      assert.ok(err instanceof HeadersOverflowError, String(err))
      assert.match(err.message, /more than 5 informational \(1xx\) responses/)
      return true
    })
  })
})
