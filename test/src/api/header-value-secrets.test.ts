import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Agent, fetch, Headers, request } from '../../../src/index.js'
import { InvalidArgumentError } from '../../../src/errors.js'
import { errorLeaks } from '../../helpers/secret-scan.js'
import { startTcpServer } from '../../helpers/servers.js'

const SECRET = 'Tk9vQ3xZ'
const BAD_VALUES: Array<[string, string | string[]]> = [
  ['authorization', `Bearer ${SECRET}\r\nx-injected: 1`],
  ['cookie', `sid=${SECRET}\n`],
  ['proxy-authorization', `Basic ${SECRET}\0`],
  ['x-api-key', [`${SECRET}`, `${SECRET}\r`]]
]

function leaksOf (err: unknown): string[] {
  return errorLeaks(err, [SECRET])
}

describe('request header values in errors', () => {
  it('refuses a header value with CR, LF or NUL naming the header and the bad character, never the value (request(), objects and flat arrays)', async (t) => {
    // Nothing may be sent: the server fails the test if a connection carries any byte.
    let received = 0
    const server = await startTcpServer((socket) => socket.on('data', (chunk: Buffer) => { received += chunk.length }))
    t.after(() => server.close())
    const agent = new Agent()
    t.after(() => agent.close())
    for (const [name, value] of BAD_VALUES) {
      for (const headers of [{ [name]: value }, [name, value] as unknown as string[]]) {
        const err = await request(server.origin, { dispatcher: agent, headers }).then(() => null, (e: unknown) => e)
        assert.ok(err instanceof InvalidArgumentError, String(err))
        assert.equal(err.code, 'LIB_ERR_INVALID_ARG')
        assert.match(err.message, new RegExp(`^invalid value for header ${name}: contains CR, LF, NUL or another control character \\(character U\\+00(0D|0A|00) at index \\d+ of \\d+; the value is not shown, as it may be a credential\\)$`))
        assert.deepEqual(leaksOf(err), [], err.message)
      }
    }
    assert.equal(received, 0)
  })

  it('keeps the value out of the TypeError of Headers and fetch(), naming the header and the bad character', async () => {
    for (const [name, value] of BAD_VALUES) {
      const text = Array.isArray(value) ? value[1]! : value
      // Headers trims surrounding whitespace first, so a trailing CR or LF alone is no error.
      const inner = `${text.slice(0, 3)}\n${text.slice(3)}`
      const thrown = [
        await (async () => { try { new Headers().append(name, inner) } catch (err) { return err } })(),
        await fetch('http://127.0.0.1:1/', { headers: { [name]: inner } }).then(() => null, (err: unknown) => err)
      ]
      for (const err of thrown) {
        assert.ok(err instanceof TypeError, String(err))
        assert.match(err.message, new RegExp(`invalid value for header "${name}": character U\\+000A at index 3 of \\d+; the value is not shown`))
        assert.deepEqual(leaksOf(err), [], err.message)
      }
    }
  })
})
