import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { existsSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

// The repository's plain-JavaScript tool lookup, loaded from the source tree as the other tests do.
const { findTool } = await import(new URL('../../../scripts/test-servers.mjs', import.meta.url).href) as {
  findTool: (name: string, env?: NodeJS.ProcessEnv) => string | undefined
}

const run = promisify(execFile)
const root = fileURLToPath(new URL('../../../', import.meta.url))
const NODE_MAJOR = Number(process.versions.node.split('.')[0])
// What building a native addon needs; none of it may be reachable in the consumer's PATH.
const TOOLCHAIN = ['gcc', 'g++', 'cc', 'c++', 'make', 'python3', 'python']
// npm install fetches the package's dependencies from the registry: bounded, but not quick.
const INSTALL_TIMEOUT_MS = 10 * 60_000

// node:sqlite needs no build, so on Node 26 the package must work where nothing can be compiled.
// On older runtimes the same install would fall back to better-sqlite3, which needs the toolchain.
if (NODE_MAJOR >= 26) {
  describe('the packed package on Node 26 without a compiler toolchain', () => {
    it('installs into a fresh project and keeps a response in a SqliteCacheStore file through node:sqlite', { timeout: 2 * INSTALL_TIMEOUT_MS }, async (t) => {
      const dir = await mkdtemp(path.join(tmpdir(), 'conduit-package-'))
      t.after(() => rm(dir, { recursive: true, force: true }))
      const { stdout: packed } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: root, maxBuffer: 64 * 1024 * 1024 })
      const tarball = path.join(dir, (JSON.parse(packed) as Array<{ filename: string }>)[0]!.filename)

      // A PATH holding only this node and npm.
      const bin = path.join(dir, 'bin')
      await mkdir(bin)
      await symlink(process.execPath, path.join(bin, 'node'))
      const npmCli = realpathSync(findTool('npm') ?? assert.fail('npm is not on PATH'))
      await symlink(npmCli, path.join(bin, 'npm'))
      const env = { ...process.env, PATH: bin }
      for (const tool of TOOLCHAIN) assert.equal(findTool(tool, { CONDUIT_TOOL_DIRS: bin }), undefined, `${tool} is reachable`)

      const project = path.join(dir, 'consumer')
      await mkdir(project)
      await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }))
      // Run from the consumer project, so npm's own settings of this repository do not apply.
      await run(path.join(bin, 'npm'), ['install', '--no-audit', '--no-fund', tarball], { cwd: project, env, timeout: INSTALL_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 })
      // better-sqlite3 is optional: without a compiler its build fails and npm leaves it out.
      assert.equal(existsSync(path.join(project, 'node_modules', 'better-sqlite3')), false)

      const script = path.join(project, 'round-trip.mjs')
      await copyFile(path.join(root, 'test', 'package', 'fixtures', 'sqlite-round-trip.mjs'), script)
      const { stdout } = await run(path.join(bin, 'node'), [script], { cwd: project, env, timeout: 60_000 })
      assert.deepEqual(JSON.parse(stdout), { driver: 'node:sqlite', first: '200 response 1', second: '200 response 1', served: 1 })
    })
  })
}
