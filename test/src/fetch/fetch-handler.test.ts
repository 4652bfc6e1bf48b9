/**
 * The fetch handler against generated dispatch scripts: any chunking, ending with success or
 * failure, with or without an abort at any step, read with text() or through response.body.
 * Whatever happens, the fetch settles exactly once and the body reads the bytes or fails with
 * the expected error.
 */

import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { Dispatcher } from '../../../src/dispatcher/dispatcher.js'
import type { DispatchHandler, DispatchOptions } from '../../../src/handler.js'
import { SimpleController } from '../../../src/handler.js'
import { fetch } from '../../../src/fetch/fetch.js'

interface Script {
  chunks: Uint8Array[]
  ending: 'end' | 'error'
  /** Step at which the signal aborts: 0 before headers, 1..n after chunk n-1; -1 never. */
  abortAt: number
  read: 'text' | 'stream'
}

/** Plays a script step by step (one event per macrotask), honouring pause and resume. */
class ScriptDispatcher extends Dispatcher {
  readonly script: Script
  readonly onStep: (step: number) => void
  constructor (script: Script, onStep: (step: number) => void) {
    super()
    this.script = script
    this.onStep = onStep
  }

  override dispatch (_opts: DispatchOptions, handler: DispatchHandler): boolean {
    let done = false
    let waiting: (() => void) | null = null
    const controller = new SimpleController({
      abort: (reason) => {
        if (done) return
        done = true
        setImmediate(() => handler.onResponseError?.(controller, reason))
      },
      resume: () => { const w = waiting; waiting = null; w?.() }
    })
    handler.onRequestStart?.(controller, {})
    const steps: Array<() => void> = [() => handler.onResponseStart?.(controller, 200, { 'content-type': 'application/octet-stream' }, 'OK')]
    for (const chunk of this.script.chunks) steps.push(() => handler.onResponseData?.(controller, Buffer.from(chunk)))
    steps.push(() => {
      done = true
      if (this.script.ending === 'end') handler.onResponseEnd?.(controller, {})
      else handler.onResponseError?.(controller, new Error('connection lost'))
    })
    let index = 0
    const next = (): void => {
      if (done) return
      if (controller.paused) {
        waiting = () => setImmediate(next)
        return
      }
      this.onStep(index)
      if (done) return
      steps[index++]!()
      if (index < steps.length) setImmediate(next)
    }
    setImmediate(next)
    return true
  }

  override close (): Promise<void> { return Promise.resolve() }
  override destroy (): Promise<void> { return Promise.resolve() }
}

async function readBody (response: Awaited<ReturnType<typeof fetch>>, mode: Script['read']): Promise<Buffer> {
  if (mode === 'text') return Buffer.from(await response.text(), 'latin1')
  const chunks: Buffer[] = []
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(chunk))
  return Buffer.concat(chunks)
}

describe('fetch handler under generated dispatch scripts', () => {
  it('settles once and reads the bytes, or fails with the abort reason or a terminated TypeError (property)', async () => {
    const script = fc.record({
      // Up to 8 chunks of up to 30000 bytes: enough to pass the body's buffer limit and make it pause the dispatch.
      chunks: fc.array(fc.tuple(fc.integer({ min: 1, max: 30000 }), fc.integer({ min: 0, max: 127 })).map(([size, byte]) => new Uint8Array(size).fill(byte)), { maxLength: 8 }),
      ending: fc.constantFrom('end' as const, 'error' as const),
      abortAt: fc.integer({ min: -1, max: 9 }),
      read: fc.constantFrom('text' as const, 'stream' as const)
    })
    await fc.assert(fc.asyncProperty(script, async (s) => {
      const controller = new AbortController()
      const reason = new Error('aborted by the test')
      const dispatcher = new ScriptDispatcher(s, (step) => { if (step === s.abortAt) controller.abort(reason) })
      let settled = 0
      const expected = Buffer.concat(s.chunks.map((c) => Buffer.from(c)))
      const abortsBeforeHead = s.abortAt === 0
      // Step chunks.length + 1 is the end (or failure) of the body: an abort just before it still wins.
      const abortsDuringBody = s.abortAt >= 1 && s.abortAt <= s.chunks.length + 1
      let outcome: string
      try {
        const response = await fetch('http://127.0.0.1:3999/', { signal: controller.signal, dispatcher }).finally(() => { settled++ })
        const body = await readBody(response, s.read)
        assert.deepEqual(body, expected)
        outcome = 'read'
      } catch (err) {
        if (err === reason) outcome = 'aborted'
        else if (err instanceof TypeError && (err.message === 'terminated' || err.message === 'fetch failed')) outcome = 'failed'
        else throw err
      }
      assert.equal(settled, 1)
      if (abortsBeforeHead) assert.equal(outcome, 'aborted')
      else if (abortsDuringBody) assert.equal(outcome, 'aborted')
      else if (s.ending === 'error') assert.equal(outcome, 'failed')
      else assert.equal(outcome, 'read')
    }), { numRuns: 150 })
  })
})
