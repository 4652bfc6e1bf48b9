import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import diagnosticsChannel from 'node:diagnostics_channel'
import { CHANNEL_NAMES } from '../../src/diagnostics.js'
import { SnapshotNotFoundError } from '../../src/errors.js'
import { runScriptWithNodeDebug } from '../helpers/debug-child.js'
import { errorLeaks, secretsIn } from '../helpers/secret-scan.js'
import { runSecretTraffic, SECRETS } from './secret-traffic.js'

/** Every channel a request or a proxy publishes on, the library's own and the proxy's. */
const CHANNELS = [...CHANNEL_NAMES, 'conduit:proxy:connected']

describe('planted credentials (URL user information, authorization, proxy-authorization, cookie, set-cookie, tokens, API keys)', () => {
  it('never appear in an error of any interceptor or preset, its cause chain, inspect(), JSON or snapshot-miss differences', async () => {
    const { errors, failures } = await runSecretTraffic()
    assert.ok(failures >= 25 && errors.size >= failures, `${errors.size} of ${failures} failure scenarios failed`)
    const leaks: string[] = []
    for (const [scenario, err] of errors) {
      for (const secret of errorLeaks(err, SECRETS)) leaks.push(`${scenario}: ${secret}`)
    }
    assert.deepEqual(leaks, [])
    // The playback miss explains itself without showing either Authorization value.
    const miss = errors.get('SnapshotAgent playback miss')
    assert.ok(miss instanceof SnapshotNotFoundError, String(miss))
    assert.ok(miss.differences.some((d) => d.startsWith('header authorization ([redacted] vs recorded [redacted])')), miss.differences.join('; '))
  })

  it('never appear in a diagnostics channel message or an interceptors.debug() line', async (t) => {
    const leaks: string[] = []
    const published = new Set<string>()
    for (const name of CHANNELS) {
      // Scanned at publish time; the socket is the raw connection, whose buffers hold the request as sent.
      const listener = (message: unknown): void => {
        published.add(name)
        const { socket: _socket, ...shown } = message as Record<string, unknown>
        for (const secret of secretsIn(shown, SECRETS)) leaks.push(`${name}: ${secret}`)
      }
      diagnosticsChannel.subscribe(name, listener)
      t.after(() => diagnosticsChannel.unsubscribe(name, listener))
    }
    const { lines } = await runSecretTraffic()
    assert.deepEqual(leaks, [])
    assert.ok(['conduit:request:create', 'conduit:client:sendHeaders', 'conduit:request:headers', 'conduit:request:error'].every((name) => published.has(name)), [...published].join(', '))
    assert.ok(lines.some((line) => line.includes('http://***@127.0.0.1')), 'the debug lines name the origin, masked')
    assert.deepEqual(secretsIn(lines, SECRETS), [])
  })

  it('never appear in the NODE_DEBUG log of the core, fetch and every interceptor', () => {
    const result = runScriptWithNodeDebug(new URL('./secret-traffic-child.js', import.meta.url), 'conduit,conduit:*,fetch', 100_000)
    assert.equal(result.status, 0, result.stderr)
    assert.match(result.stdout, /failed scenarios: \d+/)
    for (const namespace of ['CONDUIT', 'CONDUIT:RETRY', 'CONDUIT:CACHE', 'CONDUIT:REDIRECT', 'CONDUIT:DNS', 'CONDUIT:PROXY', 'CONDUIT:DECOMPRESS', 'CONDUIT:DUMP', 'FETCH']) {
      assert.match(result.stderr, new RegExp(`^${namespace} \\d+: `, 'm'), `${namespace} logged`)
    }
    assert.match(result.stderr, /CONDUIT:RETRY \d+: .*http:\/\/\*\*\*@127\.0\.0\.1/)
    assert.deepEqual(secretsIn([result.stderr, result.stdout], SECRETS), [])
  })
})
