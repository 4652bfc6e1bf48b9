// Runs every compiled `*.test.js` file under dist/test with node's own test runner.
// Listing the files explicitly keeps helpers and fixtures in dist/test from being run as tests.
import { readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import { spawnSync } from 'node:child_process'

const root = new URL('../dist/test', import.meta.url).pathname
const only = process.argv.slice(2)

function collect (dir) {
  const files = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) files.push(...collect(path))
    else if (entry.name.endsWith('.test.js')) files.push(path)
  }
  return files
}

let files = collect(root).sort()
if (only.length > 0) files = files.filter((file) => only.some((part) => relative(root, file).includes(part)))
if (files.length === 0) {
  console.error('no test files found under dist/test')
  process.exit(1)
}

// A test that never settles fails after five minutes instead of keeping the run open forever (a
// loaded 2-core CI machine runs the longest files, the docs examples and the HTTP/2 stress, in 2-3 minutes).
const TEST_TIMEOUT_MS = 300_000

const result = spawnSync(process.execPath, ['--test', '--test-reporter=spec', '--test-concurrency=2', `--test-timeout=${TEST_TIMEOUT_MS}`, ...files], {
  stdio: 'inherit'
})
process.exit(result.status ?? 1)
