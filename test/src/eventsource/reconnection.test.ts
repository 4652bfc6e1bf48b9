// EventSource reconnection against real local servers: Last-Event-ID as UTF-8 (or left out when
// it cannot be a header value), the floor under `retry:` and the backoff of connections that
// bring no event, a redirect loop, URL credentials after a 401, one task per event, and the
// WebIDL shape of the interface — compared with undici where its major behaves the same.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type http from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { UNDICI_MAJOR, undici } from '../../helpers/undici-reference.js'
import { EventSource } from '../../../src/eventsource/event-source.js'
import { MAX_BACKOFF_MS, MIN_SERVER_RETRY_MS, ReconnectionDelay } from '../../../src/eventsource/reconnection-delay.js'
import { startHttpServer } from '../../helpers/servers.js'

type Source = InstanceType<typeof EventSource> | InstanceType<typeof undici.EventSource>
type Make = (url: string, init?: Record<string, unknown>) => Source
const ours: Make = (url, init) => new EventSource(url, init as never)
const theirs: Make = (url, init) => new undici.EventSource(url, init as never)

function sse (res: http.ServerResponse, body: string, end = true): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' })
  if (end) res.end(body)
  else res.write(body)
}

/** Resolves once `source` has fired `count` events of `type`. */
function events (source: Source, type: string, count: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0
    source.addEventListener(type, () => { if (++seen === count) resolve() })
  })
}

/** The bytes of the Last-Event-ID the server got on each request (hex), or null without one. */
async function lastEventIds (make: Make, id: string): Promise<Array<string | null>> {
  const seen: Array<string | null> = []
  const server = await startHttpServer((req, res) => {
    const value = req.headers['last-event-id']
    seen.push(value === undefined ? null : Buffer.from(String(value), 'latin1').toString('hex'))
    sse(res, seen.length === 1 ? `id: ${id}\ndata: first\n\n` : 'data: again\n\n', seen.length === 1)
  })
  try {
    const source = make(`${server.origin}/ids`, { node: { reconnectionTime: 10 } })
    await events(source, 'message', 2)
    source.close()
    return seen
  } finally {
    await server.close()
  }
}

describe('EventSource Last-Event-ID', () => {
  const cases: Array<[string, string, string | null]> = [
    ['an ASCII id', '41', '3431'],
    ['é', 'é', 'c3a9'],
    ['€', '€', 'e282ac'],
    ['an emoji', '😀', 'f09f9880'],
    ['U+0001', 'a\u0001b', null],
    ['U+007F', 'a\u007fb', null],
    ['a leading space', ' x', '78'],
    ['a trailing space', 'x ', '78'],
    ['only spaces', '  ', '']
  ]
  for (const [what, id, sent] of cases) {
    it(`reconnects after id ${what}, sending ${sent === null ? 'no Last-Event-ID' : sent === '' ? 'an empty Last-Event-ID' : `its UTF-8 bytes ${sent}`}${UNDICI_MAJOR === 8 ? ', as undici does' : ''}`, async () => {
      assert.deepEqual(await lastEventIds(ours, id), [null, sent])
      // undici 7 sends the id's characters as they are: only undici 8 encodes it (docs/undici-differences.md, "undici 7 and undici 8").
      if (UNDICI_MAJOR === 8) assert.deepEqual(await lastEventIds(theirs, id), [null, sent])
    })
  }
})

describe('EventSource reconnection delay', () => {
  it('keeps a server that answers retry: 0 and ends to a few requests instead of hundreds a second', async () => {
    const server = await startHttpServer((req, res) => sse(res, 'retry: 0\n\n'))
    try {
      const source = new EventSource(`${server.origin}/zero`)
      const errors: number[] = []
      source.addEventListener('error', () => errors.push(source.readyState))
      // 0.5 s, then 1 s, then 2 s: at most three requests fit in 1.5 s, however slow the machine.
      await sleep(1500)
      source.close()
      assert.ok(server.requests.length >= 1 && server.requests.length <= 3, `${server.requests.length} requests in 1.5 s`)
      assert.ok(errors.every((state) => state === EventSource.CONNECTING))
    } finally {
      await server.close()
    }
  })

  it('waits the reconnection time after a connection that brought events, and doubles it for each in a row that brought none', () => {
    const delay = new ReconnectionDelay(3000)
    assert.deepEqual([delay.next(true), delay.next(false), delay.next(false), delay.next(false), delay.next(true)], [3000, 3000, 6000, 12000, 3000])
    const grows = new ReconnectionDelay(1000)
    assert.deepEqual(Array.from({ length: 8 }, () => grows.next(false)), [1000, 2000, 4000, 8000, 16000, MAX_BACKOFF_MS, MAX_BACKOFF_MS, MAX_BACKOFF_MS])
  })

  it('raises a server\'s retry: to the floor, keeps the caller\'s own reconnection time, and never backs off past a longer one', () => {
    const delay = new ReconnectionDelay(10)
    assert.equal(delay.next(true), 10, 'the option is used as given')
    delay.serverSaid(0)
    assert.equal(delay.next(true), MIN_SERVER_RETRY_MS)
    delay.serverSaid(120_000)
    assert.deepEqual([delay.next(false), delay.next(false)], [120_000, 120_000])
  })
})

describe('EventSource failures and credentials', () => {
  it('fails the connection for good on a redirect loop: one error, CLOSED, no new request', async () => {
    const server = await startHttpServer((req, res) => { res.writeHead(302, { location: '/loop' }); res.end() })
    try {
      const source = new EventSource(`${server.origin}/loop`, { node: { reconnectionTime: 10 } })
      const errors: number[] = []
      source.addEventListener('error', () => errors.push(source.readyState))
      await events(source, 'error', 1)
      const requests = server.requests.length
      await sleep(200)
      assert.deepEqual(errors, [EventSource.CLOSED])
      assert.equal(server.requests.length, requests)
      assert.equal(requests, 21, 'the first request and 20 redirects')
    } finally {
      await server.close()
    }
  })

  it('answers a 401 with the URL\'s user:pass@ once, as Basic credentials, and opens the stream', async () => {
    // conduit sends the user information percent-decoded, undici 8 as the URL keeps it
    // (docs/undici-differences.md).
    const expected = `Basic ${Buffer.from('user:p@ss word').toString('base64')}`
    const undiciSends = `Basic ${Buffer.from('user:p%40ss%20word').toString('base64')}`
    const server = await startHttpServer((req, res) => {
      if (req.headers.authorization === undefined) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="feed"' })
        res.end()
        return
      }
      sse(res, 'data: in\n\n', false)
    })
    try {
      const makes = UNDICI_MAJOR === 8 ? [ours, theirs] : [ours]
      for (const make of makes) {
        const url = new URL(`${server.origin}/private`)
        url.username = 'user'
        url.password = 'p@ss word'
        const source = make(url.href)
        // A connection that fails for good settles it too, so a failing run ends at once.
        const data = await new Promise<string | null>((resolve) => {
          source.addEventListener('message', (event) => resolve((event as MessageEvent).data as string))
          source.addEventListener('error', () => { if (source.readyState === 2) resolve(null) })
        })
        source.close()
        assert.equal(data, 'in')
        assert.equal(source.url, url.href)
        const [first, second] = server.requests.splice(0)
        assert.equal(first!.headers.authorization, undefined, 'the first request carries no credentials')
        assert.equal(second!.headers.authorization, make === ours ? expected : undiciSends)
      }
    } finally {
      await server.close()
    }
  })

  it('fails once a 401 remains after the URL\'s credentials were sent', async () => {
    const server = await startHttpServer((req, res) => { res.writeHead(401); res.end() })
    try {
      const source = new EventSource(`http://user:wrong@127.0.0.1:${server.port}/private`)
      await events(source, 'error', 1)
      assert.equal(source.readyState, EventSource.CLOSED)
      assert.equal(server.requests.length, 2)
    } finally {
      await server.close()
    }
  })
})

describe('EventSource tasks', () => {
  it('fires open, each message and error in tasks of their own: a listener\'s microtasks run before the next event', async () => {
    const server = await startHttpServer((req, res) => sse(res, 'data: one\n\ndata: two\n\n'))
    try {
      const source = new EventSource(`${server.origin}/tasks`, { node: { reconnectionTime: 10_000 } })
      const log: string[] = []
      const note = (what: string): void => {
        log.push(what)
        queueMicrotask(() => log.push(`after ${what}`))
      }
      source.addEventListener('open', () => note('open'))
      source.addEventListener('message', (event) => note((event as MessageEvent).data as string))
      await new Promise<void>((resolve) => source.addEventListener('error', () => { note(`error ${source.readyState}`); resolve() }))
      source.close()
      await sleep(0)
      assert.deepEqual(log, ['open', 'after open', 'one', 'after one', 'two', 'after two', 'error 0', 'after error 0'])
    } finally {
      await server.close()
    }
  })

  it('fires nothing more once closed, not even the events already parsed', async () => {
    const server = await startHttpServer((req, res) => sse(res, 'data: one\n\ndata: two\n\n', false))
    try {
      const source = new EventSource(`${server.origin}/closed`)
      const seen: string[] = []
      source.addEventListener('message', (event) => { seen.push((event as MessageEvent).data as string); source.close() })
      await events(source, 'message', 1)
      await sleep(50)
      assert.deepEqual(seen, ['one'])
    } finally {
      await server.close()
    }
  })
})

describe('EventSource as a WebIDL interface, compared with undici\'s', () => {
  it('has constants that cannot be written or deleted, on the class and its prototype', () => {
    for (const Class of [EventSource, undici.EventSource]) {
      for (const target of [Class, Class.prototype]) {
        for (const name of ['CONNECTING', 'OPEN', 'CLOSED']) {
          const descriptor = Object.getOwnPropertyDescriptor(target, name)!
          assert.deepEqual({ ...descriptor, value: undefined }, { value: undefined, writable: false, enumerable: true, configurable: false }, `${Class === EventSource ? 'conduit' : 'undici'} ${name}`)
        }
      }
    }
    assert.throws(() => { (EventSource as unknown as Record<string, number>).OPEN = 5 }, TypeError)
    // Module code is strict: a failed delete throws.
    assert.throws(() => delete (EventSource as unknown as Partial<Record<string, number>>).OPEN, TypeError)
    assert.equal(EventSource.OPEN, 1)
  })

  it('has enumerable attributes and operations, and its name as toStringTag', () => {
    const keys = Object.getOwnPropertyNames(EventSource.prototype).filter((key) => key !== 'constructor')
    for (const key of keys) {
      assert.equal(Object.getOwnPropertyDescriptor(EventSource.prototype, key)!.enumerable, true, key)
      assert.equal(Object.getOwnPropertyDescriptor(undici.EventSource.prototype, key)?.enumerable, true, `undici ${key}`)
    }
    const source = new EventSource('http://127.0.0.1:9/')
    source.close()
    assert.equal(Object.prototype.toString.call(source), '[object EventSource]')
  })

  it('resolves a relative URL against the global origin, and refuses a Symbol with a TypeError', async () => {
    const { setGlobalOrigin } = await import('../../../src/fetch/global-origin.js')
    setGlobalOrigin('http://127.0.0.1:9')
    try {
      const source = new EventSource('/relative?x')
      source.close()
      assert.equal(source.url, 'http://127.0.0.1:9/relative?x')
    } finally {
      setGlobalOrigin(undefined)
    }
    assert.throws(() => new EventSource(Symbol('url') as never), TypeError)
  })
})
