import { describe, it, after } from 'node:test'
import assert from 'node:assert/strict'
import type http2 from 'node:http2'
import { H2CClient } from '../../../src/index.js'
import type { DispatchController } from '../../../src/index.js'
import { SWEPT_MIN_MS } from '../../../src/h2/stream-timer.js'
import { startH2cServer, respond } from '../../helpers/h2-server.js'

// Timeouts of SWEPT_MIN_MS and more are counted by the session's sweep, not a timer per stream:
// they fire, they restart with each body chunk, and they stand still while the handler pauses.
describe('HTTP/2: headersTimeout and bodyTimeout long enough for the session sweep', async () => {
  const held: http2.ServerHttp2Stream[] = []
  const timers: NodeJS.Timeout[] = []
  const server = await startH2cServer((stream, headers) => {
    const path = String(headers[':path'])
    if (path === '/hang') {
      held.push(stream)
      return
    }
    if (path === '/slow-body' || path === '/held-body') {
      stream.respond({ ':status': 200 })
      stream.write('first')
      held.push(stream)
      return
    }
    if (path === '/trickle') {
      // A chunk well within the body timeout each time, for longer than the timeout in all.
      stream.respond({ ':status': 200 })
      let sent = 0
      const timer = setInterval(() => {
        if (stream.destroyed) return clearInterval(timer)
        if (++sent < 12) return stream.write('t')
        clearInterval(timer)
        stream.end('t')
      }, SWEPT_MIN_MS / 10)
      timers.push(timer)
      return
    }
    respond(stream, 200, 'ok')
  })
  after(async () => {
    for (const timer of timers) clearInterval(timer)
    for (const s of held) s.destroy()
    await server.close()
  })

  it('fails a missing head with a HeadersTimeoutError and a stalled body with a BodyTimeoutError, naming the timeout; the session goes on', async () => {
    const client = new H2CClient(server.origin, { headersTimeout: SWEPT_MIN_MS, bodyTimeout: SWEPT_MIN_MS })
    after(() => client.close())
    const head = client.request({ path: '/hang', method: 'GET' })
    const body = client.request({ path: '/slow-body', method: 'GET' }).then((res) => res.body.text())
    const ok = await client.request({ path: '/', method: 'GET' })
    assert.equal(await ok.body.text(), 'ok')
    const sessions = server.sessions
    await assert.rejects(head, (err: Error & { code?: string }) => {
      assert.equal(err.code, 'LIB_ERR_HEADERS_TIMEOUT')
      assert.match(err.message, new RegExp(`within ${SWEPT_MIN_MS} ms \\(headersTimeout\\)`))
      return true
    })
    await assert.rejects(body, (err: Error & { code?: string }) => {
      assert.equal(err.code, 'LIB_ERR_BODY_TIMEOUT')
      assert.match(err.message, new RegExp(`within ${SWEPT_MIN_MS} ms \\(bodyTimeout\\)`))
      return true
    })
    const again = await client.request({ path: '/', method: 'GET' })
    assert.equal(await again.body.text(), 'ok')
    assert.equal(server.sessions, sessions)
  })

  it('lets a body whose chunks keep coming run longer than its bodyTimeout', async () => {
    const client = new H2CClient(server.origin, { bodyTimeout: SWEPT_MIN_MS })
    after(() => client.close())
    const res = await client.request({ path: '/trickle', method: 'GET' })
    assert.equal(await res.body.text(), 't'.repeat(12))
  })

  it('does not count the body timeout while the handler pauses', async () => {
    const client = new H2CClient(server.origin, { bodyTimeout: SWEPT_MIN_MS })
    after(() => client.close())
    const before = held.length
    const outcome = await new Promise<{ status: number, body: string } | Error>((resolve) => {
      let status = 0
      let body = ''
      client.dispatch({ path: '/held-body', method: 'GET' }, {
        onResponseStart (controller: DispatchController, statusCode: number) {
          status = statusCode
          controller.pause()
          // Paused for longer than the body timeout, while the server holds the rest.
          setTimeout(() => {
            held[before]!.end('rest')
            controller.resume()
          }, SWEPT_MIN_MS * 1.5)
        },
        onResponseData (_controller: DispatchController, chunk: Buffer) { body += chunk.toString() },
        onResponseEnd () { resolve({ status, body }) },
        onResponseError (_controller: DispatchController, err: Error) { resolve(err) }
      })
    })
    assert.deepEqual(outcome, { status: 200, body: 'firstrest' })
  })
})
