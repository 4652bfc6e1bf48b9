import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { EnvHttpProxyAgent } from '../../src/index.js'
import type { EnvHttpProxyAgentOptions } from '../../src/index.js'

/** Explicit proxy choices of the wrong type, with the message each must be refused with. */
const BAD_OPTIONS: Array<[unknown, string]> = [
  [5, 'EnvHttpProxyAgent: options must be an object, got 5'],
  [null, 'EnvHttpProxyAgent: options must be an object, got null'],
  [{ noProxy: 5 }, 'EnvHttpProxyAgent: noProxy must be a string, got 5'],
  [{ noProxy: ['localhost'] }, 'EnvHttpProxyAgent: noProxy must be a string, got [object Array]'],
  [{ httpProxy: 8080 }, 'EnvHttpProxyAgent: httpProxy must be a proxy URL string, a URL or null, got 8080'],
  [{ httpsProxy: { host: '127.0.0.1' } }, 'EnvHttpProxyAgent: httpsProxy must be a proxy URL string, a URL or null, got [object Object]']
]

describe('EnvHttpProxyAgent bad input', () => {
  it('throws InvalidArgumentError naming the option and its value, where it used to crash inside the NO_PROXY parser', () => {
    for (const [options, message] of BAD_OPTIONS) {
      assert.throws(() => new EnvHttpProxyAgent(options as EnvHttpProxyAgentOptions), { code: 'LIB_ERR_INVALID_ARG', message }, message)
    }
  })

  it('still accepts null for a protocol proxy, meaning direct', async () => {
    const agent = new EnvHttpProxyAgent({ httpProxy: null, httpsProxy: null, noProxy: '' })
    await agent.close()
  })
})
