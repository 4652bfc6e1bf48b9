import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { readSourceGraph, REPO_ROOT } from './source-graph.js'

describe('the diagnostics channels', () => {
  it('are all declared in src/diagnostics.ts, so the tests that subscribe to every channel see new ones too', () => {
    const elsewhere: string[] = []
    for (const path of readSourceGraph().keys()) {
      if (path === 'src/diagnostics.ts') continue
      if (/from ['"](?:node:)?diagnostics_channel['"]/.test(readFileSync(join(REPO_ROOT, path), 'utf8'))) elsewhere.push(path)
    }
    assert.deepEqual(elsewhere, [])
  })
})
