import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { NODE_MAJOR, UNDICI_MAJOR, UNDICI_VERSION, referenceMajor, undici } from './undici-reference.js'

describe('the undici reference of the differential tests', () => {
  it('is undici 8 on Node 22 and later, undici 7 on Node 20, unless CONDUIT_UNDICI_REFERENCE=7 asks for 7', () => {
    assert.equal(UNDICI_MAJOR, referenceMajor(NODE_MAJOR, process.env.CONDUIT_UNDICI_REFERENCE))
    assert.equal(UNDICI_VERSION.split('.')[0], String(UNDICI_MAJOR))
  })

  it('chooses the major by runtime and override', () => {
    const cases: Array<[number, string | undefined, 7 | 8]> = [
      [20, undefined, 7], [20, '8', 7], [20, '7', 7],
      [22, undefined, 8], [24, undefined, 8], [26, undefined, 8],
      [22, '7', 7], [26, '7', 7], [26, '8', 8], [24, 'something else', 8]
    ]
    for (const [node, override, major] of cases) assert.equal(referenceMajor(node, override), major, `Node ${node}, override ${String(override)}`)
  })

  it('is a working module: its Agent and fetch are there', () => {
    assert.equal(typeof undici.Agent, 'function')
    assert.equal(typeof undici.fetch, 'function')
  })
})
