import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fc from 'fast-check'
import { loadSnapshotFile, parseSnapshotData, saveSnapshotFile, serializeSnapshots } from '../../stores/snapshot-file-store.js'
import type { SnapshotRecord } from '../../stores/snapshot-file-store.js'

async function tempDir (t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'conduit-snapshot-store-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  return dir
}

function record (url: string, body: Buffer | string, method = 'GET', hash = `h-${method}-${url}`): SnapshotRecord {
  return {
    hash,
    snapshot: {
      request: { method, url, headers: { 'x-b': '2', 'x-a': '1' }, body: '' },
      responses: [{ statusCode: 200, headers: { 'content-type': 'application/octet-stream', accept: 'x' }, body: Buffer.from(body).toString('base64'), trailers: {} }],
      callCount: 3,
      timestamp: '2026-01-01T00:00:00.000Z'
    }
  }
}

describe('snapshot file store', () => {
  it('writes the undici layout, sorted by URL and method, with sorted headers and no call counts', async (t) => {
    const dir = await tempDir(t)
    const file = join(dir, 'snap.json')
    await saveSnapshotFile(file, [record('http://h/b', 'b'), record('http://h/a', 'a', 'POST'), record('http://h/a', 'a')])
    const text = await readFile(file, 'utf8')
    assert.ok(text.endsWith(']\n'))
    const data = JSON.parse(text)
    assert.deepEqual(data.map((e: SnapshotRecord) => `${e.snapshot.request.method} ${e.snapshot.request.url}`), ['GET http://h/a', 'POST http://h/a', 'GET http://h/b'])
    assert.deepEqual(Object.keys(data[0]), ['hash', 'snapshot'])
    assert.deepEqual(Object.keys(data[0].snapshot), ['request', 'responses', 'timestamp'])
    assert.deepEqual(Object.keys(data[0].snapshot.request.headers), ['x-a', 'x-b'])
    assert.deepEqual(Object.keys(data[0].snapshot.responses[0]), ['statusCode', 'headers', 'body', 'bodyEncoding', 'trailers'])
    assert.equal(data[0].snapshot.responses[0].bodyEncoding, 'base64')
    assert.equal(text, serializeSnapshots([record('http://h/a', 'a'), record('http://h/b', 'b'), record('http://h/a', 'a', 'POST')]))
  })

  it('keeps binary bodies byte-exact through save and load', async (t) => {
    const dir = await tempDir(t)
    const file = join(dir, 'bin.json')
    const bytes = randomBytes(4096)
    await saveSnapshotFile(file, [record('http://h/bin', bytes)])
    const loaded = await loadSnapshotFile(file)
    assert.deepEqual(Buffer.from(loaded![0]!.snapshot.responses[0]!.body, 'base64'), bytes)
    assert.equal(loaded![0]!.snapshot.callCount, 0)
  })

  it('creates missing directories and leaves no temporary file behind', async (t) => {
    const dir = await tempDir(t)
    const file = join(dir, 'a', 'b', 'snap.json')
    await saveSnapshotFile(file, [record('http://h/', 'x')])
    assert.deepEqual(await readdir(join(dir, 'a', 'b')), ['snap.json'])
  })

  it('keeps a header named __proto__ as a plain header', () => {
    const [parsed] = parseSnapshotData(JSON.parse('[{"hash":"h","snapshot":{"request":{"method":"GET","url":"http://h/","headers":{"__proto__":"x"}},"responses":[{"statusCode":200,"headers":{},"body":""}]}}]'))
    assert.equal(Object.getPrototypeOf(parsed!.snapshot.request.headers), Object.prototype)
    assert.deepEqual(Object.keys(parsed!.snapshot.request.headers), ['__proto__'])
    assert.match(serializeSnapshots([parsed!]), /"__proto__": "x"/)
  })

  it('loads a missing file as undefined', async (t) => {
    const dir = await tempDir(t)
    assert.equal(await loadSnapshotFile(join(dir, 'none.json')), undefined)
  })

  it('loads the older object layout keyed by hash and a single response', async (t) => {
    const dir = await tempDir(t)
    const file = join(dir, 'legacy.json')
    await writeFile(file, JSON.stringify({ abc: { request: { method: 'GET', url: 'http://h/' }, response: { statusCode: 204, headers: {}, body: '' } } }))
    const loaded = await loadSnapshotFile(file)
    assert.equal(loaded![0]!.hash, 'abc')
    assert.equal(loaded![0]!.snapshot.responses[0]!.statusCode, 204)
  })

  it('names the file and the problem for corrupt JSON', async (t) => {
    const dir = await tempDir(t)
    const file = join(dir, 'corrupt.json')
    await writeFile(file, '[{"hash": "x", ')
    await assert.rejects(loadSnapshotFile(file), (err: Error & { code?: string, path?: string }) => {
      assert.equal(err.code, 'LIB_ERR_SNAPSHOT_FILE')
      assert.equal(err.path, file)
      assert.ok(err.message.includes(file))
      assert.match(err.message, /is not valid JSON/)
      return true
    })
  })

  it('names the file and the field for a foreign layout', async (t) => {
    const dir = await tempDir(t)
    const file = join(dir, 'foreign.json')
    for (const [content, problem] of [
      ['"just a string"', /expected a JSON array of \{ hash, snapshot \} entries, got string/],
      ['[{"hash": "x", "snapshot": {"request": {"method": "GET", "url": "http://h/"}, "responses": []}}]', /entry 0: snapshot\.responses must be a non-empty array/],
      ['[{"hash": "x", "snapshot": {"request": {"method": "GET", "url": "http://h/"}, "responses": [{"statusCode": "200", "body": ""}]}}]', /entry 0: snapshot\.responses\[0\]\.statusCode must be an integer, got string/],
      ['[1]', /entry 0 must be an object with hash and snapshot, got number/]
    ] as const) {
      await writeFile(file, content)
      await assert.rejects(loadSnapshotFile(file), (err: Error & { code?: string }) => {
        assert.equal(err.code, 'LIB_ERR_SNAPSHOT_FILE')
        assert.ok(err.message.includes(file))
        assert.match(err.message, problem)
        return true
      })
    }
  })

  it('names the entry and the field of a bad file on the error too, for cut-short files, bad timings and bad dates', async (t) => {
    const dir = await tempDir(t)
    const file = join(dir, 'bad.json')
    const good = serializeSnapshots([record('http://h/a', 'a')])
    const entry = (patch: (e: Record<string, any>) => void): string => {
      const data = JSON.parse(good)
      patch(data[0].snapshot)
      return JSON.stringify(data)
    }
    const cases: Array<{ content: string, entry?: number, field?: string, message: RegExp }> = [
      { content: good.slice(0, good.length - 20), message: /is not valid JSON: it ends inside its JSON \(the file was cut short\)/ },
      { content: entry((s) => { s.responses[0].delayMs = -3 }), entry: 0, field: 'snapshot.responses[0].delayMs', message: /entry 0: snapshot\.responses\[0\]\.delayMs must be a non-negative number of milliseconds, got -3/ },
      { content: entry((s) => { s.responses[0].chunkDelaysMs = [1, 2] }), entry: 0, field: 'snapshot.responses[0].chunkDelaysMs', message: /must be an array of 1 delay\(s\), one per chunk, got 2/ },
      { content: entry((s) => { s.timestamp = 'yesterday' }), entry: 0, field: 'snapshot.timestamp', message: /entry 0: snapshot\.timestamp must be an ISO 8601 date, got string/ },
      { content: entry((s) => { s.request.url = '/relative' }), entry: 0, field: 'snapshot.request.url', message: /entry 0: snapshot\.request\.url must be an absolute URL/ },
      { content: entry((s) => { delete s.request.method }), entry: 0, field: 'snapshot.request.method', message: /entry 0: snapshot\.request\.method must be a string, got undefined/ }
    ]
    for (const one of cases) {
      await writeFile(file, one.content)
      await assert.rejects(loadSnapshotFile(file), (err: Error & { code?: string, path?: string, entry?: unknown, field?: unknown }) => {
        assert.equal(err.code, 'LIB_ERR_SNAPSHOT_FILE')
        assert.equal(err.path, file)
        assert.ok(err.message.startsWith(`snapshot file ${file} is not`), err.message)
        assert.match(err.message, one.message)
        assert.equal(err.entry, one.entry)
        assert.equal(err.field, one.field)
        return true
      })
    }
  })

  it('fails a save onto a directory with an error naming the file, and cleans its temporary file', async (t) => {
    const dir = await tempDir(t)
    const target = join(dir, 'is-a-dir')
    await mkdir(target)
    await assert.rejects(saveSnapshotFile(target, [record('http://h/', 'x')]), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'LIB_ERR_SNAPSHOT_FILE')
      assert.ok(err.message.includes(target))
      return true
    })
    assert.deepEqual(await readdir(dir), ['is-a-dir'])
  })

  it('leaves the previous file intact and loadable when the saving process is killed, and the load clears its temporary file', async (t) => {
    const dir = await tempDir(t)
    const file = join(dir, 'snap.json')
    const previous = [record('http://h/previous', 'old')]
    await saveSnapshotFile(file, previous)
    const before = await readFile(file, 'utf8')
    const killedPid = await killMidSave(t, dir, file)
    assert.equal(await readFile(file, 'utf8'), before)
    assert.deepEqual(await temps(dir), [killedPid])
    const loaded = await loadSnapshotFile(file)
    assert.deepEqual(loaded!.map((r) => r.snapshot.request.url), ['http://h/previous'])
    assert.deepEqual(await temps(dir), [])
  })

  it('clears the temporary file of a writer killed during the first save on the next save', async (t) => {
    const dir = await tempDir(t)
    const file = join(dir, 'snap.json')
    const killedPid = await killMidSave(t, dir, file)
    assert.deepEqual(await temps(dir), [killedPid])
    assert.equal(await loadSnapshotFile(join(dir, 'other.json')), undefined)
    assert.deepEqual(await temps(dir), [killedPid], 'a load of another file leaves this file\'s temporaries alone')
    await saveSnapshotFile(file, [record('http://h/new', 'new')])
    assert.deepEqual(await temps(dir), [])
  })

  it('never removes the temporary file of a writer that is still running, this process included', async (t) => {
    const dir = await tempDir(t)
    const file = join(dir, 'snap.json')
    await saveSnapshotFile(file, [record('http://h/a', 'a')])
    const writer = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
    const exited = new Promise((resolve) => writer.once('exit', resolve))
    t.after(() => { if (writer.exitCode === null && writer.signalCode === null) writer.kill('SIGKILL') })
    const live = `.snap.json.${writer.pid}.${randomBytes(6).toString('hex')}.tmp`
    const own = `.snap.json.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
    for (const name of [live, own]) await writeFile(join(dir, name), 'partial')
    await loadSnapshotFile(file)
    await saveSnapshotFile(file, [record('http://h/b', 'b')])
    assert.deepEqual(await temps(dir), [process.pid, writer.pid].sort())
    writer.kill('SIGKILL')
    await exited
    await loadSnapshotFile(file)
    assert.deepEqual(await temps(dir), [process.pid])
  })
})

/** The pids in the names of the temporary files in `dir`, sorted. */
async function temps (dir: string): Promise<number[]> {
  return (await readdir(dir)).filter((name) => name.endsWith('.tmp')).map((name) => Number(name.split('.').at(-3))).sort()
}

/**
 * Starts a child process saving a large snapshot file and kills it with SIGKILL while its
 * temporary file is being written; resolves to the child's pid once it has exited.
 */
async function killMidSave (t: { after: (fn: () => void) => void }, dir: string, file: string): Promise<number> {
  const storeUrl = new URL('../../stores/snapshot-file-store.js', import.meta.url).href
  const script = join(dir, 'save.mjs')
  await writeFile(script, `
    import { saveSnapshotFile } from ${JSON.stringify(storeUrl)}
    const big = 'x'.repeat(16 * 1024)
    const records = Array.from({ length: 2500 }, (_, i) => ({ hash: 'h' + i, snapshot: {
      request: { method: 'GET', url: 'http://h/' + i, headers: {}, body: '' },
      responses: [{ statusCode: 200, headers: {}, body: Buffer.from(big + i).toString('base64'), trailers: {} }],
      callCount: 0, timestamp: new Date(0).toISOString() } }))
    await saveSnapshotFile(process.argv[2], records)
  `)
  const child = spawn(process.execPath, [script, file], { stdio: ['ignore', 'ignore', 'inherit'] })
  t.after(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  let sawTemp = false
  for (let i = 0; i < 200_000 && child.exitCode === null; i++) {
    if ((await readdir(dir)).some((name) => name.endsWith('.tmp'))) {
      child.kill('SIGKILL')
      sawTemp = true
      break
    }
    await new Promise((resolve) => setImmediate(resolve))
  }
  await exited
  assert.ok(sawTemp, 'the child was killed while its temporary file was being written')
  assert.equal(child.signalCode, 'SIGKILL')
  return child.pid!
}

describe('snapshot file format (property)', () => {
  const headerName = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/)
  const headerValue = fc.string({ maxLength: 20 })
  const headers = fc.dictionary(headerName, fc.oneof(headerValue, fc.array(headerValue, { minLength: 1, maxLength: 3 })), { maxKeys: 4 })
  const bytes = fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b).toString('base64'))
  const response = fc.record({
    statusCode: fc.integer({ min: 100, max: 599 }),
    headers,
    body: bytes,
    chunks: fc.option(fc.array(bytes, { minLength: 2, maxLength: 4 }), { nil: undefined }),
    trailers: headers
  })
  const entry = fc.record({
    hash: fc.stringMatching(/^[A-Za-z0-9_-]{8,43}$/),
    snapshot: fc.record({
      request: fc.record({
        method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'),
        url: fc.webUrl(),
        headers,
        body: fc.string({ maxLength: 30 })
      }),
      responses: fc.array(response, { minLength: 1, maxLength: 3 }),
      callCount: fc.constant(0),
      timestamp: fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }).map((d) => d.toISOString())
    })
  })

  it('reads back exactly what it wrote, whatever the order it was given', () => {
    fc.assert(fc.property(fc.uniqueArray(entry, { selector: (e) => e.hash, maxLength: 6 }), (records) => {
      const written = serializeSnapshots(records as SnapshotRecord[])
      const parsed = parseSnapshotData(JSON.parse(written))
      const byHash = new Map(parsed.map((r) => [r.hash, r]))
      for (const original of records) {
        const back = byHash.get(original.hash)!
        assert.equal(back.snapshot.request.url, original.snapshot.request.url)
        assert.deepEqual(back.snapshot.request.headers, { ...original.snapshot.request.headers })
        assert.equal(back.snapshot.request.body, original.snapshot.request.body)
        assert.deepEqual(back.snapshot.responses.map((r) => [r.statusCode, r.headers, r.body, r.chunks, r.trailers]),
          original.snapshot.responses.map((r) => [r.statusCode, { ...r.headers }, r.body, r.chunks, { ...r.trailers }]))
      }
      assert.equal(serializeSnapshots([...records].reverse() as SnapshotRecord[]), written)
      assert.equal(serializeSnapshots(parsed), written)
    }))
  })
})
