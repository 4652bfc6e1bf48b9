import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { StreamTimer, STREAM_SWEEP_MS, SWEPT_MIN_MS } from '../../../src/h2/stream-timer.js'
import { T_BODY, T_HEADERS, T_NONE } from '../../../src/connection/connection-timer.js'

/** A timer whose fires are recorded, and whose sweeps are given their `now` by the test. */
function recorded (): { timer: StreamTimer<{ fired: number[] }>, fired: number[] } {
  const target = { fired: [] as number[] }
  const timer = new StreamTimer(function (this: { fired: number[] }, kind: number) { this.fired.push(kind) }, target)
  return { timer, fired: target.fired }
}

const MS = SWEPT_MIN_MS

describe('StreamTimer: long timeouts counted by the session sweep', () => {
  it('keeps the sweep interval small next to the shortest swept timeout', () => {
    // Two sweeps late at most (one notes the start, one sees the end): a quarter of the timeout.
    assert.ok(2 * STREAM_SWEEP_MS <= SWEPT_MIN_MS / 4)
  })

  // Each case: what happens, as [step, now] pairs, and the kinds fired afterwards.
  const cases: Array<{ name: string, steps: Array<[string, number]>, fired: number[], kind: number }> = [
    { name: 'fires once the timeout passed since the sweep that noted the start', steps: [['arm-headers', 0], ['sweep', 100], ['sweep', 100 + MS - 1], ['sweep', 100 + MS]], fired: [T_HEADERS], kind: T_NONE },
    { name: 'does not fire before the start is noted, however late the first sweep', steps: [['arm-headers', 0], ['sweep', 10 * MS]], fired: [], kind: T_HEADERS },
    { name: 'a refresh restarts the countdown from the next sweep', steps: [['arm-body', 0], ['sweep', 0], ['sweep', MS - 1], ['refresh', MS - 1], ['sweep', MS], ['sweep', 2 * MS - 1], ['sweep', 2 * MS]], fired: [T_BODY], kind: T_NONE },
    { name: 'a re-arm for the body restarts the countdown', steps: [['arm-headers', 0], ['sweep', 0], ['arm-body', MS - 1], ['sweep', MS], ['sweep', 2 * MS - 1]], fired: [], kind: T_BODY },
    { name: 'a disarmed timer never fires, and fires again once re-armed', steps: [['arm-body', 0], ['sweep', 0], ['disarm', 1], ['sweep', 5 * MS], ['arm-body', 5 * MS], ['sweep', 5 * MS], ['sweep', 6 * MS]], fired: [T_BODY], kind: T_NONE },
    { name: 'a cleared timer never fires', steps: [['arm-headers', 0], ['sweep', 0], ['clear', 1], ['sweep', 5 * MS]], fired: [], kind: T_NONE },
    { name: 'a timeout of 0 is no timeout', steps: [['arm-zero', 0], ['sweep', 0], ['sweep', 100 * MS]], fired: [], kind: T_NONE },
    { name: 'fires only once', steps: [['arm-headers', 0], ['sweep', 0], ['sweep', MS], ['sweep', 2 * MS], ['refresh', 2 * MS], ['sweep', 3 * MS]], fired: [T_HEADERS], kind: T_NONE }
  ]
  for (const c of cases) {
    it(c.name, () => {
      const { timer, fired } = recorded()
      for (const [step, now] of c.steps) {
        if (step === 'arm-headers') timer.arm(T_HEADERS, MS)
        else if (step === 'arm-body') timer.arm(T_BODY, MS)
        else if (step === 'arm-zero') timer.arm(T_BODY, 0)
        else if (step === 'refresh') timer.refresh()
        else if (step === 'disarm') timer.disarm()
        else if (step === 'clear') timer.clear()
        else timer.sweep(now)
      }
      assert.deepEqual(fired, c.fired)
      assert.equal(timer.kind, c.kind)
    })
  }

  it('leaves a short timeout to a Node timer of its own, which the sweep does not touch', async () => {
    const { timer, fired } = recorded()
    timer.arm(T_HEADERS, 20)
    timer.sweep(0)
    timer.sweep(100 * MS)
    assert.deepEqual(fired, [])
    await new Promise((resolve) => setTimeout(resolve, 60))
    // Node fires a timer no earlier than its timeout: it has fired by now, once.
    assert.deepEqual(fired, [T_HEADERS])
    assert.equal(timer.kind, T_NONE)
    timer.arm(T_BODY, 20)
    timer.clear()
    await new Promise((resolve) => setTimeout(resolve, 60))
    assert.deepEqual(fired, [T_HEADERS])
  })

  it('moves from a short timeout to a long one without the short one firing', async () => {
    const { timer, fired } = recorded()
    timer.arm(T_HEADERS, 20)
    timer.arm(T_BODY, MS)
    await new Promise((resolve) => setTimeout(resolve, 60))
    assert.deepEqual(fired, [])
    timer.sweep(0)
    timer.sweep(MS)
    assert.deepEqual(fired, [T_BODY])
  })
})
