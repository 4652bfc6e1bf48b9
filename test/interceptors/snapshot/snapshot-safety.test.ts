import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import fc from 'fast-check'
import { SnapshotAgent } from '../../../presets/snapshot-agent.js'
import type { RequestOptions } from '../../../src/api/request.js'
import type { Dispatcher } from '../../../src/dispatcher/dispatcher.js'
import { isSecretQueryParameter } from '../../../src/observability/redaction.js'
import { redactQuery, secretParameterTest } from '../../../interceptors/snapshot/query-redaction.js'
import { secretKinds } from '../../../interceptors/snapshot/secret-scan.js'
import { startHttpServer } from '../../helpers/servers.js'
import { tempDir } from './snapshot-test-kit.js'

const TOKEN = 'Tk9fQ2xlYXJMZWFrMDAx'
const AWS_KEY = 'AKIAQX7EXAMPLE0LEAK1'

async function text (agent: Dispatcher, origin: string, path: string, extra: Partial<RequestOptions> = {}): Promise<string> {
  const res = await agent.request({ origin, path, method: 'GET', ...extra } as RequestOptions)
  return res.body.text()
}

/** An origin that sets a cookie, answers /leak with a token in its body, and echoes the query otherwise. */
async function origin (t: { after: (fn: () => unknown) => void }) {
  const server = await startHttpServer((req, res) => {
    res.setHeader('set-cookie', `session=${TOKEN}; HttpOnly`)
    res.setHeader('x-auth-token', TOKEN)
    if (req.url === '/leak') { res.end(JSON.stringify({ note: `use Bearer ${TOKEN}${TOKEN}` })); return }
    if (req.url === '/aws') { res.end(`aws key ${AWS_KEY}`); return }
    res.end(`query ${new URL(req.url ?? '/', 'http://x').search}`)
  })
  t.after(() => server.close())
  return server
}

describe('snapshot files are safe by default', () => {
  it('leaves credential headers out of the file and out of matching, so replay works with any token', async (t) => {
    const dir = await tempDir(t)
    const file = join(dir, 'safe.json')
    const server = await origin(t)
    const recorder = new SnapshotAgent({ mode: 'record', snapshotPath: file })
    const headers = { authorization: `Bearer ${TOKEN}`, cookie: `sid=${TOKEN}`, 'x-api-key': TOKEN, 'Private-Token': TOKEN, accept: 'text/plain' }
    await text(recorder, server.origin, '/data', { headers })
    await recorder.close()
    const saved = await readFile(file, 'utf8')
    assert.ok(!saved.includes(TOKEN), saved)
    const entry = JSON.parse(saved)[0].snapshot
    assert.deepEqual(entry.request.headers, { accept: 'text/plain' })
    assert.deepEqual(Object.keys(entry.responses[0].headers).filter((name) => name === 'set-cookie' || name === 'x-auth-token'), [])

    const player = new SnapshotAgent({ mode: 'lockdown', snapshotPath: file })
    t.after(() => player.close())
    assert.equal(await text(player, server.origin, '/data', { headers: { accept: 'text/plain', authorization: 'Bearer another-runs-token' } }), 'query ')
  })

  it('records a credential header that keepCredentialHeaders names, matching on it, and scans none of its values', async (t) => {
    const dir = await tempDir(t)
    const file = join(dir, 'kept.json')
    const server = await origin(t)
    const recorder = new SnapshotAgent({ mode: 'record', snapshotPath: file, keepCredentialHeaders: ['Authorization'] })
    await text(recorder, server.origin, '/data', { headers: { authorization: `Bearer ${TOKEN}`, cookie: 'sid=1' } })
    await recorder.close()
    const entry = JSON.parse(await readFile(file, 'utf8'))[0].snapshot
    assert.deepEqual(entry.request.headers, { authorization: `Bearer ${TOKEN}` })

    const player = new SnapshotAgent({ mode: 'playback', snapshotPath: file, keepCredentialHeaders: ['authorization'] })
    t.after(() => player.close())
    await assert.rejects(text(player, server.origin, '/data', { headers: { authorization: 'Bearer other' } }), { code: 'LIB_ERR_SNAPSHOT_NOT_FOUND' })
    assert.equal(await text(player, server.origin, '/data', { headers: { authorization: `Bearer ${TOKEN}` } }), 'query ')
  })

  it('writes secret-named query values as [redacted] and matches them by name', async (t) => {
    const dir = await tempDir(t)
    const file = join(dir, 'query.json')
    const server = await origin(t)
    const recorder = new SnapshotAgent({ mode: 'record', snapshotPath: file, redactQueryParameters: ['tenant'] })
    await text(recorder, server.origin, `/search?q=shoes&api_key=${TOKEN}&X-Amz-Signature=${TOKEN}&tenant=acme&page=2`)
    await recorder.close()
    const saved = await readFile(file, 'utf8')
    assert.ok(!saved.includes(TOKEN))
    assert.equal(JSON.parse(saved)[0].snapshot.request.url, `${server.origin}/search?q=shoes&api_key=[redacted]&X-Amz-Signature=[redacted]&tenant=[redacted]&page=2`)

    const player = new SnapshotAgent({ mode: 'lockdown', snapshotPath: file, redactQueryParameters: ['tenant'] })
    t.after(() => player.close())
    assert.equal(await text(player, server.origin, '/search?q=shoes&api_key=mine&X-Amz-Signature=sig&tenant=other&page=2'), `query ?q=shoes&api_key=${TOKEN}&X-Amz-Signature=${TOKEN}&tenant=acme&page=2`)
    await assert.rejects(text(player, server.origin, '/search?q=shoes&api_key=mine&X-Amz-Signature=sig&tenant=other&page=3'), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'LIB_ERR_SNAPSHOT_NOT_FOUND')
      assert.ok(!err.message.includes('mine') && !err.message.includes('sig&'), err.message)
      return true
    })
  })

  it('keeps a secret-looking query parameter that keepQueryParameters names', async (t) => {
    const dir = await tempDir(t)
    const file = join(dir, 'kept-query.json')
    const server = await origin(t)
    const recorder = new SnapshotAgent({ mode: 'record', snapshotPath: file, keepQueryParameters: ['pageToken'] })
    await text(recorder, server.origin, '/list?pageToken=p2')
    await recorder.close()
    assert.equal(JSON.parse(await readFile(file, 'utf8'))[0].snapshot.request.url, `${server.origin}/list?pageToken=p2`)
  })

  it('refuses to save a file holding a planted-looking secret, keeps the previous file, and names where without the value', async (t) => {
    const dir = await tempDir(t)
    const file = join(dir, 'scan.json')
    await writeFile(file, '[]\n')
    const server = await origin(t)
    const recorder = new SnapshotAgent({ mode: 'record', snapshotPath: file })
    await text(recorder, server.origin, '/leak')
    await text(recorder, server.origin, '/aws')
    await assert.rejects(recorder.saveSnapshots(), (err: Error & { code?: string, findings?: string[], path?: string }) => {
      assert.equal(err.code, 'LIB_ERR_SNAPSHOT_SECRET')
      assert.equal(err.path, file)
      assert.deepEqual(err.findings, [`GET ${server.origin}/leak response body: a bearer token`, `GET ${server.origin}/aws response body: an AWS access key id`])
      assert.ok(!err.message.includes(TOKEN) && !err.message.includes(AWS_KEY), err.message)
      assert.match(err.message, /allowSecrets: true/)
      return true
    })
    await assert.rejects(recorder.exportHar(join(dir, 'scan.har')), { code: 'LIB_ERR_SNAPSHOT_SECRET' })
    await assert.rejects(recorder.close(), { code: 'LIB_ERR_SNAPSHOT_SECRET' })
    assert.equal(await readFile(file, 'utf8'), '[]\n')
  })

  it('saves such a file with allowSecrets: true', async (t) => {
    const dir = await tempDir(t)
    const file = join(dir, 'allowed.json')
    const server = await origin(t)
    const recorder = new SnapshotAgent({ mode: 'record', snapshotPath: file, allowSecrets: true })
    await text(recorder, server.origin, '/aws')
    await recorder.close()
    assert.equal(Buffer.from(JSON.parse(await readFile(file, 'utf8'))[0].snapshot.responses[0].body, 'base64').toString(), `aws key ${AWS_KEY}`)
  })

  it('rejects bad safety options, naming them', () => {
    assert.throws(() => new SnapshotAgent({ keepCredentialHeaders: 'authorization' as never }), { code: 'LIB_ERR_INVALID_ARG', message: /SnapshotAgent: keepCredentialHeaders must be an array of header names, got "authorization"/ })
    assert.throws(() => new SnapshotAgent({ redactQueryParameters: [1] as never }), { code: 'LIB_ERR_INVALID_ARG', message: /SnapshotAgent: redactQueryParameters must be an array of query parameter names, got/ })
    assert.throws(() => new SnapshotAgent({ allowSecrets: 'yes' as never }), { code: 'LIB_ERR_INVALID_ARG', message: /SnapshotAgent: allowSecrets must be a boolean, got "yes"/ })
  })
})

describe('secret-named query parameters', () => {
  it('are told by the words of their names', () => {
    const cases: Array<[string, boolean]> = [
      ['token', true], ['key', true], ['api_key', true], ['apiKey', true], ['apikey', true], ['access_token', true],
      ['refresh-token', true], ['client_secret', true], ['signature', true], ['X-Amz-Signature', true], ['X-Amz-Credential', true],
      ['X-Amz-Security-Token', true], ['sig', true], ['password', true], ['sessionId', true], ['jwt', true], ['auth', true],
      ['q', false], ['page', false], ['monkey', false], ['keyword', false], ['tokens_left', false], ['sort', false], ['signed', false]
    ]
    for (const [name, secret] of cases) assert.equal(isSecretQueryParameter(name), secret, name)
  })

  it('never reach a redacted query, which keeps every other parameter as it was and is stable when redacted again', () => {
    const isSecret = secretParameterTest([], [])
    const plainName = fc.stringMatching(/^[a-z]{1,8}$/).filter((name) => !isSecretQueryParameter(name))
    const value = fc.stringMatching(/^[A-Za-z0-9%._~-]{0,12}$/)
    const param = fc.oneof(
      fc.tuple(fc.constantFrom('token', 'api_key', 'X-Amz-Signature', 'clientSecret'), fc.stringMatching(/^[A-Za-z0-9]{6,12}$/)).map(([n, v]) => ({ name: n, value: v, secret: true })),
      fc.tuple(plainName, value).map(([n, v]) => ({ name: n, value: v, secret: false }))
    )
    fc.assert(fc.property(fc.array(param, { maxLength: 8 }), (params) => {
      const query = params.map((p) => `${p.name}=${p.value}`).join('&')
      const redacted = redactQuery(query, isSecret)
      const parts = redacted === '' ? [] : redacted.split('&')
      assert.equal(parts.length, params.length)
      params.forEach((p, i) => assert.equal(parts[i], p.secret ? `${p.name}=[redacted]` : `${p.name}=${p.value}`))
      assert.equal(redactQuery(redacted, isSecret), redacted)
    }))
  })
})

describe('the secret scan', () => {
  it('finds planted secrets of every shape it knows, wherever they sit in text', () => {
    const planted: Array<[string, string]> = [
      [`Authorization: Bearer ${TOKEN}`, 'a bearer token'],
      [`Basic ${Buffer.from('ada:lovelace-1843').toString('base64')}`, 'Basic credentials'],
      [AWS_KEY, 'an AWS access key id'],
      ['aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'an AWS secret access key'],
      ['-----BEGIN RSA PRIVATE KEY-----\nMIIE', 'a private key'],
      [`ghp_${'a1B2'.repeat(9)}`, 'a GitHub token'],
      ['xoxb-1234567890-abcdefghij', 'a Slack token'],
      [`sk_live_${'4eC39HqLyjWDarjt'}`, 'a Stripe secret key'],
      [`AIza${'S'.repeat(35)}`, 'a Google API key'],
      ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U', 'a JSON Web Token'],
      ['DATABASE_URL=postgres://app:s3cr3t@db.internal/app', 'a password in a URL']
    ]
    for (const [secret, kind] of planted) {
      fc.assert(fc.property(fc.string({ maxLength: 20 }).map((s) => s.replace(/[A-Za-z0-9+/=_-]$/, ' ')), fc.string({ maxLength: 20 }).map((s) => s.replace(/^[A-Za-z0-9+/=_.-]/, ' ')), (before, after) => {
        assert.ok(secretKinds(`${before} ${secret} ${after}`).includes(kind), `${kind} in ${JSON.stringify(before + secret + after)}`)
      }), { numRuns: 30 })
    }
  })

  it('leaves ordinary headers and bodies alone', () => {
    for (const text of ['Bearer realm="api", error="invalid_token"', 'Basic realm="private"', 'keys: AKIA', '{"token_type":"bearer","expires_in":3600}', 'https://example.org/path@v2', 'the bearer of this letter']) {
      assert.deepEqual(secretKinds(text), [], text)
    }
  })
})
