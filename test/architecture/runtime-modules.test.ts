import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'

// A guard that is a fact, not a time: which of the runtime's own modules importing conduit loads.
// On Node 22 and later an ES import of node:http reads every export of that module, its lazy
// WebSocket getters included, and so loads the runtime's bundled undici: over 1 MB of live heap
// that every later full collection marks again, in a library that brings its own HTTP client.
const INDEX = new URL('../../src/index.js', import.meta.url).href

/** The runtime modules a fresh process has loaded after importing `url`, as `process.moduleLoadList` names them. */
function modulesLoadedBy (url: string): string[] {
  const script = `await import(${JSON.stringify(url)}); process.stdout.write(JSON.stringify(process.moduleLoadList))`
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 120_000 })
  return JSON.parse(out) as string[]
}

describe('runtime modules conduit loads', () => {
  it('importing conduit does not load the runtime\'s bundled undici', () => {
    const loaded = modulesLoadedBy(INDEX)
    // conduit's transport needs TLS whatever it speaks: its loading shows conduit was imported.
    assert.ok(loaded.some((name) => name === 'NativeModule tls'), 'the child process did not import conduit')
    assert.deepEqual(loaded.filter((name) => name.includes('deps/undici')), [])
  })
})
