/**
 * Exceptions thrown by user code that the library calls (request callbacks, 'disconnect'
 * listeners) must surface as uncaught exceptions, as with undici: never swallowed, never taken
 * for a transport error, and the dispatcher keeps working. Each scenario runs in a child process.
 */

import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { both } from './harness.js'

const CHILD = fileURLToPath(new URL('./fixtures/user-exceptions-child.js', import.meta.url))

function runChild (lib: string, scenario: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    // Only a bound against a hung child: on a loaded machine loading undici alone can take seconds.
    execFile(process.execPath, [CHILD, lib, scenario], { timeout: 120_000 }, (err, stdout) => {
      if (err !== null) reject(err)
      else resolve(JSON.parse(stdout))
    })
  })
}

describe('exceptions thrown by user code, compared with undici', () => {
  for (const [scenario, message] of [
    ['success-callback', 'thrown in the success callback'],
    ['error-callback', 'thrown in the error callback'],
    ['disconnect-listener', 'thrown in a disconnect listener']
  ] as const) {
    it(`surface as uncaught, once, with the dispatcher still working: ${scenario}`, async () => {
      const seen = await both((_lib, name) => runChild(name, scenario))
      assert.deepEqual(seen.conduit, seen.undici)
      assert.deepEqual(seen.conduit, { uncaught: [message], calls: 1, after: 'ok' })
    })
  }
})
