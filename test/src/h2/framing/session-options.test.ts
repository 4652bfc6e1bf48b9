import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { InvalidArgumentError } from '../../../../src/errors.js'
import { DEFAULT_SESSION_OPTIONS, sessionOptions } from '../../../../src/h2/framing/session-options.js'

describe('H2Session options', () => {
  it('fill every option left out with its default, flood limits one by one', () => {
    const options = sessionOptions({ maxHeaderListSize: 1000, floods: { maxPings: 5 } })
    assert.equal(options.maxHeaderBlockBytes, 2000)
    assert.equal(options.floods.maxPings, 5)
    assert.equal(options.floods.maxSettings, DEFAULT_SESSION_OPTIONS.floods.maxSettings)
    assert.equal(options.initialWindowSize, DEFAULT_SESSION_OPTIONS.initialWindowSize)
  })

  const bad: Array<[string, number]> = [['initialWindowSize', 100], ['initialWindowSize', 2 ** 31], ['connectionWindowSize', 1.5], ['maxFrameSize', 16_383], ['maxFrameSize', 2 ** 24]]
  for (const [name, value] of bad) {
    it(`reject ${name} ${value}, naming it and the value`, () => {
      assert.throws(() => sessionOptions({ [name]: value }), (error: unknown) =>
        error instanceof InvalidArgumentError && error.message.includes(`${name} must be`) && error.message.includes(String(value)))
    })
  }
})
