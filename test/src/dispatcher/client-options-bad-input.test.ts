import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Agent, Client, Pool } from '../../../src/index.js'
import type { ClientOptions, Dispatcher } from '../../../src/index.js'
import { startHttpServer } from '../../helpers/servers.js'

const ORIGIN = 'http://127.0.0.1:1'
const MAX_TIMER_MS = 2_147_483_647
const ms = (name: string, value: number): [ClientOptions, string] =>
  [{ [name]: value }, `${name} must be a number of milliseconds from 0 to ${MAX_TIMER_MS}, got ${value}`]

/** Each bad option with the message (after the `Who: ` prefix) it must fail with. */
const BAD_OPTIONS: Array<[ClientOptions, string]> = [
  [{ pipelining: -1 }, 'pipelining must be a non-negative integer, got -1'],
  [{ pipelining: 1.5 }, 'pipelining must be a non-negative integer, got 1.5'],
  [{ pipelining: '2' as never }, 'pipelining must be a non-negative integer, got "2"'],
  [{ maxHeaderSize: 0 }, 'maxHeaderSize must be a positive integer, got 0'],
  [{ maxHeaderSize: Number.NaN }, 'maxHeaderSize must be a non-negative integer, got NaN'],
  [{ maxRequestsPerClient: -3 }, 'maxRequestsPerClient must be a non-negative integer, got -3'],
  ms('headersTimeout', Infinity),
  ms('bodyTimeout', Infinity),
  ms('keepAliveTimeout', Infinity),
  ms('keepAliveMaxTimeout', Infinity),
  ms('keepAliveTimeoutThreshold', -1),
  ms('connectTimeout', MAX_TIMER_MS + 1),
  ms('headersTimeout', -1),
  [{ bodyTimeout: '10' as never }, `bodyTimeout must be a number of milliseconds from 0 to ${MAX_TIMER_MS}, got "10"`],
  [{ socketPath: '' }, 'socketPath must be a non-empty string, got ""'],
  [{ socketPath: 5 as never }, 'socketPath must be a non-empty string, got 5'],
  [{ localAddress: 'localhost' }, 'localAddress must be an IP address, got "localhost"'],
  [{ localAddress: '127.0.0.1\r\n' }, 'localAddress must be an IP address, got "127.0.0.1\\r\\n"'],
  [{ strictContentLength: 'yes' as never }, 'strictContentLength must be a boolean, got "yes"'],
  [{ connect: 5 as never }, 'connect must be a function or an object of TLS options, got 5']
]

const CONSTRUCTORS: Array<[string, (options: ClientOptions) => Dispatcher]> = [
  ['Client', (options) => new Client(ORIGIN, options)],
  ['Pool', (options) => new Pool(ORIGIN, options)],
  ['Agent', (options) => new Agent(options)]
]

describe('Client, Pool and Agent option bad input', () => {
  for (const [who, create] of CONSTRUCTORS) {
    it(`${who} throws at construction for each bad client option, naming itself, the option and the value`, () => {
      for (const [options, message] of BAD_OPTIONS) {
        assert.throws(() => create(options), { code: 'LIB_ERR_INVALID_ARG', message: `${who}: ${message}` }, JSON.stringify(options))
      }
    })
  }

  it('Agent and Pool name the value of a bad connections or factory option', () => {
    assert.throws(() => new Agent({ connections: -1 }), { code: 'LIB_ERR_INVALID_ARG', message: 'Agent: connections must be a non-negative integer or null, got -1' })
    assert.throws(() => new Agent({ factory: 'pool' as never }), { code: 'LIB_ERR_INVALID_ARG', message: 'Agent: factory must be a function, got "pool"' })
    assert.throws(() => new Agent(7 as never), { code: 'LIB_ERR_INVALID_ARG', message: 'Agent: options must be an object, got 7' })
    assert.throws(() => new Pool(ORIGIN, { connections: Number.NaN }), { code: 'LIB_ERR_INVALID_ARG', message: 'Pool: connections must be a non-negative integer or null, got NaN' })
    assert.throws(() => new Pool(ORIGIN, 'x' as never), { code: 'LIB_ERR_INVALID_ARG', message: 'Pool: options must be an object, got "x"' })
  })

  it('Agent rejects a bad client option before any request, so no connection is ever opened', async (t) => {
    const server = await startHttpServer((req, res) => res.end('x'))
    t.after(async () => { await server.close() })
    assert.throws(() => new Agent({ headersTimeout: -5 }), { code: 'LIB_ERR_INVALID_ARG', message: /^Agent: headersTimeout .* got -5$/ })
    assert.equal(server.connections, 0)
  })

  it('accepts the longest timeout a timer can hold and still waits for a late response head', async (t) => {
    // Before, an over-long or infinite headersTimeout was accepted and the timer fired after 1 ms.
    const server = await startHttpServer((req, res) => { setTimeout(() => res.end('late'), 30) })
    const agent = new Agent({ headersTimeout: MAX_TIMER_MS, bodyTimeout: MAX_TIMER_MS, keepAliveTimeout: MAX_TIMER_MS })
    t.after(async () => { await agent.close(); await server.close() })
    const { statusCode, body } = await agent.request({ origin: server.origin, path: '/', method: 'GET', headersTimeout: MAX_TIMER_MS })
    assert.equal(statusCode, 200)
    assert.equal(await body.text(), 'late')
  })

  it('rejects a per-request timeout a timer cannot hold, through the request, without opening a connection', async (t) => {
    const server = await startHttpServer((req, res) => res.end('x'))
    const agent = new Agent()
    t.after(async () => { await agent.close(); await server.close() })
    for (const [name, value, shown] of [['headersTimeout', Infinity, 'Infinity'], ['bodyTimeout', MAX_TIMER_MS + 1, String(MAX_TIMER_MS + 1)]] as const) {
      await assert.rejects(agent.request({ origin: server.origin, path: '/', method: 'GET', [name]: value }), {
        code: 'LIB_ERR_INVALID_ARG',
        message: `${name} must be a number of milliseconds from 0 to ${MAX_TIMER_MS}, got ${shown}`
      })
    }
    assert.equal(server.connections, 0)
  })
})
