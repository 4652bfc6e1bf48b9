import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ForwardingController, SimpleController } from '../../../src/index.js'

function recorded (): { controller: SimpleController, calls: string[] } {
  const calls: string[] = []
  const controller = new SimpleController({
    abort: (reason) => calls.push(`abort:${reason.message}`),
    pause: () => calls.push('pause'),
    resume: () => calls.push('resume')
  })
  return { controller, calls }
}

describe('ForwardingController', () => {
  it('sends pause and resume to the current target', () => {
    const forwarding = new ForwardingController()
    const first = recorded()
    forwarding.target = first.controller
    forwarding.pause()
    assert.equal(forwarding.paused, true)
    forwarding.resume()
    assert.equal(forwarding.paused, false)
    assert.deepEqual(first.calls, ['pause', 'resume'])
  })

  it('keeps a caller that paused paused on the next target', () => {
    const forwarding = new ForwardingController()
    forwarding.pause()
    const first = recorded()
    forwarding.target = first.controller
    forwarding.target = null
    const second = recorded()
    forwarding.target = second.controller
    assert.deepEqual(first.calls, ['pause'])
    assert.deepEqual(second.calls, ['pause'])
    assert.equal(forwarding.target, second.controller)
  })

  it('aborts the current target once and every later one with the first reason', () => {
    const forwarding = new ForwardingController()
    const first = recorded()
    forwarding.target = first.controller
    const reason = new Error('stop')
    forwarding.abort(reason)
    forwarding.abort(new Error('again'))
    const second = recorded()
    forwarding.target = second.controller
    assert.equal(forwarding.aborted, true)
    assert.equal(forwarding.reason, reason)
    assert.deepEqual(first.calls, ['abort:stop'])
    assert.deepEqual(second.calls, ['abort:stop'])
  })

  it('hands the abort to onAbort instead of the target when one is given', () => {
    const reasons: Error[] = []
    const forwarding = new ForwardingController({ onAbort: (reason) => reasons.push(reason) })
    const target = recorded()
    forwarding.target = target.controller
    forwarding.abort(undefined as unknown as Error)
    forwarding.abort(new Error('again'))
    forwarding.target = recorded().controller
    assert.equal(reasons.length, 1)
    assert.equal((reasons[0] as Error & { code?: string }).code, 'LIB_ERR_ABORTED')
    assert.deepEqual(target.calls, [])
  })

  it('reports the target as aborted when the target was aborted on its own', () => {
    const forwarding = new ForwardingController()
    assert.equal(forwarding.aborted, false)
    assert.equal(forwarding.reason, null)
    const target = recorded()
    forwarding.target = target.controller
    const reason = new Error('signal fired')
    target.controller.abort(reason)
    assert.equal(forwarding.aborted, true)
    assert.equal(forwarding.reason, reason)
  })
})
