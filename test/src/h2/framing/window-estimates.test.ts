import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { BdpEstimator } from '../../../../src/h2/framing/bdp-estimator.js'
import { FloodGuard } from '../../../../src/h2/framing/flood-guard.js'
import { H2ProtocolError } from '../../../../src/h2/framing/protocol-error.js'
import { ErrorCode } from '../../../../src/h2/framing/protocol.js'
import { DEFAULT_FLOOD_LIMITS } from '../../../../src/h2/framing/session-options.js'

describe('BdpEstimator', () => {
  it('grows the window to twice a round trip\'s bytes when they filled most of it, never past the cap', () => {
    fc.assert(fc.property(fc.array(fc.tuple(fc.integer({ min: 1, max: 1 << 22 }), fc.integer({ min: 1, max: 500 })), { maxLength: 30 }), (samples) => {
      const estimator = new BdpEstimator(65_535, 1 << 24)
      let now = 0
      for (const [bytes, rtt] of samples) {
        const before = estimator.window
        assert.equal(estimator.received(bytes, now), !estimator.done)
        if (estimator.done) continue
        assert.equal(estimator.received(1, now), false)
        now += rtt
        const result = estimator.acknowledged(now)
        assert.equal(result.rtt, rtt)
        if (bytes + 1 >= before * 2 / 3) assert.equal(result.window, Math.min(1 << 24, Math.max(2 * (bytes + 1), before)))
        else assert.equal(result.window, null)
        assert.ok(estimator.window <= 1 << 24 && estimator.window >= before)
      }
    }), { numRuns: 200, seed: 8441 })
  })
})

describe('FloodGuard', () => {
  it('ends the connection with ENHANCE_YOUR_CALM past a kind\'s limit within one window, naming the limit', () => {
    const guard = new FloodGuard(DEFAULT_FLOOD_LIMITS, 0)
    for (let i = 0; i < DEFAULT_FLOOD_LIMITS.maxPings; i++) guard.note('maxPings', 10)
    assert.throws(() => { guard.note('maxPings', 20) }, (error: unknown) =>
      error instanceof H2ProtocolError && error.errorCode === ErrorCode.ENHANCE_YOUR_CALM && error.limit === 'maxPings')
  })

  it('counts afresh in each window, and each kind on its own', () => {
    const guard = new FloodGuard(DEFAULT_FLOOD_LIMITS, 0)
    assert.doesNotThrow(() => {
      for (let window = 0; window < 5; window++) {
        const now = window * DEFAULT_FLOOD_LIMITS.windowMs
        for (let i = 0; i < DEFAULT_FLOOD_LIMITS.maxSettings; i++) guard.note('maxSettings', now)
        for (let i = 0; i < DEFAULT_FLOOD_LIMITS.maxPings; i++) guard.note('maxPings', now)
      }
    })
    assert.throws(() => { guard.note('maxPings', 4 * DEFAULT_FLOOD_LIMITS.windowMs) }, H2ProtocolError)
  })
})
