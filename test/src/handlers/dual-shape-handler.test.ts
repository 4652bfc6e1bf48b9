import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DualShapeHandler } from '../../../src/handler.js'
import type { DispatchController, DispatchHandler, IncomingHeaders } from '../../../src/handler.js'

/** A contract handler that records its hooks and pauses when told to. */
class Recorder extends DualShapeHandler implements DispatchHandler {
  events: unknown[] = []
  controller: DispatchController | null = null
  pauseOnStart = false

  onRequestStart (controller: DispatchController, context: unknown): void {
    this.controller = controller
    this.events.push(['start', context])
  }

  onResponseInformation (_c: DispatchController, statusCode: number): void { this.events.push(['info', statusCode]) }

  onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    this.events.push(['response', statusCode, headers, statusMessage])
    if (this.pauseOnStart) controller.pause()
  }

  onResponseData (_c: DispatchController, chunk: Buffer): void { this.events.push(['data', chunk.toString()]) }
  onResponseEnd (_c: DispatchController, trailers: IncomingHeaders): void { this.events.push(['end', trailers]) }
  onResponseError (_c: DispatchController, err: Error): void { this.events.push(['error', err.message]) }
}

describe('DualShapeHandler', () => {
  it('runs the contract hooks for older calls, with raw headers read as an object', () => {
    const handler = new Recorder()
    handler.onConnect(() => {}, { ctx: 1 })
    assert.equal(handler.onHeaders(103, [Buffer.from('link'), Buffer.from('</a>')], () => {}), true)
    assert.equal(handler.onHeaders(200, [Buffer.from('Set-Cookie'), Buffer.from('a=1'), Buffer.from('set-cookie'), Buffer.from('b=2'), 'x-n', '1'] as never, () => {}, 'OK'), true)
    assert.equal(handler.onData(Buffer.from('body')), true)
    handler.onComplete([Buffer.from('x-trailer'), Buffer.from('t')])
    assert.deepEqual(handler.events, [
      ['start', { ctx: 1 }],
      ['info', 103],
      ['response', 200, { 'set-cookie': ['a=1', 'b=2'], 'x-n': '1' }, 'OK'],
      ['data', 'body'],
      ['end', { 'x-trailer': 't' }]
    ])
  })

  it('answers false while the handler is paused, and resumes through the resume onHeaders gave', () => {
    const handler = new Recorder()
    handler.pauseOnStart = true
    let resumed = 0
    handler.onConnect(() => {})
    assert.equal(handler.onHeaders(200, [], () => { resumed++ }), false)
    assert.equal(handler.controller!.paused, true)
    handler.controller!.resume()
    assert.equal(resumed, 1)
    assert.equal(handler.onData(Buffer.from('x')), true)
  })

  it('aborts through the abort function onConnect gave, once, with the reason', () => {
    const handler = new Recorder()
    const reasons: unknown[] = []
    handler.onConnect((err) => reasons.push(err))
    const reason = new Error('stop')
    handler.controller!.abort(reason)
    handler.controller!.abort(new Error('again'))
    assert.deepEqual(reasons, [reason])
    assert.equal(handler.controller!.aborted, true)
    assert.equal(handler.controller!.reason, reason)
  })

  it('still answers older calls that come without onConnect, and reports errors and upgrades', () => {
    const handler = new Recorder()
    handler.onError(new Error('boom'))
    assert.deepEqual(handler.events, [['error', 'boom']])
    assert.equal(handler.onData(Buffer.from('late')), true)
    assert.equal(handler.onHeaders(200, null, undefined as never), true)
  })
})
