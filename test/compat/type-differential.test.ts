/**
 * The type-level differential: every exported type and namespace member of undici's declaration
 * files (read from undici's own `index.d.ts`, so a name a future undici adds is checked without
 * editing this file) has a counterpart in conduit's at the same path, and the two are assignable
 * (types both ways; classes, functions and constants: conduit's where undici's is expected).
 * The paths that differ on purpose are listed, each with its reason, in
 * docs/undici-type-differences.json, beside the "TypeScript" section of docs/undici-differences.md.
 */

import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { readSurface } from '../helpers/undici-surface.js'
import { compileDifferential, writeDifferentialProgram } from '../helpers/differential-program.js'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const surface = readSurface(path.join(root, 'node_modules/undici/index.d.ts'))
const documented: Readonly<Record<string, string>> = JSON.parse(readFileSync(path.join(root, 'docs/undici-type-differences.json'), 'utf8'))

// A strict user project without `lib: dom` that checks every declaration file it reads.
const userOptions: ts.CompilerOptions = {
  noEmit: true,
  strict: true,
  skipLibCheck: false,
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2023.d.ts'],
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  types: ['node']
}

// Inside the package, so 'conduit' resolves to this build through its exports, as a user's import does.
const checkFile = path.join(root, 'test/types/undici-differential.generated.ts')
const result = compileDifferential(writeDifferentialProgram(surface, 'undici', 'conduit'), checkFile, userOptions)

describe("conduit's declarations against undici's", () => {
  it("read a surface of undici's names from its declaration files", () => {
    const paths = surface.map((entry) => entry.path)
    assert.ok(paths.includes('Dispatcher.DispatchOptions') && paths.includes('errors.SocketError') && paths.includes('interceptors.retry'), paths.join(' '))
  })

  it('compile in a strict project without lib dom, declaration files checked', () => {
    const defects = [...result].filter(([key]) => key.endsWith('.d.ts'))
    assert.deepEqual(defects, [])
  })

  it("give every name of undici's a counterpart assignable to it, apart from the documented differences", () => {
    const undocumented = [...result].filter(([key]) => !(key in documented)).map(([key, messages]) => `${key}:\n  ${messages.join('\n  ')}`)
    assert.deepEqual(undocumented, [])
  })

  it('document only differences that still exist, each with a reason', () => {
    const stale = Object.keys(documented).filter((key) => !result.has(key))
    assert.deepEqual(stale, [], 'these now match undici: remove them from docs/undici-type-differences.json')
    const unexplained = Object.entries(documented).filter(([, reason]) => reason.trim().length < 20).map(([key]) => key)
    assert.deepEqual(unexplained, [])
  })
})
