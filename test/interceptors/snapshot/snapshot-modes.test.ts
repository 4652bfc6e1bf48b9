import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { SnapshotAgent } from '../../../presets/snapshot-agent.js'
import { Agent } from '../../../src/dispatcher/agent.js'
import { snapshot } from '../../../interceptors/snapshot/index.js'
import type { RequestOptions } from '../../../src/api/request.js'
import type { Dispatcher } from '../../../src/dispatcher/dispatcher.js'
import { countConnects, recordingOrigin, tempDir } from './snapshot-test-kit.js'

async function text (agent: Dispatcher, origin: string, path: string): Promise<string> {
  const res = await agent.request({ origin, path, method: 'GET' } as RequestOptions)
  return res.body.text()
}

const indexUrl = new URL('../../../src/index.js', import.meta.url).href

/**
 * Runs a script in a child process with `CONDUIT_SNAPSHOT_MODE` set (or unset when null). Not
 * spawnSync: the origin the child asks runs in this process, which must keep answering.
 */
function runWithMode (mode: string | null, script: string): Promise<{ status: number | null, stdout: string, stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env }
  delete env.CONDUIT_SNAPSHOT_MODE
  delete env.NODE_TEST_CONTEXT
  if (mode !== null) env.CONDUIT_SNAPSHOT_MODE = mode
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
    child.once('error', reject)
    child.once('close', (status) => resolve({ status, stdout, stderr }))
  })
}

describe('snapshot modes', () => {
  it('takes the mode from CONDUIT_SNAPSHOT_MODE over the constructor, in a real child process', async (t) => {
    const dir = await tempDir(t)
    const file = join(dir, 'env.json')
    const server = await recordingOrigin(t)
    const script = `
      import { SnapshotAgent } from ${JSON.stringify(indexUrl)}
      process.removeAllListeners('warning')
      const agent = new SnapshotAgent({ mode: 'record', snapshotPath: ${JSON.stringify(file)} })
      const res = await agent.request({ origin: ${JSON.stringify(server.origin)}, path: '/count', method: 'GET' })
      console.log(agent.getMode(), await res.body.text())
      await agent.close()
    `
    assert.deepEqual((await runWithMode(null, script)).stdout.trim(), 'record hit 1')
    assert.deepEqual((await runWithMode('', script)).stdout.trim(), 'record hit 2', 'an empty variable is no override')
    const replayed = await runWithMode('playback', script)
    assert.equal(replayed.status, 0, replayed.stderr)
    assert.equal(replayed.stdout.trim(), 'playback hit 2', 'the recording of the second run replayed, the server not asked')
    assert.equal(server.hits(), 2)
  })

  it('refuses a CONDUIT_SNAPSHOT_MODE that is no mode, and one that needs a path the agent lacks, naming the variable', async () => {
    const script = `
      import { SnapshotAgent } from ${JSON.stringify(indexUrl)}
      process.removeAllListeners('warning')
      try { new SnapshotAgent() } catch (err) { console.log(err.code, err.message) }
    `
    assert.equal((await runWithMode('replay', script)).stdout.trim(), "LIB_ERR_INVALID_ARG SnapshotAgent: the environment variable CONDUIT_SNAPSHOT_MODE must be one of 'record', 'playback', 'update', 'lockdown', got \"replay\"")
    assert.equal((await runWithMode('lockdown', script)).stdout.trim(), "LIB_ERR_INVALID_ARG SnapshotAgent: snapshotPath is required when mode is 'lockdown' (set by CONDUIT_SNAPSHOT_MODE)")
  })

  it('lets nothing reach the network in lockdown: misses, excluded URLs and requests shouldPlayback turns away all fail', async (t) => {
    const dir = await tempDir(t)
    const file = join(dir, 'lockdown.json')
    const server = await recordingOrigin(t)
    const recorder = new SnapshotAgent({ mode: 'record', snapshotPath: file })
    await text(recorder, server.origin, '/json')
    await recorder.close()

    const agent = new SnapshotAgent({ mode: 'lockdown', snapshotPath: file, excludeUrls: ['/health'], shouldPlayback: (opts) => opts.path !== '/json?skip' })
    t.after(() => agent.close())
    assert.equal(agent.getMode(), 'lockdown')
    const attempts = await countConnects(async () => {
      assert.deepEqual(JSON.parse(await text(agent, server.origin, '/json')), { ok: true, url: '/json' })
      await assert.rejects(text(agent, server.origin, '/missing'), { code: 'LIB_ERR_SNAPSHOT_NOT_FOUND', message: /^No snapshot found for GET http:\/\/127\.0\.0\.1:\d+\/missing/ })
      await assert.rejects(text(agent, server.origin, '/health'), { code: 'LIB_ERR_SNAPSHOT_NOT_FOUND', message: /lockdown mode lets no request through to the network, excludeUrls included/ })
      await assert.rejects(text(agent, server.origin, '/json?skip'), { code: 'LIB_ERR_SNAPSHOT_NOT_FOUND', message: /shouldPlayback returned false/ })
    })
    assert.equal(attempts, 0)
    // Playback, by contrast, passes excluded URLs through.
    const player = new SnapshotAgent({ mode: 'playback', snapshotPath: file, excludeUrls: ['/count'] })
    t.after(() => player.close())
    assert.equal(await text(player, server.origin, '/count'), 'hit 1')
  })

  it('never writes the file in lockdown, through the preset or the interceptor', async (t) => {
    const dir = await tempDir(t)
    const file = join(dir, 'untouched.json')
    await writeFile(file, '[]\n')
    const server = await recordingOrigin(t)
    const snap = snapshot({ mode: 'lockdown', snapshotPath: file })
    const composed = new Agent().compose(snap)
    await assert.rejects(text(composed, server.origin, '/json'), { code: 'LIB_ERR_SNAPSHOT_NOT_FOUND' })
    snap.recorder.clear()
    await composed.close()
    assert.equal(snap.mode, 'lockdown')
    const { readFile } = await import('node:fs/promises')
    assert.equal(await readFile(file, 'utf8'), '[]\n')
  })
})
