import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import diagnosticsChannel from 'node:diagnostics_channel'
import { CHANNEL_NAMES } from '../../../src/diagnostics.js'
import { REDACTED } from '../../../src/observability/redaction.js'
import { runScriptWithNodeDebug } from '../../helpers/debug-child.js'
import { reachableText, secretsIn } from '../../helpers/secret-scan.js'
import { runProxiedSecretTraffic, SECRETS } from './proxy-secret-traffic.js'

describe('proxy credentials and observability', () => {
  it('never publishes a proxy credential on any conduit diagnostics channel', async (t) => {
    const published = new Map<string, number>()
    const leaks: string[] = []
    const redactedHeads: string[] = []
    for (const name of CHANNEL_NAMES) {
      // Scanned at publish time: later the objects (socket buffers included) may have changed.
      const listener = (message: unknown): void => {
        published.set(name, (published.get(name) ?? 0) + 1)
        for (const secret of secretsIn(message, SECRETS)) leaks.push(`${name}: ${secret}`)
        for (const text of reachableText(message)) if (text.includes(`proxy-authorization: ${REDACTED}`)) redactedHeads.push(name)
      }
      diagnosticsChannel.subscribe(name, listener)
      t.after(() => diagnosticsChannel.unsubscribe(name, listener))
    }
    await runProxiedSecretTraffic()
    assert.deepEqual(leaks, [])
    // Every channel was exercised, and the proxy's own requests (CONNECT, absolute-form) were seen redacted.
    assert.deepEqual(CHANNEL_NAMES.filter((name) => !published.has(name) && name !== 'conduit:client:connectError' && !name.startsWith('conduit:websocket:')), [])
    assert.ok(redactedHeads.includes('conduit:client:sendHeaders'))
  })

  it('keeps interceptors.debug() lines free of proxy credentials', async () => {
    const lines = await runProxiedSecretTraffic()
    assert.ok(lines.some((line) => line.startsWith('received response to POST')))
    assert.deepEqual(secretsIn(lines, SECRETS), [])
  })

  it('keeps the NODE_DEBUG log free of proxy credentials', () => {
    const result = runScriptWithNodeDebug(new URL('./proxy-secret-traffic-child.js', import.meta.url), 'conduit,conduit:proxy,fetch', 30_000)
    assert.equal(result.status, 0, result.stderr)
    assert.match(result.stderr, /CONDUIT:PROXY \d+: tunnel to 127\.0\.0\.1:\d+ established/)
    assert.match(result.stderr, /CONDUIT \d+: sending request to CONNECT/)
    assert.deepEqual(secretsIn([result.stderr, result.stdout], SECRETS), [])
  })
})
