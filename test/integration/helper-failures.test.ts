import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { startHttpServer } from '../helpers/servers.js'
import { startAll } from '../helpers/start-all.js'
import { startRedisServer } from '../helpers/redis-server.js'
import { startChildServer } from './helpers/child-server.js'
import { freePort } from '../helpers/free-port.js'

function accepts (port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port })
    socket.once('connect', () => { socket.destroy(); resolve(true) })
    socket.once('error', () => resolve(false))
  })
}

function isRunning (pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Runs one compiled integration test file with no server binaries to be found. */
function runWithoutServers (testFile: string, toolDir: string): Promise<{ code: number | null, output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--test', '--test-reporter=spec', fileURLToPath(new URL(testFile, import.meta.url))], {
      env: { ...process.env, CONDUIT_TOOL_DIRS: toolDir, REDIS_SERVER: undefined, NODE_TEST_CONTEXT: undefined },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
    // Only a backstop so a regression fails this test instead of hanging the suite.
    const backstop = setTimeout(() => child.kill('SIGKILL'), 60_000)
    child.once('error', reject)
    child.once('close', (code, signal) => {
      clearTimeout(backstop)
      resolve({ code: signal === null ? code : null, output })
    })
  })
}

describe('helper servers that are missing or fail to start', () => {
  it('startAll stops the servers that did start when another start fails, then rethrows that failure', async () => {
    const started = startHttpServer((_req, res) => res.end())
    const failure = new Error('no squid here')
    await assert.rejects(startAll([started, Promise.reject(failure)]), (err) => err === failure)
    assert.equal((await started).server.listening, false)
  })

  it('startAll resolves with every server, in order, when all start', async () => {
    const [a, b] = await startAll([startHttpServer((_req, res) => res.end()), startHttpServer((_req, res) => res.end())])
    assert.notEqual(a.port, b.port)
    assert.equal(await accepts(a.port), true)
    await Promise.all([a.close(), b.close()])
  })

  it('a child server that never listens fails its start within the timeout and is killed', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'conduit-silent-'))
    const pidFile = path.join(dir, 'pid')
    const script = `echo $$ > ${pidFile}; exec sleep 60`
    await assert.rejects(startChildServer('/bin/sh', ['-c', script], await freePort(), dir, 1000), /did not listen on 127\.0\.0\.1:\d+ within 1000 ms/)
    assert.equal(isRunning(Number(await readFile(pidFile, 'utf8'))), false)
    await rm(dir, { recursive: true, force: true })
  })

  it('a child server that exits before listening fails its start with what it printed', async () => {
    const program = 'console.error("config error: bad port"); process.exit(3)'
    await assert.rejects(startChildServer(process.execPath, ['-e', program], await freePort(), os.tmpdir()), /exited before listening on 127\.0\.0\.1:\d+:\nconfig error: bad port/)
  })

  it('a binary that cannot be spawned fails its start naming it', async () => {
    await assert.rejects(startChildServer('/nonexistent/squid', [], await freePort(), os.tmpdir()), /\/nonexistent\/squid could not be started: spawn \/nonexistent\/squid ENOENT/)
  })

  it('a redis-server that exits at once fails the start with its exit code', async (t) => {
    const previous = process.env.REDIS_SERVER
    process.env.REDIS_SERVER = '/bin/false'
    t.after(() => { if (previous === undefined) delete process.env.REDIS_SERVER; else process.env.REDIS_SERVER = previous })
    await assert.rejects(startRedisServer(), /redis-server exited \(code 1\) before answering on port \d+/)
  })

  it('a redis-server that cannot be spawned fails the start naming the error', async (t) => {
    const previous = process.env.REDIS_SERVER
    process.env.REDIS_SERVER = '/nonexistent/redis-server'
    t.after(() => { if (previous === undefined) delete process.env.REDIS_SERVER; else process.env.REDIS_SERVER = previous })
    await assert.rejects(startRedisServer(), /redis-server could not be started: spawn \/nonexistent\/redis-server ENOENT/)
  })

  for (const [file, binary] of [['./squid.test.js', 'squid'], ['./socks.test.js', 'microsocks'], ['./redis-shared-cache.test.js', 'redis-server'], ['./nginx-h2.test.js', 'nginx'],
    ['./h2-interop/nghttpd.test.js', 'nghttp2-server'], ['./h2-interop/h2o.test.js', 'h2o'], ['./h2-interop/python-h2.test.js', 'python3-h2']]) {
    it(`the ${file.slice(2, -8)} integration file fails and its process exits when ${binary} is not installed`, async () => {
      const empty = await mkdtemp(path.join(os.tmpdir(), 'conduit-no-tools-'))
      const run = await runWithoutServers(file, empty)
      await rm(empty, { recursive: true, force: true })
      assert.equal(run.code, 1, run.output)
      assert.ok(run.output.includes(`install it with: apt-get install -y --no-install-recommends ${binary}`), run.output)
    })
  }
})
