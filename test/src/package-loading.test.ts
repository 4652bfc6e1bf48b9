import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const entry = fileURLToPath(new URL('../../src/index.js', import.meta.url))

describe('package loading', () => {
  it('loads with require() as well as import (no top-level await anywhere in the graph)', () => {
    const script = `const c = require(${JSON.stringify(entry)}); process.stdout.write([typeof c.Agent, typeof c.fetch, typeof c.interceptors.cache, typeof c.cacheStores.MemoryCacheStore].join(','))`
    const out = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
    assert.equal(out, 'function,function,function,function')
  })
})
