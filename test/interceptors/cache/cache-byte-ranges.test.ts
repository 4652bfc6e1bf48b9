import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { MAX_RANGES, formatContentRange, joinRanges, parseContentRange, parseRangeHeader, resolveRanges } from '../../../interceptors/cache/byte-ranges.js'
import { answerRange, ifRangeHolds } from '../../../interceptors/cache/range-response.js'
import { parseEntityTagList, strongMatch, weakMatch } from '../../../interceptors/cache/entity-tags.js'
import type { CacheValue } from '../../../src/contracts/cache-store.js'

const spec = fc.oneof(
  fc.tuple(fc.nat({ max: 10_000 }), fc.option(fc.nat({ max: 10_000 }))).map(([first, extra]) => ({ first, last: extra === null ? undefined : first + extra })),
  fc.nat({ max: 10_000 }).map((suffix) => ({ suffix }))
)

function formatSpec (s: { first: number, last: number | undefined } | { suffix: number }): string {
  return 'suffix' in s ? `-${s.suffix}` : `${s.first}-${s.last ?? ''}`
}

describe('parseRangeHeader()', () => {
  it('reads back any bytes range set it is given, whatever the spacing and unit case', () => {
    fc.assert(fc.property(fc.array(spec, { minLength: 1, maxLength: MAX_RANGES }), fc.constantFrom(',', ', ', ' , '), fc.constantFrom('bytes', 'Bytes', 'BYTES'), (specs, separator, unit) => {
      assert.deepEqual(parseRangeHeader(`${unit}=${specs.map(formatSpec).join(separator)}`), specs)
    }))
  })

  it('rejects other units, reversed ranges, junk and too many ranges', () => {
    for (const text of ['items=0-1', 'bytes=5-2', 'bytes=a-b', 'bytes=', 'bytes=1', 'bytes=--1', '0-1', `bytes=${Array(MAX_RANGES + 1).fill('0-1').join(',')}`]) {
      assert.equal(parseRangeHeader(text), undefined, text)
    }
    assert.equal(parseRangeHeader(['bytes=0-1', 'bytes=2-3']), undefined)
  })

  it('never throws, whatever the text', () => {
    fc.assert(fc.property(fc.string(), (text) => { parseRangeHeader(`bytes=${text}`); parseRangeHeader(text) }))
  })
})

describe('resolveRanges()', () => {
  it('keeps every resolved range inside the representation and drops unsatisfiable ones', () => {
    fc.assert(fc.property(fc.array(spec, { minLength: 1, maxLength: 8 }), fc.nat({ max: 20_000 }), (specs, length) => {
      for (const range of resolveRanges(specs, length)) {
        assert.ok(range.start >= 0 && range.start <= range.end && range.end < length)
      }
    }))
  })

  it('treats a zero suffix and a first byte past the end as unsatisfiable', () => {
    assert.deepEqual(resolveRanges([{ suffix: 0 }, { first: 10, last: undefined }], 10), [])
    assert.deepEqual(resolveRanges([{ suffix: 50 }], 10), [{ start: 0, end: 9 }])
  })
})

describe('Content-Range', () => {
  it('reads back what it writes', () => {
    fc.assert(fc.property(fc.nat({ max: 1e9 }), fc.nat({ max: 1e6 }), fc.nat({ max: 1e6 }), (start, size, tail) => {
      const range = { start, end: start + size }
      const length = range.end + 1 + tail
      assert.deepEqual(parseContentRange(formatContentRange(range, length)), { range, length })
    }))
  })

  it('rejects an unknown length, other units and ranges past the length', () => {
    for (const text of ['bytes 0-1/*', 'bytes */10', 'items 0-1/10', 'bytes 5-20/10', 'bytes 3-2/10']) assert.equal(parseContentRange(text), undefined, text)
  })
})

describe('joinRanges()', () => {
  it('joins exactly the ranges that overlap or touch, into one covering both', () => {
    const range = fc.tuple(fc.nat({ max: 1000 }), fc.nat({ max: 100 })).map(([start, size]) => ({ start, end: start + size }))
    fc.assert(fc.property(range, range, (a, b) => {
      const joined = joinRanges(a, b)
      const gap = b.start > a.end + 1 || a.start > b.end + 1
      assert.equal(joined === undefined, gap)
      if (joined !== undefined) assert.ok(joined.start <= Math.min(a.start, b.start) && joined.end >= Math.max(a.end, b.end) && joined.end - joined.start <= (a.end - a.start) + (b.end - b.start) + 1)
    }))
  })
})

describe('entity tags', () => {
  it('finds every tag of a list, commas inside tags included, and the wildcard', () => {
    assert.deepEqual(parseEntityTagList('"a", W/"b,c" ,"d"'), ['"a"', 'W/"b,c"', '"d"'])
    assert.equal(parseEntityTagList(' * '), '*')
  })

  it('compares weakly ignoring W/, and strongly only between strong equal tags', () => {
    fc.assert(fc.property(fc.stringMatching(/^[a-z0-9]{0,8}$/), fc.boolean(), fc.boolean(), (opaque, weakA, weakB) => {
      const a = `${weakA ? 'W/' : ''}"${opaque}"`
      const b = `${weakB ? 'W/' : ''}"${opaque}"`
      assert.equal(weakMatch(a, b), true)
      assert.equal(strongMatch(a, b), !weakA && !weakB)
    }))
  })
})

describe('answerRange() and If-Range', () => {
  const stored: CacheValue = {
    statusCode: 200,
    statusMessage: 'OK',
    headers: { 'last-modified': 'Mon, 02 Jan 2023 10:00:00 GMT', date: 'Mon, 02 Jan 2023 10:00:05 GMT', 'content-length': '4' },
    etag: '"e"',
    cachedAt: 0,
    staleAt: 1,
    deleteAt: 2
  }

  it('holds for an exactly matching strong Last-Modified date and not for another date', () => {
    assert.equal(ifRangeHolds('Mon, 02 Jan 2023 10:00:00 GMT', stored), true)
    assert.equal(ifRangeHolds('Mon, 02 Jan 2023 10:00:01 GMT', stored), false)
    assert.equal(ifRangeHolds('soon', stored), false)
  })

  it('does not hold for a Last-Modified date within a second of the response Date (a weak validator)', () => {
    const weak = { ...stored, headers: { ...stored.headers, date: 'Mon, 02 Jan 2023 10:00:00 GMT' } }
    assert.equal(ifRangeHolds('Mon, 02 Jan 2023 10:00:00 GMT', weak), false)
  })

  it('slices any satisfiable single range out of the body', () => {
    fc.assert(fc.property(fc.uint8Array({ minLength: 1, maxLength: 64 }), fc.nat(), fc.nat(), (bytes, a, b) => {
      const body = Buffer.from(bytes)
      const start = a % body.length
      const end = start + (b % (body.length - start))
      const answer = answerRange({ range: `bytes=${start}-${end}` }, stored, body)
      assert.ok(answer.kind === 'generated' && answer.statusCode === 206)
      assert.deepEqual(answer.body, body.subarray(start, end + 1))
      assert.equal(answer.headers['content-range'], `bytes ${start}-${end}/${body.length}`)
    }))
  })
})
