import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { both } from './harness.js'
import type { Lib } from './harness.js'
import { startHttpServer } from '../helpers/servers.js'
import { startHttpProxy } from '../helpers/http-proxy.js'

/** What a spy `clientFactory` sees of one call. */
interface FactoryCall {
  originIsUrl: boolean
  href: string
  optionKeys: string[]
  connectType: string
}

describe('ProxyAgent clientFactory, differential', () => {
  it('is called once, when the agent is built, with the proxy URL and { connect }, and carries the requests', async (t) => {
    const target = await startHttpServer((req, res) => res.end(`seen ${req.url}`))
    const proxyServer = await startHttpProxy()
    t.after(() => Promise.all([target.close(), proxyServer.close()]))

    const scenario = async (lib: Lib) => {
      const calls: FactoryCall[] = []
      const agent = new lib.ProxyAgent({
        uri: proxyServer.url,
        clientFactory: (origin: URL, opts: { connect: unknown }) => {
          calls.push({ originIsUrl: origin instanceof URL, href: origin.href, optionKeys: Object.keys(opts), connectType: typeof opts.connect })
          return new lib.Pool(origin, opts)
        }
      })
      const atConstruction = calls.slice()
      try {
        const res = await agent.request({ origin: target.origin, path: '/through', method: 'GET' })
        const body = await res.body.text()
        return { atConstruction, afterRequest: calls, status: res.statusCode, body }
      } finally {
        await agent.close()
      }
    }
    const { undici, conduit } = await both(scenario)
    assert.deepEqual(conduit, undici)
    assert.deepEqual(conduit.atConstruction, [{ originIsUrl: true, href: `${proxyServer.url}/`, optionKeys: ['connect'], connectType: 'function' }])
    assert.equal(conduit.body, 'seen /through')
    assert.equal(proxyServer.requests.length, 2)
  })

  it('is not called for a SOCKS proxy, which needs no client of its own', async () => {
    const scenario = async (lib: Lib) => {
      let calls = 0
      const agent = new lib.ProxyAgent({ uri: 'socks5://127.0.0.1:1', clientFactory: (origin: URL, opts: object) => { calls++; return new lib.Pool(origin, opts) } })
      await agent.close()
      return calls
    }
    const { undici, conduit } = await both(scenario)
    assert.equal(conduit, undici)
    assert.equal(conduit, 0)
  })
})
