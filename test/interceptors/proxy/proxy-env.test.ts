import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readProxyEnv } from '../../../interceptors/proxy/proxy-env.js'

describe('proxy environment', () => {
  it('reads HTTP_PROXY, HTTPS_PROXY and NO_PROXY', () => {
    const env = { HTTP_PROXY: 'http://h.test:1', HTTPS_PROXY: 'http://s.test:2', NO_PROXY: 'localhost' }
    assert.deepEqual(readProxyEnv({}, env), { httpProxy: 'http://h.test:1', httpsProxy: 'http://s.test:2', noProxy: 'localhost' })
  })

  it('prefers lower-case names over upper-case ones', () => {
    const env = { http_proxy: 'http://lower.test', HTTP_PROXY: 'http://upper.test', no_proxy: 'a', NO_PROXY: 'b' }
    const resolved = readProxyEnv({}, env)
    assert.equal(resolved.httpProxy, 'http://lower.test')
    assert.equal(resolved.noProxy, 'a')
  })

  it('falls back to ALL_PROXY for both protocols', () => {
    assert.deepEqual(readProxyEnv({}, { ALL_PROXY: 'socks5://s.test:1080' }), { httpProxy: 'socks5://s.test:1080', httpsProxy: 'socks5://s.test:1080', noProxy: '' })
  })

  it('uses the http proxy for https targets when nothing else is set', () => {
    assert.equal(readProxyEnv({}, { HTTP_PROXY: 'http://h.test' }).httpsProxy, 'http://h.test')
  })

  it('lets options override the environment, null meaning direct', () => {
    const env = { HTTP_PROXY: 'http://env.test', HTTPS_PROXY: 'http://env.test', NO_PROXY: 'env' }
    assert.deepEqual(readProxyEnv({ httpProxy: 'http://opt.test', httpsProxy: null, noProxy: 'opt' }, env), { httpProxy: 'http://opt.test', httpsProxy: null, noProxy: 'opt' })
  })

  it('treats empty values as unset and reads scheme-less values as http', () => {
    const resolved = readProxyEnv({}, { http_proxy: '', HTTP_PROXY: 'proxy.test:3128' })
    assert.equal(resolved.httpProxy, 'http://proxy.test:3128')
    assert.deepEqual(readProxyEnv({}, {}), { httpProxy: null, httpsProxy: null, noProxy: '' })
  })
})
