import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { EnvHttpProxyAgent, interceptors, ProxyAgent, Socks5ProxyAgent } from '../../../src/index.js'
import { InvalidArgumentError } from '../../../src/errors.js'
import type { Dispatcher } from '../../../src/index.js'
import { redactUserinfo as redactProxyUri } from '../../../src/observability/redaction.js'
import { freePort } from '../../helpers/free-port.js'
import { errorLeaks } from '../../helpers/secret-scan.js'

// Every fragment of the password between special characters is a secret of its own.
const user = 'usrQ4wz'
const parts = ['Kq7v', 'Wz3m', 'Rt8p']
const SECRETS = [user, ...parts, Buffer.from(`${user}:`).toString('base64').slice(0, 8)]

/** Malformed proxy URIs with credentials: unencoded `/ @ : # ? \`, bad ports, schemes and hosts. */
const MALFORMED = [
  `http://${user}:Kq7v/Wz3m@127.0.0.1:3128`,
  `http://${user}:Kq7v@Wz3m@127.0.0.1:99999`,
  `http://${user}:Kq7v:Wz3m@Rt8p@127.0.0.1:99999`,
  `http://${user}:Kq7v#Wz3m@127.0.0.1:3128`,
  `http://${user}:Kq7v?Wz3m@127.0.0.1:3128`,
  `http://${user}:Kq7v\\Wz3m@127.0.0.1:3128`,
  `http://${user}:Kq7vWz3m@127.0.0.1:99999`,
  `http://${user}:Kq7vWz3m@127.0.0.1:-1`,
  `http://${user}:Kq7vWz3m@127.0.0.1:port`,
  `http://${user}:Kq7vWz3m@127.0.0.1:3128:3129`,
  `ftp://${user}:Kq7vWz3m@127.0.0.1:21`,
  `mailto:${user}:Kq7vWz3m@127.0.0.1`,
  `${user}:Kq7vWz3m@127.0.0.1:3128`,
  `http://${user}:Kq7vWz3m@`,
  `http:${user}:Kq7vWz3m@:3128`,
  `socks5://${user}:Kq7vWz3m@`,
  `socks5://${user}:Kq7vWz3m@/path`,
  `http://${user}:Kq7v%zzWz3m@127.0.0.1:3128`,
  `http://${user}%zz:Kq7vWz3m@127.0.0.1:3128`,
  `http://${user}:Kq7v/Wz3m@[::1:3128`,
  `http://${user}:Kq7vWz3m@host name:3128`,
  `socks5://${user}:Kq7v/Wz3m@127.0.0.1:1080`,
  `socks4://${user}:Kq7v#Wz3m@127.0.0.1:1080`,
  `socks5h://${user}:Kq7v?Wz3m@127.0.0.1:1080`,
  `https://${user}:Kq7v@Wz3m@127.0.0.1:70000`
]

const CONSTRUCTORS: Array<[string, (uri: string) => unknown]> = [
  ['ProxyAgent(uri)', (uri) => new ProxyAgent(uri)],
  ['ProxyAgent({ uri })', (uri) => new ProxyAgent({ uri })],
  ['EnvHttpProxyAgent', (uri) => new EnvHttpProxyAgent({ httpProxy: uri, httpsProxy: uri })],
  ['Socks5ProxyAgent', (uri) => new Socks5ProxyAgent(uri)],
  ['interceptors.proxy', (uri) => interceptors.proxy(uri)]
]

function leaksOf (err: unknown): string[] {
  return errorLeaks(err, SECRETS)
}

describe('proxy credentials in errors', () => {
  it(`keeps every part of the credentials out of every rendering of the errors for ${MALFORMED.length} malformed URIs`, () => {
    assert.ok(MALFORMED.length >= 20)
    const leaks: string[] = []
    for (const uri of MALFORMED) {
      for (const [name, make] of CONSTRUCTORS) {
        let thrown: unknown
        try {
          make(uri)
        } catch (err) {
          thrown = err
        }
        assert.ok(thrown instanceof InvalidArgumentError, `${name} accepted ${uri}`)
        assert.equal((thrown as InvalidArgumentError).code, 'LIB_ERR_INVALID_ARG')
        // The message still says what is wrong, with a `***` where the credentials were.
        assert.match((thrown as Error).message, /uri|proxy/)
        for (const secret of leaksOf(thrown)) leaks.push(`${name} ${uri}: ${secret}`)
      }
    }
    assert.deepEqual(leaks, [])
  })

  it('checks URL objects as strictly as strings, without showing their credentials', () => {
    for (const url of [new URL(`ftp://${user}:Kq7vWz3m@127.0.0.1:21`), new URL(`${user}:Kq7vWz3m@127.0.0.1:3128`), new URL(`mailto:${user}:Kq7vWz3m@127.0.0.1`)]) {
      for (const [name, make] of CONSTRUCTORS) {
        let thrown: unknown
        try {
          make(url as unknown as string)
        } catch (err) {
          thrown = err
        }
        assert.ok(thrown instanceof InvalidArgumentError, `${name} accepted ${url.protocol}`)
        assert.deepEqual(leaksOf(thrown), [])
      }
    }
  })

  it('names the malformed URI with its user information hidden', () => {
    assert.throws(() => new ProxyAgent(`http://${user}:Kq7v/Wz3m@127.0.0.1:99999`), {
      name: 'InvalidArgumentError',
      message: 'proxy(): uri must be a valid URL, got "http://***@127.0.0.1:99999"'
    })
    assert.throws(() => new ProxyAgent(`${user}:Kq7vWz3m@127.0.0.1:3128`), { message: /got "\*\*\*@127\.0\.0\.1:3128"$/ })
    assert.throws(() => new ProxyAgent('ftp://127.0.0.1:21'), { message: /got "ftp:"$/ })
  })

  it('hides the whole user information of any URI, whatever characters the password holds', () => {
    const password = fc.string({ unit: fc.constantFrom('a', 'Z', '9', '/', '@', ':', '#', '?', '\\', '%', ' '), maxLength: 24 })
    fc.assert(fc.property(password, fc.constantFrom('127.0.0.1:3128', 'proxy.test', '[::1]:1080'), (secret, host) => {
      assert.equal(redactProxyUri(`http://${user}:${secret}@${host}`), `http://***@${host}`)
    }), { seed: 16, numRuns: 500 })
  })

  it('keeps the credentials out of connection errors to an unreachable proxy', async (t) => {
    const port = await freePort()
    const agents: Dispatcher[] = [
      new ProxyAgent(`http://${user}:${parts.join('')}@127.0.0.1:${port}`),
      new Socks5ProxyAgent(`socks5://${user}:${parts.join('')}@127.0.0.1:${port}`)
    ]
    t.after(() => Promise.all(agents.map((agent) => agent.close())))
    for (const agent of agents) {
      for (const origin of ['http://127.0.0.1:9', 'https://127.0.0.1:9']) {
        const err = await agent.request({ origin, path: '/', method: 'GET' }).then(() => assert.fail('expected a failure'), (e: unknown) => e)
        assert.ok(err instanceof Error)
        assert.deepEqual(leaksOf(err), [], `${origin}: ${String(err)}`)
      }
    }
  })
})
