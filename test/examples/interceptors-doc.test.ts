import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { indexUrl } from '../helpers/debug-child.js'

const doc = readFileSync(new URL('../../../docs/interceptors.md', import.meta.url), 'utf8')
const shipped = doc.slice(doc.indexOf('## The shipped interceptors'), doc.indexOf('## Writing an interceptor'))
const blocks = [...shipped.matchAll(/```js[^\n]*\n([\s\S]*?)```/g)].map((m) => m[1]!)

/** Runs one example as the docs show it, with 'conduit' resolved to this build; resolves with stdout. */
function run (source: string): Promise<{ code: number | null, stdout: string, stderr: string }> {
  const script = source.replaceAll("from 'conduit'", `from ${JSON.stringify(indexUrl)}`)
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 15_000 })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c: Buffer) => { stdout += c.toString() })
  child.stderr.on('data', (c: Buffer) => { stderr += c.toString() })
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })))
}

// What each example prints, in the order of the guide.
const expected = [/^200 at \/new 2$/, /^undefined hello, decoded$/, /^200 ""$/, /^true 404 \{ error: 'no such thing' \}$/, /^served for my-service\.internal:\d+$/, /^\[ 'config', 'config', 'config' \] 1$/]

describe('docs/interceptors.md examples', () => {
  it('has one example per interceptor of the undici set', () => {
    assert.equal(blocks.length, expected.length)
  })

  blocks.forEach((block, i) => {
    it(`example ${i + 1} runs as written and prints what its comment says`, async () => {
      const { code, stdout, stderr } = await run(block)
      assert.equal(code, 0, stderr)
      assert.match(stdout.trim(), expected[i]!)
    })
  })
})
