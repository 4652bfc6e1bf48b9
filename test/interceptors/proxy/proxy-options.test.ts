import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { resolveProxy, parseProxyUri } from '../../../interceptors/proxy/proxy-options.js'
import { assertNoProxyAuthorization, proxyAuthorization } from '../../../interceptors/proxy/proxy-auth.js'
import { normalizeHeaders } from '../../../src/handlers/request-headers.js'
import { proxy } from '../../../interceptors/proxy/index.js'

const basic = (text: string): string => `Basic ${Buffer.from(text).toString('base64')}`

describe('proxy options', () => {
  it('accepts a string, a URL and fills in the default port of each scheme', () => {
    assert.equal(resolveProxy('http://proxy.test', {}).port, 80)
    assert.equal(resolveProxy(new URL('https://proxy.test'), {}).port, 443)
    assert.equal(resolveProxy('socks5://proxy.test', {}).port, 1080)
    assert.equal(resolveProxy('http://proxy.test:3128', {}).port, 3128)
  })

  it('rejects a missing uri with LIB_ERR_INVALID_ARG', () => {
    assert.throws(() => parseProxyUri(undefined, 'proxy()'), { code: 'LIB_ERR_INVALID_ARG', message: /uri is required.*got undefined/ })
    assert.throws(() => parseProxyUri('', 'proxy()'), { code: 'LIB_ERR_INVALID_ARG' })
  })

  it('rejects an unparsable uri without repeating its credentials', () => {
    assert.throws(() => resolveProxy('http://user:secret@[bad', {}), (err: Error & { code: string }) => {
      assert.equal(err.code, 'LIB_ERR_INVALID_ARG')
      assert.doesNotMatch(err.message, /secret/)
      assert.match(err.message, /\*\*\*@/)
      return true
    })
  })

  it('rejects an unsupported scheme and names it', () => {
    assert.throws(() => resolveProxy('ftp://proxy.test', {}), { code: 'LIB_ERR_INVALID_ARG', message: /"ftp:"/ })
  })

  it('rejects auth combined with token', () => {
    assert.throws(() => resolveProxy('http://proxy.test', { auth: 'dTpw', token: 'Bearer x' }), { code: 'LIB_ERR_INVALID_ARG', message: /auth cannot be combined with token/ })
  })

  it('rejects a clientFactory that is not a function and names its type', () => {
    assert.throws(() => resolveProxy('http://proxy.test', { clientFactory: 'pool' as never }), { code: 'LIB_ERR_INVALID_ARG', message: /clientFactory must be a function, got "pool"/ })
  })

  it('rejects a non-boolean proxyTunnel, non-string token and non-object TLS options', () => {
    assert.throws(() => resolveProxy('http://p.test', { proxyTunnel: 'yes' as never }), { code: 'LIB_ERR_INVALID_ARG', message: /proxyTunnel/ })
    assert.throws(() => resolveProxy('http://p.test', { token: 42 as never }), { code: 'LIB_ERR_INVALID_ARG', message: /token must be a string, got 42$/ })
    assert.throws(() => resolveProxy('http://p.test', { proxyTls: 'tls' as never }), { code: 'LIB_ERR_INVALID_ARG', message: /proxyTls/ })
  })

  it('strips credentials from the URL and the log label', () => {
    const proxy = resolveProxy('http://user:pass@proxy.test:3128', {})
    assert.equal(proxy.url.href, 'http://proxy.test:3128/')
    assert.equal(proxy.label, 'http://proxy.test:3128')
  })

  it('derives SOCKS settings from the scheme', () => {
    assert.deepEqual(resolveProxy('socks5://u:p@s.test', {}).socks, { version: 5, remoteDns: false, userId: 'u', password: 'p' })
    assert.equal(resolveProxy('socks5h://s.test', {}).socks?.remoteDns, true)
    assert.equal(resolveProxy('socks://s.test', {}).socks?.version, 5)
    assert.deepEqual(resolveProxy('socks4a://id@s.test', {}).socks, { version: 4, remoteDns: true, userId: 'id', password: undefined })
    assert.equal(resolveProxy('http://s.test', {}).socks, null)
  })

  it('rejects header injection through token, auth or headers without echoing the value', () => {
    assert.throws(() => resolveProxy('http://p.test', { token: 'Bearer x\r\nx-evil: 1' }), (err: Error & { code: string }) => {
      assert.equal(err.code, 'LIB_ERR_INVALID_ARG')
      assert.match(err.message, /"proxy-authorization" contains CR, LF or NUL/)
      assert.doesNotMatch(err.message, /Bearer/)
      return true
    })
    assert.throws(() => resolveProxy('http://p.test', { auth: 'abc\n' }), { code: 'LIB_ERR_INVALID_ARG' })
    assert.throws(() => resolveProxy('http://p.test', { headers: { 'x-a': 'v\0' } }), { code: 'LIB_ERR_INVALID_ARG', message: /"x-a"/ })
    assert.throws(() => resolveProxy('http://p.test', { headers: { 'bad name': 'v' } }), { code: 'LIB_ERR_INVALID_ARG', message: /"bad name" is not a valid field name/ })
  })

  it('lower-cases extra proxy headers', () => {
    assert.deepEqual(resolveProxy('http://p.test', { headers: { 'X-Trace': '1' } }).headers, { 'x-trace': '1' })
  })
})

describe('proxy authentication', () => {
  it('prefers token over auth over URI credentials', () => {
    assert.equal(proxyAuthorization({ token: 'Bearer t', username: 'u', password: 'p' }), 'Bearer t')
    assert.equal(proxyAuthorization({ auth: 'YWJj', username: 'u', password: 'p' }), 'Basic YWJj')
    assert.equal(proxyAuthorization({ username: 'u', password: 'p' }), basic('u:p'))
    assert.equal(proxyAuthorization({}), undefined)
  })

  it('uses token over URI credentials when resolving a proxy', () => {
    assert.equal(resolveProxy('http://u:p@p.test', { token: 'Bearer k' }).headers['proxy-authorization'], 'Bearer k')
    assert.equal(resolveProxy('http://u:p@p.test', { auth: 'YWJj' }).headers['proxy-authorization'], 'Basic YWJj')
  })

  it('URL-decodes URI credentials before base64-encoding them', () => {
    const proxy = resolveProxy('http://us%40er:p%3Ass%20w@p.test', {})
    assert.equal(proxy.headers['proxy-authorization'], basic('us@er:p:ss w'))
  })

  it('rejects URI credentials that are not valid percent-encoding', () => {
    assert.throws(() => resolveProxy('http://u:%E0%A4%A@p.test', {}), { code: 'LIB_ERR_INVALID_ARG', message: /password/ })
  })

  it('sends a user name without a password as user:', () => {
    assert.equal(resolveProxy('http://only@p.test', {}).headers['proxy-authorization'], basic('only:'))
  })

  it('throws when request headers carry proxy-authorization in any form', () => {
    for (const headers of [{ 'Proxy-Authorization': 'x' }, ['proxy-authorization', 'x'], [['PROXY-AUTHORIZATION', 'x']]]) {
      assert.throws(() => assertNoProxyAuthorization(normalizeHeaders(headers as never)), { code: 'LIB_ERR_INVALID_ARG', message: /proxy-authorization/ })
    }
    assertNoProxyAuthorization(normalizeHeaders({ authorization: 'x' }))
  })
})

describe('proxy() factory arguments', () => {
  it('throws InvalidArgumentError for a missing or malformed argument', () => {
    assert.throws(() => proxy(undefined as never), { code: 'LIB_ERR_INVALID_ARG', message: /expected a proxy URI or an options object, got undefined/ })
    assert.throws(() => proxy(42 as never), { code: 'LIB_ERR_INVALID_ARG', message: /got 42$/ })
    assert.throws(() => proxy({}), { code: 'LIB_ERR_INVALID_ARG', message: /uri is required/ })
    assert.throws(() => proxy({ httpProxy: 'gopher://x' }), { code: 'LIB_ERR_INVALID_ARG', message: /"gopher:"/ })
  })

  it('accepts per-protocol proxies without a uri, null meaning direct', async () => {
    const interceptor = proxy({ httpProxy: null, httpsProxy: null })
    let direct = 0
    const dispatch = interceptor(() => { direct++; return true })
    dispatch({ origin: 'http://127.0.0.1:9', path: '/', method: 'GET' }, {})
    assert.equal(direct, 1)
    await interceptor.close()
  })

  it('throws InvalidArgumentError when a dispatch has no usable origin', async () => {
    const interceptor = proxy('http://127.0.0.1:9')
    const dispatch = interceptor(() => true)
    assert.throws(() => dispatch({ path: '/', method: 'GET' }, {}), { code: 'LIB_ERR_INVALID_ARG', message: /need an origin, got undefined/ })
    assert.throws(() => dispatch({ origin: 'not a url', path: '/', method: 'GET' }, {}), { code: 'LIB_ERR_INVALID_ARG', message: /"not a url"/ })
    await interceptor.close()
  })
})
