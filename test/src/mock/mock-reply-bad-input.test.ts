import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { MockAgent, fetch } from '../../../src/index.js'

const ORIGIN = 'http://127.0.0.1:7001'

describe('mock reply headers bad input', () => {
  it('refuses reply headers and trailers a real response could not carry, naming the value', () => {
    const agent = new MockAgent()
    const pool = agent.get(ORIGIN)
    const cases: Array<[() => unknown, string]> = [
      [() => pool.intercept({ path: '/' }).reply(200, 'x', { headers: { 'bad name': 'v' } }), 'reply(): headers name must be an HTTP token, got "bad name"'],
      [() => pool.intercept({ path: '/' }).reply(200, 'x', { headers: { 'x-a': 'v\r\nx-b: injected' } }), 'reply(): headers value of x-a must not contain CR, LF or NUL, got "v\\r\\nx-b: injected"'],
      [() => pool.intercept({ path: '/' }).reply(200, 'x', { headers: { 'x-a': ['ok', 'v\0'] } }), 'reply(): headers value of x-a must not contain CR, LF or NUL, got "v\\u0000"'],
      [() => pool.intercept({ path: '/' }).reply(200, 'x', { trailers: { 'x\n': 'v' } }), 'reply(): trailers name must be an HTTP token, got "x\\n"'],
      [() => pool.intercept({ path: '/' }).defaultReplyHeaders({ 'a:b': 'v' }).reply(200), 'reply(): default reply headers name must be an HTTP token, got "a:b"']
    ]
    for (const [register, message] of cases) assert.throws(register, { code: 'LIB_ERR_INVALID_ARG', message })
  })

  it('fails a fetch whose reply callback returns such headers with a TypeError whose cause names the value', async (t) => {
    const agent = new MockAgent()
    agent.disableNetConnect()
    t.after(async () => { await agent.close() })
    agent.get(ORIGIN).intercept({ path: '/cb' }).reply(() => ({ statusCode: 200, data: 'x', responseOptions: { headers: { 'a b': 'v' } } }))
    await assert.rejects(fetch(`${ORIGIN}/cb`, { dispatcher: agent }), (err: Error & { cause?: Error & { code?: string } }) => {
      assert.equal(err.name, 'TypeError')
      assert.equal(err.cause?.code, 'LIB_ERR_INVALID_ARG')
      assert.equal(err.cause?.message, 'reply(): headers name must be an HTTP token, got "a b"')
      return true
    })
  })
})
