import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { Agent } from '../../../src/dispatcher/agent.js'
import type { DispatchOptions } from '../../../src/handler.js'
import type { RequestOptions } from '../../../src/api/request.js'
import { snapshot, SnapshotRecorder } from '../../../interceptors/snapshot/index.js'
import type { SnapshotOptions } from '../../../interceptors/snapshot/index.js'
import { resolveSnapshotOptions } from '../../../interceptors/snapshot/snapshot-options.js'
import { createHeaderFilters, formatRequest, hashRequest, urlExclusion } from '../../../interceptors/snapshot/snapshot-matching.js'
import { startHttpServer } from '../../helpers/servers.js'

const ORIGIN = 'http://127.0.0.1:9'

function recorder (opts: SnapshotOptions = {}): SnapshotRecorder {
  return new SnapshotRecorder(resolveSnapshotOptions(opts, 'test'))
}

function req (path: string, extra: Partial<DispatchOptions> = {}): DispatchOptions {
  return { origin: ORIGIN, path, method: 'GET', ...extra }
}

const ok = { statusCode: 200, headers: { 'content-type': 'text/plain' }, body: Buffer.from('ok') }

/** Records `recorded`, then tells whether `probe` finds it. */
function finds (opts: SnapshotOptions, recorded: DispatchOptions, probe: DispatchOptions): boolean {
  const r = recorder(opts)
  r.record(recorded, ok)
  return r.findSnapshot(probe) !== undefined
}

describe('snapshot matching options', () => {
  it('matches every header by default, and only the listed ones with matchHeaders', () => {
    const a = req('/', { headers: { 'x-a': '1', 'x-b': '1' } })
    const b = req('/', { headers: { 'x-a': '1', 'x-b': '2' } })
    assert.equal(finds({}, a, b), false)
    assert.equal(finds({ matchHeaders: ['X-A'] }, a, b), true)
    assert.equal(finds({ matchHeaders: ['x-b'] }, a, b), false)
  })

  it('leaves ignoreHeaders out of matching', () => {
    const a = req('/', { headers: { 'x-request-id': '1', accept: 'json' } })
    assert.equal(finds({ ignoreHeaders: ['X-Request-Id'] }, a, req('/', { headers: { 'x-request-id': '2', accept: 'json' } })), true)
    assert.equal(finds({ ignoreHeaders: ['x-request-id'] }, a, req('/', { headers: { 'x-request-id': '2', accept: 'xml' } })), false)
  })

  it('leaves excludeHeaders out of matching and out of the stored request, response and trailers', () => {
    const r = recorder({ excludeHeaders: ['Authorization', 'set-cookie', 'x-secret-trailer'] })
    r.record(req('/', { headers: { authorization: 'Bearer one' } }), { ...ok, headers: { 'set-cookie': 's=1', 'x-kept': 'k' }, trailers: { 'x-secret-trailer': 't' } })
    const found = r.findSnapshot(req('/', { headers: { Authorization: 'Bearer two' } }))
    assert.ok(found)
    assert.deepEqual(found.request.headers, {})
    assert.deepEqual(found.response.headers, { 'x-kept': 'k' })
    assert.deepEqual(found.response.trailers, {})
  })

  it('compares header names exactly with caseSensitive, and ignores their case otherwise', () => {
    const a = req('/', { headers: { 'X-Api': '1', other: 'a' } })
    const b = req('/', { headers: { 'X-Api': '1', other: 'b' } })
    assert.equal(finds({ matchHeaders: ['OTHER'] }, a, b), false)
    assert.equal(finds({ matchHeaders: ['OTHER'], caseSensitive: true }, a, b), true)
    assert.equal(finds({ matchHeaders: ['other'], caseSensitive: true }, a, b), false)
    assert.equal(finds({ caseSensitive: true }, req('/', { headers: { 'X-Api': '1' } }), req('/', { headers: { 'x-api': '1' } })), false)
    assert.equal(finds({}, req('/', { headers: { 'X-Api': '1' } }), req('/', { headers: [['x-api', '1']] as never })), true)
  })

  it('matches the body unless matchBody is false, and through normalizeBody when given', () => {
    const a = req('/', { method: 'POST', body: '{"id":1,"at":"10:00"}' })
    const b = req('/', { method: 'POST', body: '{"id":1,"at":"11:00"}' })
    assert.equal(finds({}, a, b), false)
    assert.equal(finds({ matchBody: false }, a, b), true)
    const dropTime = (body: string | Buffer | null | undefined): string => {
      const data = JSON.parse(String(body)) as Record<string, unknown>
      delete data.at
      return JSON.stringify(data)
    }
    assert.equal(finds({ normalizeBody: dropTime }, a, b), true)
    assert.equal(finds({ normalizeBody: dropTime }, a, req('/', { method: 'POST', body: '{"id":2,"at":"10:00"}' })), false)
    assert.equal(finds({}, req('/', { method: 'POST', body: Buffer.from('same') }), req('/', { method: 'POST', body: 'same' })), true)
  })

  it('matches the query unless matchQuery is false, and through normalizeQuery when given', () => {
    const a = req('/search?q=cats&ts=1')
    const b = req('/search?q=cats&ts=2')
    assert.equal(finds({}, a, b), false)
    assert.equal(finds({ matchQuery: false }, a, b), true)
    const withoutTs = (query: URLSearchParams): string => {
      query.delete('ts')
      query.sort()
      return query.toString()
    }
    assert.equal(finds({ normalizeQuery: withoutTs }, a, b), true)
    assert.equal(finds({ normalizeQuery: withoutTs }, a, req('/search?q=dogs&ts=1')), false)
    assert.equal(finds({ normalizeQuery: withoutTs }, req('/search?b=1&a=2'), req('/search', { query: { a: 2, b: 1 } })), true)
  })

  it('asks shouldRecord before recording and shouldPlayback before replaying', () => {
    const r = recorder({ shouldRecord: (o) => !o.path.startsWith('/private'), shouldPlayback: (o) => o.method !== 'DELETE' })
    r.record(req('/private/x'), ok)
    r.record(req('/public'), ok)
    r.record(req('/public', { method: 'DELETE' }), ok)
    assert.equal(r.size(), 2)
    assert.ok(r.findSnapshot(req('/public')))
    assert.equal(r.findSnapshot(req('/public', { method: 'DELETE' })), undefined)
  })

  it('excludes URLs by case-insensitive substring or by RegExp', () => {
    const excluded = urlExclusion(['/HEALTH', /\/v\d+\/metrics$/])
    assert.equal(excluded('http://h/api/health?x=1'), true)
    assert.equal(excluded('http://h/v2/metrics'), true)
    assert.equal(excluded('http://h/v2/metrics/x'), false)
    assert.equal(excluded('http://h/users'), false)
    const r = recorder({ excludeUrls: ['health'] })
    r.record(req('/Health'), ok)
    assert.equal(r.size(), 0)
  })

  it('gives a request the same hash however its headers and query are ordered (property)', () => {
    const name = fc.stringMatching(/^x-[a-z]{1,5}$/)
    const value = fc.stringMatching(/^[a-z0-9]{0,5}$/)
    const opts = resolveSnapshotOptions({ normalizeQuery: (q) => { q.sort(); return q.toString() } }, 'test')
    const filters = createHeaderFilters(opts)
    fc.assert(fc.property(fc.dictionary(name, value, { maxKeys: 5 }), fc.dictionary(fc.stringMatching(/^[a-z]{1,4}$/), value, { maxKeys: 4 }), (headers, query) => {
      const entries = Object.entries(headers)
      const q = Object.entries(query)
      const one = formatRequest(req('/p', { headers: Object.fromEntries(entries), query: Object.fromEntries(q) }), opts, filters)
      const two = formatRequest(req('/p', { headers: Object.fromEntries([...entries].reverse().map(([k, v]) => [k.toUpperCase(), v])), query: Object.fromEntries([...q].reverse()) }), opts, filters)
      assert.equal(hashRequest(one), hashRequest(two))
    }))
  })

  it('never gives two requests that differ in method, URL or body the same hash (property)', () => {
    const opts = resolveSnapshotOptions({}, 'test')
    const filters = createHeaderFilters(opts)
    const part = fc.stringMatching(/^[a-z0-9]{0,6}$/)
    fc.assert(fc.property(fc.tuple(fc.constantFrom('GET', 'POST'), part, part), fc.tuple(fc.constantFrom('GET', 'POST'), part, part), (x, y) => {
      fc.pre(x.join() !== y.join())
      const a = formatRequest(req(`/${x[1]}`, { method: x[0], body: x[2] }), opts, filters)
      const b = formatRequest(req(`/${y[1]}`, { method: y[0], body: y[2] }), opts, filters)
      assert.notEqual(hashRequest(a), hashRequest(b))
    }))
  })
})

describe('snapshot options against a real server', () => {
  it('never writes an excluded header to the file', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'conduit-snapshot-'))
    const file = join(dir, 'snap.json')
    const server = await startHttpServer((_req, res) => {
      res.setHeader('set-cookie', 'session=SERVER-SECRET')
      res.end('ok')
    })
    const base = new Agent()
    const snap = snapshot({ mode: 'record', snapshotPath: file, excludeHeaders: ['authorization', 'Set-Cookie'] })
    t.after(async () => { await base.close(); await server.close(); await rm(dir, { recursive: true, force: true }) })
    const agent = base.compose(snap)
    const res = await agent.request({ origin: server.origin, path: '/', method: 'GET', headers: { Authorization: 'Bearer CLIENT-SECRET' } })
    assert.equal(res.headers['set-cookie'], 'session=SERVER-SECRET')
    await res.body.dump()
    await snap.recorder.close()
    const content = await readFile(file, 'utf8')
    assert.equal(content.includes('SECRET'), false)
    assert.equal(content.toLowerCase().includes('authorization'), false)
    assert.equal(content.includes('set-cookie'), false)
  })

  it('records an origin with user:password without it, and plays it back for the same origin with or without it', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'conduit-snapshot-'))
    const file = join(dir, 'snap.json')
    const server = await startHttpServer((_req, res) => res.end('recorded'))
    const base = new Agent()
    t.after(async () => { await base.close(); await server.close(); await rm(dir, { recursive: true, force: true }) })
    const withPassword = `http://user:Sn4pPw@127.0.0.1:${server.port}`
    const recording = snapshot({ mode: 'record', snapshotPath: file })
    await (await base.compose(recording).request({ origin: withPassword, path: '/a?q=1', method: 'GET' })).body.dump()
    await recording.recorder.close()
    const content = await readFile(file, 'utf8')
    assert.equal(content.includes('Sn4pPw'), false)
    assert.equal(content.includes('user:'), false)
    assert.ok(content.includes(`"http://127.0.0.1:${server.port}/a?q=1"`), content)
    await server.close()
    const playback = snapshot({ mode: 'playback', snapshotPath: file })
    t.after(() => playback.recorder.close())
    for (const origin of [withPassword, `http://127.0.0.1:${server.port}`]) {
      const res = await base.compose(playback).request({ origin, path: '/a?q=1', method: 'GET' })
      assert.equal(await res.body.text(), 'recorded')
    }
  })

  it('passes excluded URLs through to the network in playback and records nothing for them', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'conduit-snapshot-'))
    const file = join(dir, 'snap.json')
    const server = await startHttpServer((req, res) => res.end(`live ${req.url}`))
    const base = new Agent()
    const snap = snapshot({ mode: 'playback', snapshotPath: file, excludeUrls: ['/LIVE'] })
    t.after(async () => { await snap.recorder.close(); await base.close(); await server.close(); await rm(dir, { recursive: true, force: true }) })
    const agent = base.compose(snap)
    const res = await agent.request({ origin: server.origin, path: '/live/x', method: 'GET' } as RequestOptions)
    assert.equal(await res.body.text(), 'live /live/x')
    await assert.rejects(agent.request({ origin: server.origin, path: '/other', method: 'GET' }), { code: 'LIB_ERR_SNAPSHOT_NOT_FOUND' })
    assert.equal(snap.recorder.size(), 0)
  })
})
