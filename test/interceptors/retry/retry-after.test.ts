import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { parseHttpDate, retryAfterMs } from '../../../interceptors/retry/retry-after.js'

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0)
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const pad = (n: number): string => String(n).padStart(2, '0')
// Whole seconds between 1970 and 9999, as HTTP dates carry.
const seconds = fc.integer({ min: 0, max: 253402300799 }).map((s) => s * 1000)

describe('Retry-After', () => {
  it('reads delay-seconds as a wait in milliseconds', () => {
    fc.assert(fc.property(fc.nat({ max: 10_000_000 }), (n) => {
      assert.equal(retryAfterMs(String(n), NOW), n * 1000)
    }))
  })

  it('reads every IMF-fixdate back to the instant it was formatted from', () => {
    fc.assert(fc.property(seconds, (time) => {
      assert.equal(parseHttpDate(new Date(time).toUTCString()), time)
    }))
  })

  it('reads the obsolete asctime form as GMT', () => {
    fc.assert(fc.property(seconds, (time) => {
      const d = new Date(time)
      const day = String(d.getUTCDate()).padStart(2, ' ')
      const text = `${DAYS[d.getUTCDay()]!.slice(0, 3)} ${MONTHS[d.getUTCMonth()]} ${day} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} ${d.getUTCFullYear()}`
      assert.equal(parseHttpDate(text), time)
    }))
  })

  it('reads the obsolete RFC 850 form with a two-digit year', () => {
    assert.equal(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT'), Date.UTC(1994, 10, 6, 8, 49, 37))
  })

  it('turns a future date into the time left and a past date into zero', () => {
    assert.equal(retryAfterMs(new Date(NOW + 7000).toUTCString(), NOW), 7000)
    assert.equal(retryAfterMs(new Date(NOW - 7000).toUTCString(), NOW), 0)
  })

  it('returns undefined for anything malformed, so the backoff applies', () => {
    for (const value of ['', ' ', '-1', '1.5', '3s', 'soon', 'Thu, 31 Feb 2026 10:00:00 GMT', 'Thu, 15 Jan 2026 25:00:00 GMT', 'Thu, 15 Jan 2026 10:00:00 UTC']) {
      assert.equal(retryAfterMs(value, NOW), undefined, value)
    }
    assert.equal(retryAfterMs(undefined, NOW), undefined)
    fc.assert(fc.property(fc.string(), (text) => {
      const wait = retryAfterMs(text, NOW)
      assert.ok(wait === undefined || (Number.isFinite(wait) && wait >= 0))
    }))
  })

  it('uses the first value of a repeated header', () => {
    assert.equal(retryAfterMs(['2', '9'], NOW), 2000)
  })
})
