/**
 * conduit's entry exports every name undici's does: a user moving code over finds each one. A
 * name that a future undici adds shows up here as a failing test. Names other branches of work
 * are still bringing in are listed in PENDING, each with the feature it belongs to; the list
 * shrinks as they land.
 */

import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { undici } from '../helpers/undici-reference.js'
import * as conduit from '../../src/index.js'
import conduitDefault, * as packageEntry from '../../src/package-entry.js'

// The reference is undici's CommonJS module seen through an ES import, whose namespace adds
// `default` (and, from Node 24, `module.exports`): neither is one of undici's names.
const INTEROP_NAMES = new Set(['default', 'module.exports'])
const undiciNames = Object.keys(undici).filter((name) => !INTEROP_NAMES.has(name))

/** undici names conduit does not export yet, by the feature that will bring them. */
const PENDING: Readonly<Record<string, string>> = {}

describe("conduit's export names", () => {
  it("include every name of undici's entry, apart from those still pending", () => {
    const conduitNames = new Set(Object.keys(conduit))
    const missing = undiciNames.filter((name) => !conduitNames.has(name) && !(name in PENDING))
    // Side by side, so a failure shows both lists.
    assert.deepEqual(missing, [], `undici: ${undiciNames.join(' ')}\nconduit: ${[...conduitNames].sort().join(' ')}`)
  })

  it('list as pending only names undici has and conduit still lacks', () => {
    const conduitNames = new Set(Object.keys(conduit))
    const stale = Object.keys(PENDING).filter((name) => !undiciNames.includes(name) || conduitNames.has(name))
    assert.deepEqual(stale, [], 'remove these from PENDING: they landed (or undici dropped them)')
  })

  it('give each shared name the same kind of value as undici (class, function or namespace)', () => {
    const kinds = (lib: Record<string, unknown>): Record<string, string> => Object.fromEntries(
      undiciNames.filter((name) => name in conduit).map((name) => [name, typeof lib[name]])
    )
    assert.deepEqual(kinds(conduit as Record<string, unknown>), kinds(undici))
  })

  it("give the package's default export every name, the same values, as undici's default export does", () => {
    const names = Object.keys(conduit)
    assert.deepEqual(names.filter((name) => (conduitDefault as Record<string, unknown>)[name] !== (conduit as Record<string, unknown>)[name]), [])
    assert.deepEqual(Object.keys(packageEntry).filter((name) => name !== 'default').sort(), [...names].sort())
    assert.equal(typeof undici.default, 'object')
  })
})
