// The text/event-stream interpretation: a case table from the HTML standard's rules, and
// properties over random streams cut at random places.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { EventStreamParser, EventTooLargeError } from '../../../src/eventsource/event-stream-parser.js'
import type { StreamEvent } from '../../../src/eventsource/event-stream-parser.js'

interface Parsed { events: StreamEvent[], retries: number[], lastEventId: string }

function parse (chunks: Array<string | Uint8Array>, maxEventSize = 1 << 20, lastEventId = ''): Parsed {
  const events: StreamEvent[] = []
  const retries: number[] = []
  const parser = new EventStreamParser({ onEvent: (e) => events.push(e), onRetry: (ms) => retries.push(ms) }, lastEventId, maxEventSize)
  for (const chunk of chunks) parser.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
  return { events, retries, lastEventId: parser.lastEventId }
}

const msg = (data: string, type = 'message', lastEventId = ''): StreamEvent => ({ type, data, lastEventId })

// One line per rule: the stream, then the events it dispatches (type, data, last event ID).
const CASES: Array<[string, string, StreamEvent[]]> = [
  ['one data line', 'data: a\n\n', [msg('a')]],
  ['no space after the colon', 'data:a\n\n', [msg('a')]],
  ['only one leading space is removed', 'data:  a\n\n', [msg(' a')]],
  ['data lines joined with LF', 'data: a\ndata: b\n\n', [msg('a\nb')]],
  ['an empty data line counts', 'data\n\n', [msg('')]],
  ['two empty data lines give one LF', 'data\ndata\n\n', [msg('\n')]],
  ['named event', 'event: tick\ndata: 1\n\n', [msg('1', 'tick')]],
  ['event type resets after dispatch', 'event: a\ndata: 1\n\ndata: 2\n\n', [msg('1', 'a'), msg('2')]],
  ['a block without data dispatches nothing and resets the type', 'event: a\n\ndata: 2\n\n', [msg('2')]],
  ['comments are ignored', ': hello\ndata: x\n: bye\n\n', [msg('x')]],
  ['unknown fields are ignored', 'foo: bar\ndata: x\n\n', [msg('x')]],
  ['a field name alone has an empty value', 'event\ndata: x\n\n', [msg('x')]],
  ['CRLF ends lines', 'data: a\r\n\r\n', [msg('a')]],
  ['CR alone ends lines', 'data: a\r\rdata: b\r\r', [msg('a'), msg('b')]],
  ['mixed line ends', 'data: a\r\ndata: b\rdata: c\n\n', [msg('a\nb\nc')]],
  ['id sets the last event ID', 'id: 7\ndata: a\n\ndata: b\n\n', [msg('a', 'message', '7'), msg('b', 'message', '7')]],
  ['an id with NUL is ignored', 'id: 1\ndata: a\n\nid: 2\u0000\ndata: b\n\n', [msg('a', 'message', '1'), msg('b', 'message', '1')]],
  ['an empty id clears it', 'id: 1\ndata: a\n\nid\ndata: b\n\n', [msg('a', 'message', '1'), msg('b')]],
  ['an unfinished event is not dispatched', 'data: a\n\ndata: b\n', [msg('a')]],
  ['a leading BOM is dropped', '\ufeffdata: a\n\n', [msg('a')]],
  ['a second BOM is data', '\ufeffdata: \ufeffa\n\n', [msg('\ufeffa')]],
  ['the field name is case-sensitive', 'Data: a\ndata: b\n\n', [msg('b')]],
  ['invalid UTF-8 becomes U+FFFD', 'data: \xff\n\n', [msg('\ufffd')]]
]

describe('EventStreamParser', () => {
  for (const [name, stream, expected] of CASES) {
    it(name, () => {
      const bytes = name.includes('UTF-8') ? Buffer.from(stream, 'latin1') : Buffer.from(stream)
      assert.deepEqual(parse([bytes]).events, expected)
    })
  }

  it('retry with ASCII digits sets the reconnection time; anything else is ignored', () => {
    assert.deepEqual(parse(['retry: 1500\n\nretry: 1.5\nretry: -1\nretry: x\nretry:\n\n']).retries, [1500])
  })

  it('the last event ID is taken at a blank line, even one that dispatches nothing', () => {
    assert.equal(parse(['id: 5\n\n']).lastEventId, '5')
    assert.equal(parse(['id: 5\n']).lastEventId, '', 'an ID not followed by a blank line is not taken')
    assert.equal(parse(['data: a\n\n'], 1024, 'kept').events[0]!.lastEventId, 'kept', 'the ID of the previous connection carries on')
  })

  it('a CR at the end of one chunk and an LF at the start of the next end one line', () => {
    assert.deepEqual(parse(['data: a\r', '\ndata: b\r', '\n\r', '\n']).events, [msg('a\nb')])
  })

  it('a BOM cut across chunks is still dropped, and a partial one is data', () => {
    const bom = Buffer.from('\ufeff')
    assert.deepEqual(parse([bom.subarray(0, 1), bom.subarray(1, 2), Buffer.concat([bom.subarray(2), Buffer.from('data: a\n\n')])]).events, [msg('a')])
    assert.deepEqual(parse([bom.subarray(0, 2), Buffer.from('data: a\n\n')]).events, [])
  })

  it('a multi-byte character cut across chunks decodes whole', () => {
    const bytes = Buffer.from('data: é€😀\n\n')
    assert.deepEqual(parse([bytes.subarray(0, 7), bytes.subarray(7, 9), bytes.subarray(9, 13), bytes.subarray(13)]).events, [msg('é€😀')])
  })

  it('an event larger than maxEventSize fails with EventTooLargeError, even without a line end', () => {
    assert.throws(() => parse(['data: ' + 'x'.repeat(200)], 100), EventTooLargeError)
    assert.throws(() => parse(['data: ' + 'x'.repeat(60) + '\n', 'data: ' + 'y'.repeat(60) + '\n'], 100), EventTooLargeError)
    assert.deepEqual(parse(['data: ' + 'x'.repeat(60) + '\n\n', 'data: ' + 'y'.repeat(60) + '\n\n'], 100).events.length, 2)
  })

  it('property: cutting a stream anywhere never changes what it dispatches', () => {
    const field = fc.constantFrom('data', 'event', 'id', 'retry', ': comment', 'data:', 'x')
    const value = fc.string({ unit: fc.constantFrom('a', 'é', '😀', ' ', ':', '1', '\u0000') })
    const end = fc.constantFrom('\n', '\r', '\r\n')
    const line = fc.tuple(field, value, end).map(([f, v, e]) => `${f}${f.endsWith(':') || f.startsWith(':') ? '' : ': '}${v}${e}`)
    const stream = fc.array(fc.oneof(line, end), { maxLength: 40 }).map((parts) => Buffer.from(parts.join('')))
    fc.assert(fc.property(stream, fc.array(fc.nat(), { maxLength: 8 }), (bytes, cuts) => {
      const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
      const chunks: Buffer[] = []
      let at = 0
      for (const p of points) { chunks.push(bytes.subarray(at, p)); at = p }
      chunks.push(bytes.subarray(at))
      assert.deepEqual(parse(chunks), parse([bytes]))
    }), { seed: 2611, numRuns: 300 })
  })

  it('property: events serialized with any line ends come back as they were', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', 'é', '😀', ' ', ':', '-') })
    const event = fc.record({ type: fc.constantFrom('message', 'tick', 'update'), lines: fc.array(text, { minLength: 1, maxLength: 4 }), id: fc.option(text, { nil: undefined }) })
    fc.assert(fc.property(fc.array(event, { maxLength: 10 }), fc.constantFrom('\n', '\r', '\r\n'), (events, eol) => {
      let stream = ''
      const expected: StreamEvent[] = []
      let lastEventId = ''
      for (const e of events) {
        if (e.type !== 'message') stream += `event: ${e.type}${eol}`
        if (e.id !== undefined) { stream += `id: ${e.id}${eol}`; lastEventId = e.id }
        for (const l of e.lines) stream += `data: ${l}${eol}`
        stream += eol
        expected.push({ type: e.type, data: e.lines.join('\n'), lastEventId })
      }
      assert.deepEqual(parse([stream]).events, expected)
    }), { seed: 2612, numRuns: 300 })
  })
})
