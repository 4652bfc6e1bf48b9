import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { SnapshotAgent } from '../../../presets/snapshot-agent.js'
import { fetch } from '../../../src/fetch/fetch.js'
import type { RequestOptions } from '../../../src/api/request.js'
import type { Dispatcher } from '../../../src/dispatcher/dispatcher.js'
import { harProblems } from '../../helpers/har-schema.js'
import { BINARY, EVENTS, GZIP_TEXT, countConnects, fixture, recordingOrigin, tempDir } from './snapshot-test-kit.js'

type T = { after: (fn: () => unknown) => void }

function player (t: T, options: ConstructorParameters<typeof SnapshotAgent>[0]): SnapshotAgent {
  const agent = new SnapshotAgent(options)
  t.after(() => agent.close())
  return agent
}

async function get (agent: Dispatcher, origin: string, path: string, extra: Partial<RequestOptions> = {}) {
  const res = await agent.request({ origin, path, method: 'GET', ...extra } as RequestOptions)
  return { statusCode: res.statusCode, headers: res.headers, body: Buffer.from(await res.body.arrayBuffer()) }
}

describe('HAR files as a snapshot source', () => {
  it('replays a Chromium DevTools export through fetch() and request() without a connection', async (t) => {
    const dir = await tempDir(t)
    const agent = player(t, { mode: 'lockdown', snapshotPath: await fixture(dir, 'chromium-devtools.har') })
    const origin = 'https://api.example.test'
    const attempts = await countConnects(async () => {
      // The browser's own headers (user-agent, sec-ch-ua...) take no part in matching.
      const users = await fetch(`${origin}/v1/users?page=2&sort=name`, { dispatcher: agent })
      assert.equal(users.status, 200)
      assert.deepEqual(await users.json(), { page: 2, users: [{ id: 11, name: 'Ada' }, { id: 12, name: 'Grace' }] })
      // DevTools keeps the text decoded: the gzip coding is gone, the length is what is replayed.
      assert.equal(users.headers.get('content-encoding'), null)
      assert.equal(users.headers.get('content-length'), '68')

      const created = await get(agent, origin, '/v1/users', { method: 'POST', body: '{"name":"Ada"}', headers: { 'content-type': 'application/json' } })
      assert.equal(created.statusCode, 201)
      assert.equal(created.headers.location, '/v1/users/13')
      assert.deepEqual(JSON.parse(created.body.toString()), { id: 13, name: 'Ada' })

      const avatar = await fetch(`${origin}/avatars/11.png`, { dispatcher: agent })
      const png = Buffer.from(await avatar.arrayBuffer())
      assert.deepEqual(png.subarray(0, 8), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
      assert.equal(png.length, 70)

      // Two entries for one request replay as a sequence, in file order.
      assert.equal((await get(agent, origin, '/v1/status')).body.toString(), 'pending')
      assert.equal((await get(agent, origin, '/v1/status')).body.toString(), 'done')
    })
    assert.equal(attempts, 0)
    // A blocked request (status 0) and a WebSocket handshake (101) are not responses to replay.
    await assert.rejects(get(agent, 'https://telemetry.example.test', '/collect', { method: 'POST' }), { code: 'LIB_ERR_SNAPSHOT_NOT_FOUND' })
    await assert.rejects(get(agent, 'wss://api.example.test', '/live'), { code: 'LIB_ERR_SNAPSHOT_NOT_FOUND' })
    assert.equal(agent.getRecorder().size(), 5 - 1)
  })

  it('replays a mitmproxy export: form bodies, base64 content, a secret query parameter and an entry without timings', async (t) => {
    const dir = await tempDir(t)
    const agent = player(t, { mode: 'lockdown', snapshotPath: await fixture(dir, 'mitmproxy.har') })
    const origin = 'http://shop.example.test'
    const cart = await get(agent, origin, '/api/cart')
    assert.deepEqual(JSON.parse(cart.body.toString()), { items: [{ sku: 'A-1', qty: 2 }], n: 2 })
    assert.equal(cart.headers['content-type'], 'application/json')
    assert.equal(cart.headers['set-cookie'], undefined, 'set-cookie is a credential header, left out by default')

    const login = await get(agent, origin, '/login', { method: 'POST', body: 'user=ada&remember=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    assert.equal(login.statusCode, 302)
    assert.equal(login.headers.location, '/account')

    const gif = await fetch(`${origin}/img/logo.gif`, { dispatcher: agent })
    assert.equal(gif.headers.get('content-encoding'), null)
    assert.equal(Buffer.from(await gif.arrayBuffer()).subarray(0, 6).toString('latin1'), 'GIF89a')

    // The key in the URL is matched by name: the run's own key finds the recording.
    const search = await fetch(`${origin}/api/search?q=shoes&api_key=this-runs-own-key`, { dispatcher: agent })
    assert.deepEqual(await search.json(), { results: ['boot'] })
    await assert.rejects(fetch(`${origin}/api/search?q=boots&api_key=k-live-2b9c7d`, { dispatcher: agent }), (err: Error & { cause?: { code?: string } }) => err.cause?.code === 'LIB_ERR_SNAPSHOT_NOT_FOUND')

    const events = await fetch(`${origin}/api/events`, { dispatcher: agent })
    assert.equal(events.headers.get('content-type'), 'text/event-stream')
    assert.equal(await events.text(), 'event: price\ndata: 41\n\nevent: price\ndata: 42\n\n')
  })

  it('keeps a credential header of a HAR file when keepCredentialHeaders names it', async (t) => {
    const dir = await tempDir(t)
    const agent = player(t, { mode: 'lockdown', snapshotPath: await fixture(dir, 'mitmproxy.har'), keepCredentialHeaders: ['set-cookie'] })
    const cart = await get(agent, 'http://shop.example.test', '/api/cart')
    assert.deepEqual(cart.headers['set-cookie'], ['seen=1; Path=/; HttpOnly', 'ab=b; Path=/'])
  })

  it('matches the entries of another tool by the headers matchHeaders names, and only those', async (t) => {
    const dir = await tempDir(t)
    const agent = player(t, { mode: 'lockdown', snapshotPath: await fixture(dir, 'mitmproxy.har'), matchHeaders: ['accept'] })
    const origin = 'http://shop.example.test'
    assert.equal((await get(agent, origin, '/api/events', { headers: { accept: 'text/event-stream', 'x-other': '1' } })).statusCode, 200)
    await assert.rejects(get(agent, origin, '/api/events', { headers: { accept: 'application/json' } }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'LIB_ERR_SNAPSHOT_NOT_FOUND')
      assert.match(err.message, /differs in: header accept \(application\/json vs recorded text\/event-stream\)/)
      return true
    })
  })

  it('exports a real recording as HAR 1.2 that passes the schema check, and replays it as it was recorded', async (t) => {
    const dir = await tempDir(t)
    // The events go out apart: written in one go, a runtime may send them in one segment
    // (Node 24 does), and the recording then holds one chunk.
    const server = await recordingOrigin(t, 25)
    const recorder = new SnapshotAgent({ mode: 'record', snapshotPath: join(dir, 'recorded.json') })
    for (const path of ['/json?page=1', '/bin', '/gz', '/sse', '/trailers']) await get(recorder, server.origin, path)
    await get(recorder, server.origin, '/echo', { method: 'POST', body: '{"name":"ada"}', headers: { 'content-type': 'application/json' } })
    const har = join(dir, 'exported.har')
    await recorder.exportHar(har)
    await recorder.close()
    await server.close()

    const exported = JSON.parse(await readFile(har, 'utf8'))
    assert.deepEqual(harProblems(exported), [])
    assert.equal(exported.log.creator.name, 'conduit')
    const byPath = (path: string) => exported.log.entries.find((e: { request: { url: string } }) => new URL(e.request.url).pathname === path)
    assert.equal(byPath('/gz').response.content.text, GZIP_TEXT, 'content is decoded, as HAR keeps it')
    assert.ok(byPath('/gz').response.content.compression > 0)
    assert.equal(byPath('/bin').response.content.encoding, 'base64')
    assert.deepEqual(Buffer.from(byPath('/bin').response.content.text, 'base64'), BINARY)
    assert.deepEqual(byPath('/sse').response._chunks.map((c: { bytes: number }) => c.bytes), EVENTS.map((e) => e.length))
    assert.deepEqual(byPath('/trailers').response._trailers, [{ name: 'x-checksum', value: 'abc' }])
    assert.deepEqual(byPath('/echo').request.postData, { mimeType: 'application/json', text: '{"name":"ada"}' })
    assert.deepEqual(byPath('/json').request.queryString, [{ name: 'page', value: '1' }])

    const agent = player(t, { mode: 'lockdown', snapshotPath: har })
    await agent.loadSnapshots()
    const attempts = await countConnects(async () => {
      assert.deepEqual(JSON.parse((await get(agent, server.origin, '/json?page=1')).body.toString()), { ok: true, url: '/json?page=1' })
      assert.deepEqual((await get(agent, server.origin, '/bin')).body, BINARY)
      const gz = await get(agent, server.origin, '/gz')
      assert.equal(gz.body.toString(), GZIP_TEXT)
      assert.equal(gz.headers['content-encoding'], undefined)
      const echoed = await get(agent, server.origin, '/echo', { method: 'POST', body: '{"name":"ada"}', headers: { 'content-type': 'application/json' } })
      assert.deepEqual(JSON.parse(echoed.body.toString()), { method: 'POST', url: '/echo', body: '{"name":"ada"}' })
      assert.equal((await get(agent, server.origin, '/sse')).body.toString(), EVENTS.join(''))
    })
    assert.equal(attempts, 0)
    const sse = agent.getRecorder().getSnapshots().find((e) => e.request.url.endsWith('/sse'))
    assert.deepEqual(sse?.responses[0]?.chunks?.map((c) => Buffer.from(c, 'base64').toString()), EVENTS, 'the chunk boundaries came back')
    const trailers = agent.getRecorder().getSnapshots().find((e) => e.request.url.endsWith('/trailers'))
    assert.deepEqual(trailers?.responses[0]?.trailers, { 'x-checksum': 'abc' })
  })

  it('reads and writes a .har snapshotPath as HAR: recorded in update mode, replayed in playback', async (t) => {
    const dir = await tempDir(t)
    const server = await recordingOrigin(t)
    const file = join(dir, 'session.har')
    const recorder = new SnapshotAgent({ mode: 'update', snapshotPath: file })
    await get(recorder, server.origin, '/count')
    await get(recorder, server.origin, '/json')
    await recorder.close()
    const written = JSON.parse(await readFile(file, 'utf8'))
    assert.deepEqual(harProblems(written), [])
    assert.equal(written.log.entries.length, 2)

    const agent = player(t, { mode: 'playback', snapshotPath: file })
    assert.equal((await get(agent, server.origin, '/count')).body.toString(), 'hit 1')
    assert.equal((await get(agent, server.origin, '/count')).body.toString(), 'hit 1')
    assert.equal(server.hits(), 1)
  })

  it('fails every bad HAR file with a SnapshotFileError naming the file, the entry and the field', async (t) => {
    const dir = await tempDir(t)
    const chromium = await readFile(await fixture(dir, 'chromium-devtools.har'), 'utf8')
    const entry = (patch: (e: Record<string, any>) => void): string => {
      const har = JSON.parse(chromium)
      patch(har.log.entries[0])
      return JSON.stringify(har)
    }
    const cases: Array<{ name: string, content: string, entry?: number, field?: string, message: RegExp }> = [
      { name: 'cut short', content: chromium.slice(0, chromium.length / 2), message: /is not valid JSON: it ends inside its JSON \(the file was cut short\)/ },
      { name: 'not JSON', content: '{"log": {"version": "1.2",, }}', message: /is not valid JSON: malformed JSON at line 1, column \d+/ },
      { name: 'wrong version', content: chromium.replace('"version": "1.2"', '"version": "2.0"'), field: 'log.version', message: /log\.version must be "1\.2" or "1\.1", got "2\.0"/ },
      { name: 'no version', content: JSON.stringify({ log: { creator: { name: 'x', version: '1' }, entries: [] } }), field: 'log.version', message: /log\.version must be "1\.2" or "1\.1", got undefined/ },
      { name: 'no entries', content: JSON.stringify({ log: { version: '1.2' } }), field: 'log.entries', message: /log\.entries must be an array, got undefined/ },
      { name: 'no log', content: '[]', field: '', message: /the content must be an object with a log, got an array/ },
      { name: 'no url', content: entry((e) => { delete e.request.url }), entry: 0, field: 'request.url', message: /entry 0: request\.url must be a string, got undefined/ },
      { name: 'relative url', content: entry((e) => { e.request.url = '/v1/users' }), entry: 0, field: 'request.url', message: /entry 0: request\.url must be an absolute URL/ },
      { name: 'no method', content: entry((e) => { e.request.method = '' }), entry: 0, field: 'request.method', message: /entry 0: request\.method must be a non-empty string/ },
      { name: 'no response', content: entry((e) => { delete e.response }), entry: 0, field: 'response', message: /entry 0: response must be an object, got undefined/ },
      { name: 'status as text', content: entry((e) => { e.response.status = '200' }), entry: 0, field: 'response.status', message: /entry 0: response\.status must be an integer status code, got string/ },
      { name: 'headers not a list', content: entry((e) => { e.response.headers = { 'content-type': 'text/plain' } }), entry: 0, field: 'response.headers', message: /entry 0: response\.headers must be an array of \{ name, value \}, got object/ },
      { name: 'header without value', content: entry((e) => { e.request.headers[4] = { name: 'accept' } }), entry: 0, field: 'request.headers[4].value', message: /entry 0: request\.headers\[4\]\.value must be a string, got undefined/ },
      { name: 'no content', content: entry((e) => { delete e.response.content }), entry: 0, field: 'response.content', message: /entry 0: response\.content must be an object, got undefined/ },
      { name: 'unknown encoding', content: entry((e) => { e.response.content.encoding = 'gzip' }), entry: 0, field: 'response.content.encoding', message: /entry 0: response\.content\.encoding must be "base64" when present, got "gzip"/ },
      { name: 'bad base64', content: entry((e) => { e.response.content.encoding = 'base64'; e.response.content.text = '{not base64}' }), entry: 0, field: 'response.content.text', message: /entry 0: response\.content\.text must be base64/ },
      { name: 'no start time', content: entry((e) => { delete e.startedDateTime }), entry: 0, field: 'startedDateTime', message: /entry 0: startedDateTime must be an ISO 8601 date, got undefined/ },
      { name: 'negative timing', content: entry((e) => { e.timings.wait = -5 }), entry: 0, field: 'timings.wait', message: /entry 0: timings\.wait must be a non-negative number of milliseconds, got -5/ },
      { name: 'chunks that do not add up', content: entry((e) => { e.response._chunks = [{ bytes: 3, delayMs: 0 }] }), entry: 0, field: 'response._chunks', message: /entry 0: response\._chunks must add up to the 68 bytes of the content, got 3/ }
    ]
    for (const one of cases) {
      const file = join(dir, `${one.name.replace(/ /g, '-')}.har`)
      await writeFile(file, one.content)
      const check = (err: Error & { code?: string, path?: string, entry?: unknown, field?: unknown }): boolean => {
        assert.equal(err.code, 'LIB_ERR_SNAPSHOT_FILE', one.name)
        assert.equal(err.path, file, one.name)
        assert.ok(err.message.startsWith(`HAR file ${file} is not`), `${one.name}: ${err.message}`)
        assert.match(err.message, one.message, one.name)
        assert.equal(err.entry, one.entry, one.name)
        assert.equal(err.field, one.field, one.name)
        return true
      }
      const agent = player(t, { mode: 'playback', snapshotPath: file })
      await assert.rejects(agent.loadSnapshots(), check)
      // A request waiting for the automatic load gets the same error.
      const fresh = player(t, { mode: 'playback', snapshotPath: file })
      await assert.rejects(get(fresh, 'https://api.example.test', '/v1/status'), check)
    }
  })
})
