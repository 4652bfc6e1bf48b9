import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import fc from 'fast-check'
import { ResponsePlayer } from '../../../src/replay/response-player.js'
import type { PlayedBody } from '../../../src/replay/response-player.js'
import { ForwardingController } from '../../../src/handlers/forwarding-controller.js'
import type { DispatchController, DispatchHandler } from '../../../src/handler.js'
import { RequestAbortedError } from '../../../src/errors.js'

/** What a handler saw, hook by hook, and the controller it was given. */
interface Recording {
  handler: DispatchHandler
  events: string[]
  body: () => string
  bytes: () => Buffer
  controller: () => DispatchController
  errors: Error[]
}

type Hook = 'onRequestStart' | 'onResponseStart' | 'onResponseData' | 'onResponseEnd' | 'onResponseError'

function record (options: { throwIn?: Hook, onData?: (controller: DispatchController, chunk: Buffer) => void } = {}): Recording {
  const events: string[] = []
  const chunks: Buffer[] = []
  const errors: Error[] = []
  let seen: DispatchController | undefined
  const maybeThrow = (hook: Hook): void => {
    if (options.throwIn === hook) throw new Error(`thrown in ${hook}`)
  }
  const handler: DispatchHandler = {
    onRequestStart (controller) {
      seen = controller
      events.push('start')
      maybeThrow('onRequestStart')
    },
    onResponseStart (controller, statusCode, _headers, statusMessage) {
      seen = controller
      events.push(`head ${statusCode} ${statusMessage}`)
      maybeThrow('onResponseStart')
    },
    onResponseData (controller, chunk) {
      events.push('data')
      chunks.push(chunk)
      options.onData?.(controller, chunk)
      maybeThrow('onResponseData')
    },
    onResponseEnd () {
      events.push('end')
      maybeThrow('onResponseEnd')
    },
    onResponseError (_controller, err) {
      events.push(`error ${err.message}`)
      errors.push(err)
      maybeThrow('onResponseError')
    }
  }
  return {
    handler,
    events,
    errors,
    body: () => Buffer.concat(chunks).toString(),
    bytes: () => Buffer.concat(chunks),
    controller: () => {
      assert.ok(seen !== undefined, 'the handler got no controller')
      return seen
    }
  }
}

const response = (body: PlayedBody) => ({ statusCode: 200, headers: { 'content-type': 'text/plain' }, body })

async function turns (count = 5): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve))
}

describe('ResponsePlayer: bodies in memory', () => {
  for (const [kind, body] of [
    ['a Buffer', Buffer.from('hello')],
    ['a string', 'hello'],
    ['an array of chunks', [Buffer.from('he'), Buffer.from('llo')]],
    ['a generator of chunks', (function * () { yield Buffer.from('hel'); yield 'lo' })()]
  ] as const) {
    it(`delivers ${kind} completely before play() returns`, () => {
      const seen = record()
      new ResponsePlayer(seen.handler).play(response(body))
      assert.equal(seen.events[0], 'start')
      assert.equal(seen.events[1], 'head 200 OK')
      assert.equal(seen.events.at(-1), 'end')
      assert.equal(seen.body(), 'hello')
    })
  }

  it('with deferBody, starts and gives the head before play() returns, and the body and end on a microtask', async () => {
    const seen = record()
    new ResponsePlayer(seen.handler, { deferBody: true }).play(response([Buffer.from('he'), Buffer.from('llo')]))
    assert.deepEqual(seen.events, ['start', 'head 200 OK'])
    assert.equal(seen.body(), '')
    await Promise.resolve()
    assert.equal(seen.events.at(-1), 'end')
    assert.equal(seen.body(), 'hello')
  })

  it('delivers no body to a HEAD request, and ends', () => {
    const seen = record()
    new ResponsePlayer(seen.handler, { method: 'HEAD' }).play(response('hello'))
    assert.deepEqual(seen.events, ['start', 'head 200 OK', 'end'])
  })

  it('releases a stream body given with a reply to HEAD', () => {
    const stream = Readable.from(['unused'])
    const seen = record()
    new ResponsePlayer(seen.handler, { method: 'HEAD' }).play(response(stream))
    assert.deepEqual(seen.events, ['start', 'head 200 OK', 'end'])
    assert.equal(stream.destroyed, true)
  })

  it('uses the given status message and passes the trailers to onResponseEnd', () => {
    let trailers: unknown
    const handler: DispatchHandler = {
      onResponseStart: (_c, _s, _h, message) => { assert.equal(message, 'Fine') },
      onResponseEnd: (_c, t) => { trailers = t }
    }
    new ResponsePlayer(handler).play({ statusCode: 200, statusMessage: 'Fine', headers: {}, body: null, trailers: { 'x-sum': '1' } })
    assert.deepEqual(trailers, { 'x-sum': '1' })
  })

  it('stops after the chunk during which the handler paused, and goes on when it resumes', () => {
    const seen = record({ onData: (controller) => { if (seen.events.filter((e) => e === 'data').length === 1) controller.pause() } })
    new ResponsePlayer(seen.handler).play(response(['a', 'b', 'c'].map((c) => Buffer.from(c))))
    assert.deepEqual(seen.events, ['start', 'head 200 OK', 'data'])
    seen.controller().resume()
    assert.deepEqual(seen.events, ['start', 'head 200 OK', 'data', 'data', 'data', 'end'])
    assert.equal(seen.body(), 'abc')
  })

  it('delivers nothing after the handler aborted through its controller, and reports the reason once', () => {
    const reason = new Error('enough')
    const seen = record({ onData: (controller) => controller.abort(reason) })
    new ResponsePlayer(seen.handler).play(response([Buffer.from('a'), Buffer.from('b')]))
    assert.deepEqual(seen.events, ['start', 'head 200 OK', 'data', 'error enough'])
    assert.equal(seen.errors[0], reason)
  })

  it('delivers every byte of any chunking, however often the handler pauses', () => {
    fc.assert(fc.property(fc.array(fc.uint8Array({ maxLength: 8 }), { maxLength: 12 }), fc.array(fc.boolean(), { maxLength: 12 }), (parts, pauses) => {
      let index = 0
      const seen = record({ onData: (controller) => { if (pauses[index++] === true) controller.pause() } })
      new ResponsePlayer(seen.handler).play(response(parts.map((p) => Buffer.from(p))))
      for (let i = 0; i < 20 && seen.events.at(-1) !== 'end'; i++) seen.controller().resume()
      assert.equal(seen.events.at(-1), 'end')
      assert.deepEqual(seen.bytes(), Buffer.concat(parts))
    }))
  })
})

describe('ResponsePlayer: stream bodies', () => {
  it('delivers a Readable and ends after its last chunk', async () => {
    const seen = record()
    new ResponsePlayer(seen.handler).play(response(Readable.from([Buffer.from('str'), Buffer.from('eam')])))
    assert.deepEqual(seen.events, ['start', 'head 200 OK'])
    await turns()
    assert.equal(seen.events.at(-1), 'end')
    assert.equal(seen.body(), 'stream')
  })

  it('pulls nothing while the handler is paused and continues on resume', async () => {
    let pulled = 0
    async function * source (): AsyncGenerator<Buffer> {
      for (const part of ['x', 'y', 'z']) {
        pulled++
        yield Buffer.from(part)
      }
    }
    const seen = record({ onData: (controller) => controller.pause() })
    new ResponsePlayer(seen.handler).play(response(source()))
    await turns()
    assert.equal(seen.body(), 'x')
    assert.equal(pulled, 1)
    seen.controller().resume()
    await turns()
    assert.equal(seen.body(), 'xy')
    seen.controller().resume()
    await turns()
    seen.controller().resume()
    await turns()
    assert.equal(seen.body(), 'xyz')
    assert.equal(seen.events.at(-1), 'end')
  })

  it('ends with the stream error when the body stream fails', async () => {
    const failing = new Readable({ read () { this.destroy(new Error('disk gone')) } })
    const seen = record()
    new ResponsePlayer(seen.handler).play(response(failing))
    await turns()
    assert.deepEqual(seen.events, ['start', 'head 200 OK', 'error disk gone'])
  })

  it('ends with the error when turning a streamed chunk into bytes throws', async () => {
    async function * source (): AsyncGenerator<unknown> { yield { toString: () => { throw new Error('no text') } } }
    const seen = record()
    new ResponsePlayer(seen.handler).play(response(source()))
    await turns()
    assert.deepEqual(seen.events, ['start', 'head 200 OK', 'error no text'])
  })

  it('destroys the body stream when the handler aborts', async () => {
    const stream = new Readable({ read () {} })
    stream.push('first')
    const seen = record({ onData: (controller) => controller.abort(new RequestAbortedError()) })
    new ResponsePlayer(seen.handler).play(response(stream))
    await turns()
    assert.equal(stream.destroyed, true)
    assert.equal(seen.errors.length, 1)
    assert.ok(seen.errors[0] instanceof RequestAbortedError)
    assert.equal(seen.errors[0].code, 'LIB_ERR_ABORTED')
  })
})

describe('ResponsePlayer: abort signal', () => {
  it('fails at once, after the start, when the signal has already fired', () => {
    const seen = record()
    new ResponsePlayer(seen.handler, { signal: AbortSignal.abort(new Error('too late')) }).play(response('x'))
    assert.deepEqual(seen.events, ['start', 'error too late'])
  })

  it('ends a paused reply with the reason when the signal fires, and stops listening', async () => {
    const ac = new AbortController()
    const seen = record({ onData: (controller) => controller.pause() })
    new ResponsePlayer(seen.handler, { signal: ac.signal }).play(response([Buffer.from('a'), Buffer.from('b')]))
    assert.equal(seen.body(), 'a')
    ac.abort(new Error('user gave up'))
    assert.deepEqual(seen.events, ['start', 'head 200 OK', 'data', 'error user gave up'])
    seen.controller().resume()
    assert.equal(seen.events.length, 4)
  })

  it('turns a reason that is not an Error into a RequestAbortedError', () => {
    const ac = new AbortController()
    const seen = record({ onData: (controller) => controller.pause() })
    new ResponsePlayer(seen.handler, { signal: ac.signal }).play(response('a'))
    ac.abort('just a string')
    assert.ok(seen.errors[0] instanceof RequestAbortedError)
  })

  it('removes its listener once the reply ended', () => {
    const listeners = new Set<() => void>()
    const signal = {
      aborted: false,
      addEventListener: (_type: 'abort', listener: () => void) => { listeners.add(listener) },
      removeEventListener: (_type: 'abort', listener: () => void) => { listeners.delete(listener) }
    }
    const seen = record()
    new ResponsePlayer(seen.handler, { signal }).play(response('done'))
    assert.equal(seen.events.at(-1), 'end')
    assert.equal(listeners.size, 0)
  })
})

describe('ResponsePlayer: handler exceptions', () => {
  for (const hook of ['onRequestStart', 'onResponseStart', 'onResponseData'] as const) {
    it(`ends the reply with the error thrown in ${hook}, never throwing out of play()`, () => {
      const seen = record({ throwIn: hook })
      assert.doesNotThrow(() => new ResponsePlayer(seen.handler).play(response('body')))
      assert.equal(seen.events.at(-1), `error thrown in ${hook}`)
      assert.equal(seen.events.filter((e) => e.startsWith('error') || e === 'end').length, 1)
    })
  }

  for (const hook of ['onResponseEnd', 'onResponseError'] as const) {
    it(`reports an error thrown in ${hook} instead of throwing it, and ends only once`, () => {
      const late: string[] = []
      const seen = record({ throwIn: hook })
      const player = new ResponsePlayer(seen.handler, { onLateHandlerError: (name, err) => late.push(`${name}: ${err.message}`) })
      const first = hook === 'onResponseEnd' ? 'end' : 'error first'
      if (hook === 'onResponseEnd') player.play(response('x'))
      else player.play({ ...response('x'), body: (function * () { throw new Error('first') })() })
      assert.deepEqual(late, [`${hook}: thrown in ${hook}`])
      assert.equal(seen.events.at(-1), first)
      player.fail(new Error('again'))
      assert.equal(seen.events.at(-1), first)
    })
  }
})

describe('ResponsePlayer: continuing on an existing controller', () => {
  it('does not start again and gives the hooks the controller the handler already holds', () => {
    const existing = new ForwardingController()
    const seen = record()
    new ResponsePlayer(seen.handler, { controller: existing }).play(response('stored'))
    assert.deepEqual(seen.events, ['head 200 OK', 'data', 'end'])
    assert.equal(seen.controller(), existing)
  })

  it('keeps a pause the caller made on the earlier attempt, and resumes through the same controller', () => {
    const existing = new ForwardingController()
    existing.pause()
    const seen = record()
    new ResponsePlayer(seen.handler, { controller: existing }).play(response('stored'))
    assert.deepEqual(seen.events, ['head 200 OK'])
    existing.resume()
    assert.deepEqual(seen.events, ['head 200 OK', 'data', 'end'])
  })

  it('fails at once when the caller aborted the earlier attempt', () => {
    const existing = new ForwardingController()
    existing.abort(new Error('caller aborted'))
    const seen = record()
    new ResponsePlayer(seen.handler, { controller: existing }).play(response('stored'))
    assert.deepEqual(seen.events, ['error caller aborted'])
  })

  it('ends with the reason when the caller aborts through it mid-body', () => {
    const existing = new ForwardingController()
    const seen = record({ onData: () => existing.abort(new Error('stop')) })
    new ResponsePlayer(seen.handler, { controller: existing }).play(response(['a', 'b'].map((c) => Buffer.from(c))))
    assert.deepEqual(seen.events, ['head 200 OK', 'data', 'error stop'])
  })
})

describe('ResponsePlayer: run() for mocks', () => {
  it('runs no hook before the call that started it returns', async () => {
    const seen = record()
    new ResponsePlayer(seen.handler).run(() => response('later'))
    assert.deepEqual(seen.events, [])
    await turns(1)
    assert.equal(seen.events.at(-1), 'end')
    assert.equal(seen.body(), 'later')
  })

  it('waits for the delay before the head, and fail() stops the wait', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] })
    const seen = record()
    const player = new ResponsePlayer(seen.handler)
    player.run(() => response('slow'), 1000)
    return turns(1).then(() => {
      assert.deepEqual(seen.events, ['start'])
      t.mock.timers.tick(999)
      assert.deepEqual(seen.events, ['start'])
      player.fail(new Error('destroyed'))
      t.mock.timers.tick(10)
      assert.deepEqual(seen.events, ['start', 'error destroyed'])
      assert.equal(player.ended, true)
    })
  })

  it('ends with the error a producer rejects with, and calls onDone once', async () => {
    let done = 0
    const seen = record()
    new ResponsePlayer(seen.handler, { onDone: () => { done++ } }).run(() => Promise.reject(new Error('no reply')))
    await turns()
    assert.deepEqual(seen.events, ['start', 'error no reply'])
    assert.equal(done, 1)
  })

  it('reports the sent request body, and ends with the error onBodySent throws', async () => {
    const sent: string[] = []
    const seen = record()
    seen.handler.onBodySent = (chunk) => {
      sent.push(String(chunk))
      throw new Error('body hook broke')
    }
    new ResponsePlayer(seen.handler).run(() => response('unused'), 0, {}, ['request ', 'body'])
    await turns(1)
    assert.deepEqual(sent, ['request '])
    assert.deepEqual(seen.events, ['start', 'error body hook broke'])
  })

  it('reports each sent chunk, then onRequestSent once, before the response', async () => {
    const seen = record()
    const order: string[] = []
    seen.handler.onBodySent = (chunk) => { order.push(`chunk ${String(chunk)}`) }
    seen.handler.onRequestSent = () => { order.push('sent') }
    new ResponsePlayer(seen.handler).run(() => { order.push('produce'); return response('ok') }, 0, {}, ['a', 'b'])
    await turns()
    assert.deepEqual(order, ['chunk a', 'chunk b', 'sent', 'produce'])
    assert.equal(seen.body(), 'ok')
  })

  it('plays a produced stream body after the start', async () => {
    const seen = record()
    new ResponsePlayer(seen.handler).run(async () => response(Readable.from(['a', 'b'])))
    await turns()
    assert.equal(seen.events[0], 'start')
    assert.equal(seen.events.at(-1), 'end')
    assert.equal(seen.body(), 'ab')
  })

  it('runError() starts, then fails with the error', async () => {
    const seen = record()
    new ResponsePlayer(seen.handler).runError(new Error('unmatched'))
    assert.deepEqual(seen.events, [])
    await turns(1)
    assert.deepEqual(seen.events, ['start', 'error unmatched'])
  })
})
