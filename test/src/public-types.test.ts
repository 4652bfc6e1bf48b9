import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

function repoRoot (): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir)
  return dir
}

describe('public types', () => {
  it('compile in a strict consumer project with a custom interceptor and a custom store, and keep the asserted shapes of the surface', () => {
    const root = repoRoot()
    const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc')
    const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'test/types/tsconfig.json')], { encoding: 'utf8' })
    assert.equal(result.status, 0, result.stdout + result.stderr)
  })
})
