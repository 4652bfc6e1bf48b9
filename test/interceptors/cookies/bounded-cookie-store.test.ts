import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { CookieJar, MemoryCookieStore } from 'tough-cookie'
import { BoundedCookieStore, parseCookie } from '../../../src/index.js'
import { undici } from '../../helpers/undici-reference.js'

function jarOf (store: BoundedCookieStore): CookieJar {
  return new CookieJar(store as never)
}

function names (jar: CookieJar, url: string): string[] {
  const header = jar.getCookieStringSync(url)
  return header === '' ? [] : header.split('; ').map((pair) => pair.split('=')[0]!).sort()
}

describe('BoundedCookieStore', () => {
  it('keeps at most maxCookiesPerDomain cookies of one domain, dropping the least recently used first', (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: Date.UTC(2030, 0, 1) })
    const store = new BoundedCookieStore({ maxCookiesPerDomain: 3 })
    const jar = jarOf(store)
    for (const name of ['a', 'b', 'c']) {
      jar.setCookieSync(`${name}=1; Domain=shop.test; Path=/`, 'http://x.shop.test/')
      t.mock.timers.tick(1000)
    }
    // Setting a again makes it the most recently used: b is now the least.
    jar.setCookieSync('a=2; Domain=shop.test; Path=/', 'http://x.shop.test/')
    t.mock.timers.tick(1000)
    jar.setCookieSync('d=1; Domain=shop.test; Path=/', 'http://x.shop.test/')
    assert.equal(store.size, 3)
    assert.deepEqual(names(jar, 'http://www.shop.test/'), ['a', 'c', 'd'])
  })

  it('evicts expired cookies first, then those without Secure, then Secure ones', (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: Date.UTC(2030, 0, 1) })
    const store = new BoundedCookieStore({ maxCookiesPerDomain: 3 })
    const jar = jarOf(store)
    jar.setCookieSync('secure=1; Secure; Path=/', 'https://shop.test/')
    t.mock.timers.tick(10)
    jar.setCookieSync('plain=1; Path=/', 'https://shop.test/')
    t.mock.timers.tick(10)
    jar.setCookieSync('brief=1; Max-Age=1; Path=/', 'https://shop.test/')
    t.mock.timers.tick(5000)
    // brief has expired: it goes first, though plain and secure are older.
    jar.setCookieSync('fourth=1; Path=/', 'https://shop.test/')
    assert.deepEqual(names(jar, 'https://shop.test/'), ['fourth', 'plain', 'secure'])
    t.mock.timers.tick(10)
    // Nothing expired: plain (not Secure) goes before the older secure.
    jar.setCookieSync('fifth=1; Path=/', 'https://shop.test/')
    assert.deepEqual(names(jar, 'https://shop.test/'), ['fifth', 'fourth', 'secure'])
  })

  it('keeps at most maxCookies in all, dropping the least recently used of any domain', (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: Date.UTC(2030, 0, 1) })
    const store = new BoundedCookieStore({ maxCookies: 4 })
    const jar = jarOf(store)
    for (const host of ['a.test', 'b.test', 'c.test', 'd.test', 'e.test']) {
      jar.setCookieSync('id=1; Path=/', `http://${host}/`)
      t.mock.timers.tick(10)
    }
    assert.equal(store.size, 4)
    assert.deepEqual(names(jar, 'http://a.test/'), [])
    assert.deepEqual(names(jar, 'http://e.test/'), ['id'])
  })

  it('defaults to the limits RFC 6265bis asks for at least: 50 per domain and 3000 in all', () => {
    const store = new BoundedCookieStore()
    assert.equal(store.maxCookiesPerDomain, 50)
    assert.equal(store.maxCookies, 3000)
    const jar = jarOf(store)
    for (let i = 0; i < 120; i++) jar.setCookieSync(`c${i}=v; Domain=shop.test; Path=/`, 'http://evil.shop.test/')
    assert.equal(names(jar, 'http://www.shop.test/').length, 50)
  })

  it('does not store a cookie whose name and value pass 4096 characters, the length parseCookie refuses (undici too)', () => {
    const jar = jarOf(new BoundedCookieStore())
    const fits = `n=${'v'.repeat(4095)}`
    const tooLong = `n=${'v'.repeat(4096)}`
    jar.setCookieSync(`${fits}; Path=/`, 'http://shop.test/')
    assert.equal(jar.getCookieStringSync('http://shop.test/'), fits)
    // The longer one is ignored entirely: the cookie stored before stays.
    jar.setCookieSync(`${tooLong}; Path=/`, 'http://shop.test/')
    assert.equal(jar.getCookieStringSync('http://shop.test/'), fits)
    assert.notEqual(parseCookie(fits), null)
    assert.equal(parseCookie(tooLong), null)
    assert.notEqual(undici.parseCookie(fits), null)
    assert.equal(undici.parseCookie(tooLong), null)
  })

  it('refuses limits that are not positive integers with an InvalidArgumentError naming them', () => {
    for (const [name, bad] of [['maxCookiesPerDomain', 0], ['maxCookies', -1], ['maxCookies', 1.5], ['maxCookiesPerDomain', '50']] as const) {
      assert.throws(() => new BoundedCookieStore({ [name]: bad }), {
        code: 'LIB_ERR_INVALID_ARG',
        message: `BoundedCookieStore: ${name} must be a positive integer, got ${typeof bad === 'string' ? `"${bad}"` : bad}`
      })
    }
    assert.throws(() => new BoundedCookieStore(null as never), { code: 'LIB_ERR_INVALID_ARG' })
  })

  it('removes, lists and clears cookies as the jar asks', async () => {
    const store = new BoundedCookieStore()
    const jar = jarOf(store)
    jar.setCookieSync('a=1; Path=/', 'http://shop.test/')
    jar.setCookieSync('b=1; Path=/app', 'http://shop.test/app')
    assert.deepEqual((await jar.serialize()).cookies.map((c) => c.key), ['a', 'b'])
    await store.removeCookies('shop.test', '/app')
    assert.deepEqual(names(jar, 'http://shop.test/app/x'), ['a'])
    jar.removeAllCookiesSync()
    assert.equal(store.size, 0)
  })

  it('answers like tough-cookie\'s own memory store while under its limits, for any cookies and URLs', () => {
    const host = fc.constantFrom('shop.test', 'a.shop.test', 'b.a.shop.test', 'other.test')
    const path = fc.constantFrom('/', '/app', '/app/', '/app/x', '/apple', '/b')
    const cookie = fc.record({
      name: fc.constantFrom('id', 'pref', 'x'),
      value: fc.constantFrom('1', '2', ''),
      domain: fc.option(fc.constantFrom('shop.test', 'a.shop.test', 'other.test'), { nil: undefined }),
      path: fc.option(path, { nil: undefined }),
      from: fc.tuple(host, path)
    })
    fc.assert(fc.property(fc.array(cookie, { maxLength: 30 }), fc.array(fc.tuple(host, path), { minLength: 1, maxLength: 8 }), (cookies, reads) => {
      const ours = jarOf(new BoundedCookieStore())
      const theirs = new CookieJar(new MemoryCookieStore())
      for (const c of cookies) {
        const header = `${c.name}=${c.value}${c.domain === undefined ? '' : `; Domain=${c.domain}`}${c.path === undefined ? '' : `; Path=${c.path}`}`
        const url = `http://${c.from[0]}${c.from[1]}`
        ours.setCookieSync(header, url, { ignoreError: true })
        theirs.setCookieSync(header, url, { ignoreError: true })
      }
      for (const [h, p] of reads) assert.equal(ours.getCookieStringSync(`http://${h}${p}`), theirs.getCookieStringSync(`http://${h}${p}`))
    }), { numRuns: 300 })
  })
})
