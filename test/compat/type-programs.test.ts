/**
 * Programs written against undici's types compile against conduit's with only the import changed:
 * each file of test/types/programs is compiled as it is (proving it a valid undici program) and
 * with `'undici'` replaced by `'conduit'`, under `module: nodenext` and `module: commonjs`, in a
 * strict project without lib dom that checks every declaration file. Each configuration is
 * compiled once for all the programs.
 */

import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { compilePrograms } from '../helpers/compile-programs.js'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const programsDir = path.join(root, 'test/types/programs')
const programs = readdirSync(programsDir).filter((name) => name.endsWith('.ts')).sort().map((name) => path.join(programsDir, name))

const strictUser: ts.CompilerOptions = {
  noEmit: true,
  strict: true,
  skipLibCheck: false,
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2023.d.ts'],
  types: ['node']
}

const configurations: Record<string, ts.CompilerOptions> = {
  'module: nodenext': { ...strictUser, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext },
  // A CommonJS project resolves packages by their `types` field, where a self-reference does not
  // reach this package: `paths` points 'conduit' at the built entry as an installed copy would.
  'module: commonjs': {
    ...strictUser,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    baseUrl: root,
    paths: { conduit: ['dist/src/package-entry.d.ts'] }
  }
}

// @types/node 22 and later type more of the runtime (iterator helpers, Readable's async iterator
// as an AsyncIteratorObject) than the project's own @types/node: conduit's declarations must hold
// under both, with lib esnext as well. The second copy is installed as @types/node-22 and read
// where @types/node is, so every reference to `node` types (undici-types has some) finds it.
const nodeTypes22 = { from: path.join(root, 'node_modules/@types/node'), to: path.join(root, 'node_modules/@types/node-22') }
const newerNodeTypes: Record<string, ts.CompilerOptions> = {
  '@types/node 22, lib es2023': configurations['module: nodenext']!,
  '@types/node 22, lib esnext': { ...configurations['module: nodenext'], lib: ['lib.esnext.d.ts'] }
}

describe('user programs written against undici', () => {
  it('are there to compile', () => {
    assert.ok(programs.length >= 6, programs.join(' '))
  })

  for (const [name, options] of Object.entries(configurations)) {
    it(`compile against undici under ${name}`, () => {
      assert.deepEqual(compilePrograms(programs, options), [])
    })

    it(`compile against conduit with only the import changed under ${name}`, () => {
      assert.deepEqual(compilePrograms(programs, options, { from: 'undici', to: 'conduit' }), [])
    })
  }

  for (const [name, options] of Object.entries(newerNodeTypes)) {
    it(`compile against conduit under ${name}`, () => {
      assert.deepEqual(compilePrograms(programs, options, { from: 'undici', to: 'conduit' }, nodeTypes22), [])
    })
  }
})
