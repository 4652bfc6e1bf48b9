import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { indexUrl, runWithNodeDebug } from '../helpers/debug-child.js'

describe('interceptor logs and an origin with user:password', () => {
  it('never print the password under NODE_DEBUG=conduit*, with every interceptor composed and a SQLite cache', async () => {
    const script = `
      import http from 'node:http'
      import { mkdtemp, readFile, rm } from 'node:fs/promises'
      import { tmpdir } from 'node:os'
      import { join } from 'node:path'
      import * as conduit from ${JSON.stringify(indexUrl)}
      const server = http.createServer((req, res) => {
        if (req.url === '/moved') { res.writeHead(302, { location: '/x?y=1' }); res.end(); return }
        res.setHeader('cache-control', 'max-age=60')
        res.end('ok')
      })
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
      const dir = await mkdtemp(join(tmpdir(), 'conduit-log-secrets-'))
      const store = new conduit.cacheStores.SqliteCacheStore({ location: join(dir, 'cache.db') })
      const { cache, retry, deduplicate, dns, debug, redirect, decompress, responseError, deadline, circuitBreaker, rateLimit, hedge } = conduit.interceptors
      const agent = new conduit.Agent()
      const dispatcher = agent.compose(rateLimit({ rate: 100 }), circuitBreaker(), hedge({ delayMs: 0 }), debug(), redirect({ maxRedirections: 2 }), retry(), deduplicate(), dns(), decompress(), responseError(), cache({ store }), deadline({ timeoutMs: 60_000 }))
      const origin = 'http://u:LgPw8q@127.0.0.1:' + server.address().port
      const bodies = []
      for (const path of ['/moved', '/x?y=1', '/x?y=1']) {
        const res = await dispatcher.request({ origin, path, method: 'GET' })
        bodies.push(await res.body.text())
      }
      store.close()
      const file = await readFile(join(dir, 'cache.db'), 'latin1')
      await agent.close()
      server.close()
      await rm(dir, { recursive: true, force: true })
      process.stderr.write('bodies ' + bodies.join(',') + '\\nstore ' + (file.includes('LgPw8q') ? 'has the password' : 'clean') + '\\n')
    `
    const { code, stderr } = await runWithNodeDebug(script, 'conduit*')
    assert.equal(code, 0, stderr)
    assert.match(stderr, /bodies ok,ok,ok/)
    assert.match(stderr, /store clean/)
    // The debug() interceptor and the redirect log both name the URL, with the credentials masked.
    assert.match(stderr, /sending request to GET http:\/\/\*\*\*@127\.0\.0\.1:\d+\/moved/)
    assert.match(stderr, /CONDUIT:REDIRECT \d+: following 302 from http:\/\/\*\*\*@127\.0\.0\.1:\d+\/moved/)
    assert.match(stderr, /CONDUIT:CACHE/)
    assert.match(stderr, /CONDUIT:HEDGE \d+: GET http:\/\/\*\*\*@127\.0\.0\.1:\d+\/\S+ unanswered after 0ms/)
    assert.doesNotMatch(stderr, /LgPw8q/)
  })
})
