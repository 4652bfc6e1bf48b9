import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { parseCacheControl } from '../../../interceptors/cache/parse-cache-control.js'
import { parseHttpDate } from '../../../interceptors/cache/http-date.js'
import { parseVary, varyValues } from '../../../interceptors/cache/vary.js'
import { freshnessLifetime, initialAge, MAX_HEURISTIC_SECONDS } from '../../../interceptors/cache/freshness.js'
import { decideStorage } from '../../../interceptors/cache/storage-decision.js'
import { formatCacheStatus } from '../../../interceptors/cache/cache-status.js'
import { MAX_DELTA_SECONDS, parseAge } from '../../../interceptors/cache/delta-seconds.js'

describe('parseCacheControl()', () => {
  it('reads numeric, flag and field-list directives case-insensitively', () => {
    assert.deepEqual(parseCacheControl('Max-Age=60, S-MAXAGE=120, public, must-revalidate, no-cache="Set-Cookie, X-Foo", private'), {
      'max-age': 60, 's-maxage': 120, public: true, 'must-revalidate': true, 'no-cache': ['set-cookie', 'x-foo'], private: true
    })
  })

  it('joins several header lines and keeps the most restrictive of conflicting numeric values', () => {
    assert.deepEqual(parseCacheControl(['max-age=10', 'max-age=20, immutable']), { 'max-age': 10, immutable: true })
    assert.deepEqual(parseCacheControl('max-age=60, max-age=0'), { 'max-age': 0 })
    assert.deepEqual(parseCacheControl('min-fresh=5, min-fresh=50, max-stale, max-stale=3'), { 'min-fresh': 50, 'max-stale': 3 })
  })

  it('turns an invalid delta-seconds into 0 (stale) and caps huge ones at 2^31', () => {
    assert.deepEqual(parseCacheControl('max-age=abc, s-maxage=-1, stale-if-error=99999999999999'), { 'max-age': 0, 's-maxage': 0, 'stale-if-error': 2_147_483_648 })
  })

  it('reads max-stale without a value as any staleness, and quoted numbers', () => {
    assert.deepEqual(parseCacheControl('max-stale, min-fresh="5"'), { 'max-stale': Infinity, 'min-fresh': 5 })
  })

  it('ignores unknown directives and empty parts', () => {
    assert.deepEqual(parseCacheControl(' , community="UCI", ,no-store,'), { 'no-store': true })
  })

  it('never throws, whatever the header text', () => {
    fc.assert(fc.property(fc.string(), (text) => { parseCacheControl(text) }))
  })

  it('reads back any list of directives it is given', () => {
    const numeric = fc.constantFrom('max-age', 's-maxage', 'min-fresh', 'stale-while-revalidate', 'stale-if-error')
    const flag = fc.constantFrom('public', 'no-store', 'must-revalidate', 'proxy-revalidate', 'immutable', 'no-transform', 'only-if-cached')
    const token = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/)
    const directive = fc.oneof(
      fc.tuple(numeric, fc.nat({ max: 1_000_000 })).map(([name, n]) => ({ text: `${name}=${n}`, name, value: n as unknown })),
      flag.map((name) => ({ text: name, name, value: true as unknown })),
      fc.array(token, { minLength: 1, maxLength: 3 }).map((fields) => ({ text: `no-cache="${fields.join(', ')}"`, name: 'no-cache', value: fields as unknown }))
    )
    fc.assert(fc.property(fc.uniqueArray(directive, { selector: (d) => d.name, maxLength: 8 }), fc.constantFrom(',', ', ', ' ,  '), (list, separator) => {
      const parsed = parseCacheControl(list.map((d) => d.text).join(separator)) as Record<string, unknown>
      assert.equal(Object.keys(parsed).length, list.length)
      for (const d of list) assert.deepEqual(parsed[d.name], d.value)
    }))
  })
})

describe('parseCacheControl(): malformed values', () => {
  it('makes a numeric directive with whitespace around "=" invalid, which counts as stale', () => {
    for (const text of ['max-age =60', 'max-age= 60', 'max-age = 60', 'max-age\t=60']) {
      assert.deepEqual(parseCacheControl(text), { 'max-age': 0 }, text)
    }
  })

  it('makes a numeric directive with junk after its value invalid', () => {
    for (const text of ['max-age=60\u00a0', 'max-age=60\v', 'max-age=60\ufeff', 'max-age="60"\u00a0', 'max-age=60 junk', 'max-age=60;x', 'max-age="60" junk', 'max-age="60', 'max-age=6 0', 'max-age=1.5', 'max-age=']) {
      assert.deepEqual(parseCacheControl(text), { 'max-age': 0 }, text)
    }
  })

  it('applies a malformed no-cache or private field list to the whole response', () => {
    assert.deepEqual(parseCacheControl('no-cache = "set-cookie", private="a" b'), { 'no-cache': true, private: true })
  })

  it('reads each malformed spelling as the most restrictive meaning (case table)', () => {
    const table: Array<[string, Record<string, unknown>]> = [
      ['public =', {}],
      ['public=1, max-age=60', { 'max-age': 60 }],
      ['public, public=1', {}],
      ['must-revalidate="x", proxy-revalidate=1, immutable=, max-age=5', { 'max-age': 5 }],
      ['no-store=1', { 'no-store': true }],
      ['public\u00a0, max-age=60', { 'max-age': 60 }],
      ['private\u00a0', { private: true }],
      ['no-\u00a0store', { 'no-store': true }],
      ['no-cache\ufffd', { 'no-cache': true }],
      ['private=" authorization"', { private: ['authorization'] }],
      ['private="a b"', { private: true }],
      ['private="a", private="b"', { private: ['a', 'b'] }],
      ['private="a", private', { private: true }],
      ['s-maxage=60, s-maxage=abc', { 's-maxage': 0 }]
    ]
    for (const [text, expected] of table) assert.deepEqual(parseCacheControl(text), expected, text)
  })

  it('never grants more with a second copy of a directive than with the first alone', () => {
    const numeric = fc.constantFrom('max-age', 's-maxage', 'stale-while-revalidate', 'stale-if-error')
    fc.assert(fc.property(numeric, fc.nat({ max: 1000 }), fc.string({ maxLength: 6 }).filter((text) => !text.includes(',')), (name, n, other) => {
      const once = parseCacheControl(`${name}=${n}`) as Record<string, number>
      const twice = parseCacheControl(`${name}=${n}, ${name}=${other}`) as Record<string, number>
      assert.ok(twice[name] <= once[name])
    }))
  })

  it('keeps the other directives of a header when one is malformed', () => {
    assert.deepEqual(parseCacheControl('public, max-age = 60, must-revalidate'), { public: true, 'max-age': 0, 'must-revalidate': true })
  })

  it('reads digits followed by optional whitespace as the value', () => {
    for (const text of ['max-age=60 ', 'max-age=60\t', 'max-age=60 \t, public']) assert.equal(parseCacheControl(text)['max-age'], 60, text)
  })

  it('never reads a numeric directive as fresh when its value text is anything but digits', () => {
    // Digits followed by SP or HTAB are well formed: that whitespace is the list's own OWS.
    const junk = fc.string({ minLength: 1, maxLength: 8 }).filter((text) => !/^\d+[ \t]*$/.test(text) && !text.includes(',') && !text.includes('"'))
    fc.assert(fc.property(junk, fc.constantFrom('', ' ', '\t'), fc.constantFrom('', ' '), (value, before, after) => {
      assert.equal(parseCacheControl(`max-age${before}=${after}${value}`)['max-age'], 0)
    }))
  })

  it('reads a well-formed delta-seconds whatever its digits, capped at 2^31', () => {
    fc.assert(fc.property(fc.stringMatching(/^\d{1,15}$/), (digits) => {
      assert.equal(parseCacheControl(`s-maxage=${digits}`)['s-maxage'], Math.min(Number(digits), MAX_DELTA_SECONDS))
    }))
  })
})

describe('parseAge()', () => {
  it('uses the first value of a list or of repeated lines', () => {
    assert.equal(parseAge('7200, 0'), 7200)
    assert.equal(parseAge(['7200', '0']), 7200)
    assert.equal(parseAge(' 30 '), 30)
  })

  it('ignores parameters after the first value', () => {
    assert.equal(parseAge('7200;src=edge'), 7200)
  })

  it('ignores a first value that is not a delta-seconds (RFC 9111 §5.1), as if the field were absent', () => {
    for (const text of ['-1', '-7200', '1.5', '7200.0', 'abc', 'junk', '', '7200a', 'a7200', '0x10']) assert.equal(parseAge(text), undefined, text)
    assert.equal(parseAge(undefined), undefined)
  })

  it('reads any non-negative integer back, with any list or parameters after it', () => {
    fc.assert(fc.property(fc.nat(), fc.constantFrom('', ', 0', ',junk', ';a=b', ' ; x'), (n, tail) => {
      assert.equal(parseAge(`${n}${tail}`), Math.min(n, MAX_DELTA_SECONDS))
    }))
  })

  it('reports either nothing or a non-negative integer up to 2^31 for any text', () => {
    fc.assert(fc.property(fc.string(), (text) => {
      const age = parseAge(text)
      assert.ok(age === undefined || (Number.isInteger(age) && age >= 0 && age <= MAX_DELTA_SECONDS))
    }))
  })
})

describe('parseHttpDate()', () => {
  it('reads the three formats RFC 9110 requires, as GMT', () => {
    const expected = Date.UTC(1994, 10, 6, 8, 49, 37)
    assert.equal(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT'), expected)
    assert.equal(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT'), expected)
    assert.equal(parseHttpDate('Sun Nov  6 08:49:37 1994'), expected)
  })

  it('rejects other text, impossible dates and a first value given as a list', () => {
    for (const bad of ['0', '-1', 'tomorrow', '2024-01-01T00:00:00Z', 'Sun, 31 Feb 2021 00:00:00 GMT', 'Sun, 06 Nov 1994 25:00:00 GMT', 'Sun, 06 Nov 1994 08:49:37 PST']) {
      assert.equal(parseHttpDate(bad), undefined, bad)
    }
    assert.equal(parseHttpDate(['Sun, 06 Nov 1994 08:49:37 GMT']), undefined)
  })

  it('reads back any IMF-fixdate and asctime date to the second', () => {
    const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']
    const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
    const pad = (n: number): string => String(n).padStart(2, '0')
    fc.assert(fc.property(fc.integer({ min: 0, max: 4_102_444_800 }), (seconds) => {
      const date = new Date(seconds * 1000)
      assert.equal(parseHttpDate(date.toUTCString()), seconds * 1000)
      const asctime = `${days[date.getUTCDay()]} ${months[date.getUTCMonth()]} ${String(date.getUTCDate()).padStart(2, ' ')} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} ${date.getUTCFullYear()}`
      assert.equal(parseHttpDate(asctime), seconds * 1000)
    }))
  })

  it('never throws, whatever the text', () => {
    fc.assert(fc.property(fc.string(), (text) => { parseHttpDate(text) }))
  })
})

describe('Vary parsing', () => {
  it('lists lower-case names once, and reports a wildcard', () => {
    assert.deepEqual(parseVary('Accept-Encoding, accept-language,ACCEPT-ENCODING'), ['accept-encoding', 'accept-language'])
    assert.equal(parseVary('accept, *'), '*')
    assert.deepEqual(parseVary(undefined), [])
  })

  it('records the request values, null for absent headers', () => {
    assert.deepEqual(varyValues(['accept', 'x-a'], { accept: 'text/html' }), { accept: 'text/html', 'x-a': null })
    assert.equal(varyValues([], { accept: 'x' }), undefined)
  })
})

describe('freshness', () => {
  const base = { statusCode: 200, shared: true, responseTime: Date.UTC(2024, 0, 1), cacheByDefault: undefined }

  it('caps a heuristic lifetime at one day', () => {
    const headers = { 'last-modified': new Date(Date.UTC(2000, 0, 1)).toUTCString(), date: new Date(base.responseTime).toUTCString() }
    assert.deepEqual(freshnessLifetime({ ...base, headers, directives: {} }), { seconds: MAX_HEURISTIC_SECONDS, source: 'heuristic' })
  })

  it('takes the larger of the Date-implied age and Age plus the response delay as the initial age', () => {
    const responseTime = Date.UTC(2024, 0, 1, 0, 0, 30)
    const date = new Date(Date.UTC(2024, 0, 1, 0, 0, 0)).toUTCString()
    assert.equal(initialAge({ date }, responseTime - 2000, responseTime), 30)
    assert.equal(initialAge({ date, age: '100' }, responseTime - 2000, responseTime), 102)
    assert.equal(initialAge({ age: 'junk' }, responseTime, responseTime), 0)
    assert.equal(initialAge({ date, age: '-7200' }, responseTime - 2000, responseTime), 30)
    assert.equal(initialAge({ age: '7200, 0' }, responseTime, responseTime), 7200)
  })

  it('never produces a stored value that goes stale before it was cached or is deleted before it goes stale', () => {
    fc.assert(fc.property(
      fc.record({
        maxAge: fc.option(fc.nat({ max: 1_000_000 })), age: fc.option(fc.nat({ max: 1_000_000 })),
        swr: fc.option(fc.nat({ max: 1000 })), etag: fc.boolean(), status: fc.constantFrom(200, 203, 301, 404, 500)
      }),
      ({ maxAge, age, swr, etag, status }) => {
        const parts = [maxAge === null ? '' : `max-age=${maxAge}`, swr === null ? '' : `stale-while-revalidate=${swr}`].filter(Boolean)
        const headers: Record<string, string> = {}
        if (parts.length > 0) headers['cache-control'] = parts.join(', ')
        if (age !== null) headers.age = String(age)
        if (etag) headers.etag = '"e"'
        const now = Date.now()
        const decision = decideStorage({ statusCode: status, statusMessage: '', headers, requestHeaders: {}, shared: true, cacheByDefault: undefined, requestTime: now, responseTime: now })
        if (!decision.store) return
        assert.ok(decision.value.staleAt >= decision.value.cachedAt)
        assert.ok(decision.value.deleteAt > decision.value.staleAt)
      }
    ))
  })
})

describe('formatCacheStatus()', () => {
  it('writes the RFC 9211 parameters in order', () => {
    assert.equal(formatCacheStatus({ hit: true, ttl: 41.7 }), 'conduit; hit; ttl=41')
    assert.equal(formatCacheStatus({ fwd: 'stale', fwdStatus: 304, ttl: 10, stored: true }), 'conduit; fwd=stale; fwd-status=304; ttl=10; stored')
  })
})
