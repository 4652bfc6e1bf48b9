import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { DEFAULT_SUITES, SUITES, selectSuites } from '../../benchmarks/suites.js'

// The sources, not dist/: a build leaves the outputs of moved or deleted files behind.
const BENCHMARKS = fileURLToPath(new URL('../../../benchmarks/', import.meta.url))
/** Root files of benchmarks/ that are not suites: the entry, the table, and the transport suite's own modules. */
const NOT_SUITES = new Set(['run.ts', 'suites.ts', 'transport.ts', 'transport-scenarios.ts'])

describe('benchmark suite table', () => {
  it('registers every program at the root of benchmarks/, once, and nothing else', () => {
    const programs = readdirSync(BENCHMARKS).filter((file) => file.endsWith('.ts') && !NOT_SUITES.has(file)).map((file) => file.replace(/\.ts$/, '.js')).sort()
    const registered = SUITES.flatMap((suite) => suite.file === undefined ? [] : [suite.file]).sort()
    assert.deepEqual(registered, programs)
    assert.equal(new Set(SUITES.map((suite) => suite.name)).size, SUITES.length)
  })

  it('names programs that run themselves, so a suite started by run.ts does its work', () => {
    for (const suite of SUITES) {
      if (suite.file === undefined) continue
      const text = readFileSync(BENCHMARKS + suite.file.replace(/\.js$/, '.ts'), 'utf8')
      assert.match(text, /process\.argv\[1\] === fileURLToPath\(import\.meta\.url\)/, suite.name)
    }
  })

  it('selects by the start of a name, all of them by `all`, and none by an unknown name', () => {
    assert.deepEqual(selectSuites('cache').map((suite) => suite.name), ['cache-interceptor', 'cache-store-ops', 'cache-store-hits', 'cache-api-put'])
    assert.deepEqual(selectSuites('fetch').map((suite) => suite.name), ['fetch', 'fetch-large'])
    assert.equal(selectSuites('all').length, SUITES.length)
    assert.deepEqual(selectSuites('no-such-suite'), [])
    for (const name of DEFAULT_SUITES) assert.equal(selectSuites(name)[0]?.name, name)
  })
})
