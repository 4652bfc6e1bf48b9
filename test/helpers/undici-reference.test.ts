import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { NODE_MAJOR, UNDICI_MAJOR, UNDICI_VERSION, undici } from './undici-reference.js'

describe('the undici reference of the differential tests', () => {
  it('is undici 7, or undici 8 on Node 22 and later when CONDUIT_UNDICI_REFERENCE=8 asks for it', () => {
    assert.equal(UNDICI_MAJOR, NODE_MAJOR >= 22 && process.env.CONDUIT_UNDICI_REFERENCE === '8' ? 8 : 7)
    assert.equal(UNDICI_VERSION.split('.')[0], String(UNDICI_MAJOR))
  })

  it('is a working module: its Agent and fetch are there', () => {
    assert.equal(typeof undici.Agent, 'function')
    assert.equal(typeof undici.fetch, 'function')
  })
})
