import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { Request, Response, caches } from '../../../src/index.js'

// The list as the Service Workers standard words it: every query walks every entry in order.
interface ModelEntry { id: number, url: string, header: string | undefined, varies: boolean }
interface Flags { ignoreSearch: boolean, ignoreVary: boolean }

function comparable (href: string, ignoreSearch: boolean): string {
  const url = new URL(href)
  url.hash = ''
  if (ignoreSearch) url.search = ''
  return url.href
}

function modelMatches (entry: ModelEntry, url: string, header: string | undefined, flags: Flags): boolean {
  if (comparable(entry.url, flags.ignoreSearch) !== comparable(url, flags.ignoreSearch)) return false
  return flags.ignoreVary || !entry.varies || entry.header === header
}

const NO_FLAGS: Flags = { ignoreSearch: false, ignoreVary: false }

type Step =
  | { op: 'put', url: string, header: string | undefined, varies: boolean }
  | { op: 'delete' | 'matchAll' | 'keys', url: string, header: string | undefined, flags: Flags }

const urlArb = fc.tuple(fc.constantFrom('/a', '/b', '/c'), fc.constantFrom('', '?x=1', '?x=2'), fc.constantFrom('', '#top'))
  .map(([path, search, hash]) => `http://cache.test${path}${search}${hash}`)
const headerArb = fc.constantFrom(undefined, 'one', 'two')
const flagsArb = fc.record({ ignoreSearch: fc.boolean(), ignoreVary: fc.boolean() })
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant('put' as const), url: urlArb, header: headerArb, varies: fc.boolean() }),
  fc.record({ op: fc.constantFrom('delete' as const, 'matchAll' as const, 'keys' as const), url: urlArb, header: headerArb, flags: flagsArb })
)

function requestFor (url: string, header: string | undefined): Request {
  return new Request(url, header === undefined ? {} : { headers: { 'x-variant': header } })
}

let run = 0

describe('Cache: the indexed list answers as the standard\'s walk over every entry', () => {
  it('gives the same entries, in the same order, for any sequence of puts, deletes and queries', async () => {
    await fc.assert(fc.asyncProperty(fc.array(stepArb, { maxLength: 40 }), async (steps) => {
      const name = `cache-list-${run++}`
      const cache = await caches.open(name)
      let model: ModelEntry[] = []
      let nextId = 0
      try {
        for (const step of steps) {
          if (step.op === 'put') {
            const id = nextId++
            model = model.filter((entry) => !modelMatches(entry, step.url, step.header, NO_FLAGS))
            model.push({ id, url: step.url, header: step.header, varies: step.varies })
            const headers: Record<string, string> = { 'x-id': String(id) }
            if (step.varies) headers.vary = 'x-variant'
            await cache.put(requestFor(step.url, step.header), new Response(null, { headers }))
            continue
          }
          const selected = model.filter((entry) => modelMatches(entry, step.url, step.header, step.flags))
          const query = requestFor(step.url, step.header)
          if (step.op === 'delete') {
            model = model.filter((entry) => !selected.includes(entry))
            assert.equal(await cache.delete(query, step.flags), selected.length > 0)
          } else if (step.op === 'matchAll') {
            const ids = (await cache.matchAll(query, step.flags)).map((response) => Number(response.headers.get('x-id')))
            assert.deepEqual(ids, selected.map((entry) => entry.id))
          } else {
            const urls = (await cache.keys(query, step.flags)).map((request) => request.url)
            assert.deepEqual(urls, selected.map((entry) => entry.url))
          }
        }
        const all = (await cache.matchAll()).map((response) => Number(response.headers.get('x-id')))
        assert.deepEqual(all, model.map((entry) => entry.id))
      } finally {
        await caches.delete(name)
      }
    }), { numRuns: 150 })
  })

  it('keeps list order across URLs after replacing an entry in the middle', async (t) => {
    const cache = await caches.open('cache-list-order')
    t.after(async () => { await caches.delete('cache-list-order') })
    for (const path of ['/1', '/2', '/3']) await cache.put(`http://cache.test${path}`, new Response(path))
    await cache.put('http://cache.test/2', new Response('/2 again'))
    const texts = await Promise.all((await cache.matchAll()).map(async (response) => await response.text()))
    assert.deepEqual(texts, ['/1', '/3', '/2 again'])
    const ignoringSearch = await cache.match('http://cache.test/3?anything', { ignoreSearch: true })
    assert.equal(await ignoringSearch?.text(), '/3')
    assert.equal(await cache.match('http://cache.test/3?anything'), undefined)
  })

  it('stores 2,000 different URLs and finds each of them', async (t) => {
    const cache = await caches.open('cache-list-many')
    t.after(async () => { await caches.delete('cache-list-many') })
    for (let i = 0; i < 2000; i++) await cache.put(`http://cache.test/item?id=${i}`, new Response(null, { headers: { 'x-id': String(i) } }))
    assert.equal((await cache.keys()).length, 2000)
    for (const i of [0, 999, 1999]) {
      assert.equal((await cache.match(`http://cache.test/item?id=${i}`))?.headers.get('x-id'), String(i))
    }
    assert.equal((await cache.matchAll('http://cache.test/item', { ignoreSearch: true })).length, 2000)
  })
})
