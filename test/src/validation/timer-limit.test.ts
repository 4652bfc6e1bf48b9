import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Agent, MockAgent, RetryAgent, buildConnector, cacheStores, interceptors } from '../../../src/index.js'
import { MAX_TIMER_MS } from '../../../src/validation/timer-limit.js'

const TOO_LONG = MAX_TIMER_MS + 1

/** Every option that ends up in a timer, built with a given delay. */
const TIMER_OPTIONS: Array<[string, (ms: number) => unknown, RegExp]> = [
  ['Agent headersTimeout', (ms) => new Agent({ headersTimeout: ms }), /^Agent: headersTimeout must be a number of milliseconds from 0 to 2147483647, got /],
  ['Agent keepAliveMaxTimeout', (ms) => new Agent({ keepAliveMaxTimeout: ms }), /^Agent: keepAliveMaxTimeout must be/],
  ['buildConnector timeout', (ms) => buildConnector({ timeout: ms }), /^buildConnector\(\): timeout must be a number of milliseconds from 0 to 2147483647, got /],
  ['retry() maxTimeout', (ms) => interceptors.retry({ maxTimeout: ms }), /^retry\(\): maxTimeout must be a non-negative number of milliseconds up to 2147483647, got /],
  ['retry() minTimeout', (ms) => interceptors.retry({ minTimeout: ms, maxTimeout: ms }), /^retry\(\): m..Timeout must be/],
  ['RetryAgent minTimeout', (ms) => new RetryAgent(new Agent(), { minTimeout: ms }), /^RetryAgent: minTimeout must be/],
  ['snapshot() flushInterval', (ms) => interceptors.snapshot({ flushInterval: ms }), /^snapshot\(\): flushInterval must be a positive integer \(milliseconds\) up to 2147483647, got /],
  ['RedisCacheStore timeoutMs', (ms) => new cacheStores.RedisCacheStore({ timeoutMs: ms, clientOptions: { lazyConnect: true } }), /^RedisCacheStore: timeoutMs must be at most 2147483647 \(milliseconds\), got /],
  ['MockScope delay()', (ms) => new MockAgent().get('http://127.0.0.1:1').intercept({ path: '/' }).reply(200).delay(ms), /^MockScope\.delay\(\): waitInMs must be at most 2147483647, got /]
]

describe('timer limit', () => {
  it('refuses a delay longer than a Node timer holds, which would fire after 1 ms, naming the value', () => {
    for (const [what, build, message] of TIMER_OPTIONS) {
      assert.throws(() => build(TOO_LONG), (err: Error & { code?: string }) => {
        // Stores follow the spec's TypeError for bad options; the rest throw InvalidArgumentError.
        if (what.startsWith('RedisCacheStore')) assert.equal(err.name, 'TypeError', what)
        else assert.equal(err.code, 'LIB_ERR_INVALID_ARG', what)
        assert.match(err.message, message, what)
        assert.match(err.message, new RegExp(`got ${TOO_LONG}$`), what)
        return true
      })
    }
  })

  it('accepts the longest delay a timer holds', async () => {
    for (const [, build] of TIMER_OPTIONS) {
      const built = build(MAX_TIMER_MS)
      if (built instanceof Agent || built instanceof RetryAgent || built instanceof cacheStores.RedisCacheStore) await built.close()
    }
  })
})
