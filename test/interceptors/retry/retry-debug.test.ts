import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'

const indexUrl = new URL('../../../interceptors/retry/index.js', import.meta.url).href

// A child process drives one retried request over a scripted transport: a 503, a reset, a 503 again.
const script = `
const { RetryHandler } = await import(${JSON.stringify(indexUrl)})
const outcomes = [[503], ['ECONNRESET'], [503]]
const controller = { aborted: false, paused: false, reason: null, abort () {}, pause () {}, resume () {} }
const opts = { origin: 'http://127.0.0.1:1', path: '/x', method: 'GET' }
const dispatch = (_opts, handler) => {
  const [outcome] = outcomes.shift()
  setImmediate(() => {
    handler.onRequestStart(controller, {})
    if (typeof outcome === 'number') { handler.onResponseStart(controller, outcome, {}, ''); handler.onResponseEnd(controller, {}) }
    else handler.onResponseError(controller, Object.assign(new Error('reset'), { code: outcome }))
  })
  return true
}
const handler = new RetryHandler({ ...opts, retryOptions: { minTimeout: 1, maxRetries: 2 } }, { dispatch, handler: { onResponseError () {} } })
dispatch(opts, handler)
`

function run (env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', script], { env, timeout: 10_000 }, (err, _stdout, stderr) => {
      if (err) reject(err)
      else resolve(stderr)
    })
  })
}

describe('retry debug log', () => {
  it('explains each retry and the final give-up under NODE_DEBUG=conduit:retry', async () => {
    const stderr = await run({ ...process.env, NODE_DEBUG: 'conduit:retry' })
    const lines = stderr.trim().split('\n').map((line) => line.replace(/^CONDUIT:RETRY \d+: /, ''))
    assert.deepEqual(lines, [
      'retrying GET http://127.0.0.1:1/x in 1ms (retry 1 of 2): status 503, backoff',
      'retrying GET http://127.0.0.1:1/x in 2ms (retry 2 of 2): ECONNRESET, backoff',
      'giving up on GET http://127.0.0.1:1/x: maxRetries (2) reached'
    ])
    assert.match(stderr, /^CONDUIT:RETRY \d+: retrying/)
  })

  it('prints nothing when the namespace is not enabled', async () => {
    const env = { ...process.env }
    delete env.NODE_DEBUG
    assert.equal(await run(env), '')
  })
})
