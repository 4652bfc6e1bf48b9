import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { getGlobalDispatcher, setGlobalDispatcher } from '../../src/global.js'
import { Agent } from '../../src/dispatcher/agent.js'
import { fetch } from '../../src/fetch/fetch.js'
import { recordingFileName, snapshotHooks, withSnapshot } from '../../presets/snapshot-testing.js'
import { SnapshotAgent } from '../../presets/snapshot-agent.js'
import { recordingOrigin, tempDir } from '../interceptors/snapshot/snapshot-test-kit.js'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const indexPath = join(root, 'dist', 'src', 'index.js')

/** A folder inside the package (so a generated test file resolves vitest and jest), removed after the test. */
async function workDir (t: { after: (fn: () => unknown) => void }): Promise<string> {
  const dir = join(root, '.tmp', `snapshot-testing-${randomBytes(4).toString('hex')}`)
  await mkdir(dir, { recursive: true })
  t.after(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/**
 * Runs `args` with node in `cwd`; CI is set only when `ci` is true, CONDUIT_SNAPSHOT_MODE never.
 * The runners get no NODE_V8_COVERAGE: Jest and Vitest load conduit's modules transformed under
 * their own file URLs, and that coverage, merged with the untransformed modules' of every other
 * process, would scramble the suite's coverage report.
 */
function run (args: string[], cwd: string, ci: boolean): Promise<{ status: number | null, output: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of ['CI', 'CONDUIT_SNAPSHOT_MODE', 'NODE_TEST_CONTEXT', 'NODE_OPTIONS', 'VITEST', 'JEST_WORKER_ID']) delete env[name]
  // Deleting it is not enough: spawn() puts the parent's NODE_V8_COVERAGE back; an empty one turns it off.
  env.NODE_V8_COVERAGE = ''
  if (ci) env.CI = 'true'
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 })
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
    child.once('error', reject)
    child.once('close', (status) => resolve({ status, output }))
  })
}

async function recordings (dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).map(String).filter((name) => name.endsWith('.json')).sort()
}

describe('one recording per test', () => {
  it('gives a node:test test its own file, as the global dispatcher, and puts the previous one back', async (t) => {
    const dir = await tempDir(t)
    const server = await recordingOrigin(t)
    const before = new Agent()
    setGlobalDispatcher(before)
    t.after(() => before.close())
    let during: unknown
    await t.test('lists the items', async (inner) => {
      const agent = withSnapshot(inner, { dir, mode: 'update' })
      during = getGlobalDispatcher()
      assert.equal(during, agent)
      assert.equal(await (await fetch(`${server.origin}/count`)).text(), 'hit 1')
    })
    assert.ok(during instanceof SnapshotAgent)
    assert.equal(getGlobalDispatcher(), before)
    const name = `${recordingFileName('one recording per test > gives a node:test test its own file, as the global dispatcher, and puts the previous one back > lists the items')}.json`
    assert.match(name, /^one-recording-per-test-gives-a-node-test-test-its-own-file-.*-[0-9a-f]{8}\.json$/)
    assert.deepEqual(await recordings(dir), [name])
    const saved = JSON.parse(await readFile(join(dir, name), 'utf8'))
    assert.equal(saved[0].snapshot.request.url, `${server.origin}/count`)
  })

  it('records locally and replays in CI, for a node:test file run by the real runner', async (t) => {
    const dir = await workDir(t)
    const server = await recordingOrigin(t)
    const file = join(dir, 'api.test.mjs')
    await writeFile(file, `
      import { describe, it } from 'node:test'
      import assert from 'node:assert/strict'
      import { withSnapshot, fetch, request } from ${JSON.stringify(indexPath)}
      process.removeAllListeners('warning')
      describe('the api', () => {
        it('counts', async (t) => {
          withSnapshot(t)
          assert.equal(await (await fetch('${server.origin}/count')).text(), 'hit 1')
        })
        it('answers json', async (t) => {
          withSnapshot(t)
          const { body } = await request('${server.origin}/json')
          assert.equal((await body.json()).ok, true)
        })
      })
    `)
    const local = await run(['--test', file], dir, false)
    assert.equal(local.status, 0, local.output)
    assert.deepEqual(await recordings(join(dir, '__recordings__')), ['api.test/the-api-answers-json.json', 'api.test/the-api-counts.json'])
    await server.close()
    const ci = await run(['--test', file], dir, true)
    assert.equal(ci.status, 0, ci.output)
    assert.equal(server.hits(), 1)
  })

  it('records locally and replays in CI with Vitest, through withSnapshot(context) and snapshotHooks()', async (t) => {
    const dir = await workDir(t)
    const server = await recordingOrigin(t)
    await writeFile(join(dir, 'api.test.mjs'), `
      import { afterEach, beforeEach, describe, expect, it } from 'vitest'
      import { snapshotHooks, withSnapshot, fetch } from ${JSON.stringify(indexPath)}
      process.removeAllListeners('warning')
      it('counts with a context', async (context) => {
        withSnapshot(context)
        expect(await (await fetch('${server.origin}/count')).text()).toBe('hit 1')
      })
      describe('with hooks', () => {
        const recording = snapshotHooks({ beforeEach, afterEach, expect })
        it('answers json', async () => {
          expect(recording.agent.getMode()).toBe(process.env.CI ? 'playback' : 'update')
          expect((await (await fetch('${server.origin}/json')).json()).ok).toBe(true)
        })
      })
    `)
    const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs')
    const local = await run([vitest, 'run', '--root', dir], dir, false)
    assert.equal(local.status, 0, local.output)
    assert.deepEqual(await recordings(join(dir, '__recordings__')), ['api.test/counts-with-a-context.json', 'api.test/with-hooks-answers-json.json'])
    await server.close()
    const ci = await run([vitest, 'run', '--root', dir], dir, true)
    assert.equal(ci.status, 0, ci.output)
    assert.equal(server.hits(), 1)
  })

  it('records locally and replays in CI with Jest, through snapshotHooks()', async (t) => {
    const dir = await workDir(t)
    const server = await recordingOrigin(t)
    await writeFile(join(dir, 'api.test.mjs'), `
      import { snapshotHooks, fetch } from ${JSON.stringify(indexPath)}
      process.removeAllListeners('warning')
      describe('the api', () => {
        const recording = snapshotHooks({ beforeEach, afterEach, expect })
        test('counts', async () => {
          expect(await (await fetch('${server.origin}/count')).text()).toBe('hit 1')
          expect(recording.agent.getMode()).toBe(process.env.CI ? 'playback' : 'update')
        })
      })
    `)
    const jest = join(root, 'node_modules', 'jest', 'bin', 'jest.js')
    const args = ['--experimental-vm-modules', jest, '--rootDir', dir, '--watchman=false', '--cacheDirectory', join(dir, '.jest-cache')]
    const local = await run(args, dir, false)
    assert.equal(local.status, 0, local.output)
    assert.deepEqual(await recordings(join(dir, '__recordings__')), ['api.test/the-api-counts.json'])
    await server.close()
    const ci = await run(args, dir, true)
    assert.equal(ci.status, 0, ci.output)
    assert.equal(server.hits(), 1)
  })

  it('fails a test in CI whose recording is missing, naming the file', async (t) => {
    const dir = await workDir(t)
    const file = join(dir, 'new.test.mjs')
    await writeFile(file, `
      import { it } from 'node:test'
      import { withSnapshot, request } from ${JSON.stringify(indexPath)}
      process.removeAllListeners('warning')
      it('is new', async (t) => {
        withSnapshot(t)
        await request('http://127.0.0.1:1/never-recorded')
      })
    `)
    const ci = await run(['--test', file], dir, true)
    assert.equal(ci.status, 1)
    assert.match(ci.output, /No snapshot found for GET http:\/\/127\.0\.0\.1:1\/never-recorded \(no snapshots are recorded: .*__recordings__\/new\.test\/is-new\.json does not exist\)/)
  })

  it('names files after tests safely: readable where it can, with a hash where the name needed changing', () => {
    assert.equal(recordingFileName('lists the items'), 'lists-the-items')
    assert.equal(recordingFileName('users > lists the items'), 'users-lists-the-items')
    assert.match(recordingFileName('suite > GET /users?page=2'), /^suite-GET-users-page-2-[0-9a-f]{8}$/)
    assert.match(recordingFileName('../../etc/passwd'), /^etc-passwd-[0-9a-f]{8}$/)
    assert.match(recordingFileName('x'.repeat(200)), /^x{80}-[0-9a-f]{8}$/)
    assert.notEqual(recordingFileName('a/b'), recordingFileName('a?b'))
  })

  it('rejects what is not a test context or hooks, a snapshotPath, and an agent asked for outside a test', () => {
    assert.throws(() => withSnapshot(null as never), { code: 'LIB_ERR_INVALID_ARG', message: /withSnapshot\(\): t must be a node:test or Vitest test context, got null/ })
    assert.throws(() => withSnapshot({} as never), { code: 'LIB_ERR_INVALID_ARG', message: /withSnapshot\(\): t must be a node:test or Vitest test context/ })
    assert.throws(() => withSnapshot({ name: 'x', after: () => {} }, { snapshotPath: 'x.json' } as never), { code: 'LIB_ERR_INVALID_ARG', message: /withSnapshot\(\): snapshotPath must be left out/ })
    assert.throws(() => withSnapshot({ name: 'x', after: () => {} }, { format: 'yaml' as never }), { code: 'LIB_ERR_INVALID_ARG', message: /format must be 'json' or 'har', got "yaml"/ })
    assert.throws(() => snapshotHooks({} as never), { code: 'LIB_ERR_INVALID_ARG', message: /snapshotHooks\(\): hooks must be an object with beforeEach, afterEach and expect/ })
    const hooks = snapshotHooks({ beforeEach: () => {}, afterEach: () => {}, expect: { getState: () => ({}) } })
    assert.throws(() => hooks.agent, { code: 'LIB_ERR_INVALID_ARG', message: /only available while a test runs/ })
  })
})
