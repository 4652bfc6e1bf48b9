/**
 * One sequence of Cache API operations, written once and run against any implementation
 * (undici's or conduit's): each step appends what a caller could observe to a transcript.
 */

/** The parts of a Response the transcript records. */
interface ResponseLike {
  status: number
  statusText: string
  type: string
  url: string
  redirected: boolean
  bodyUsed: boolean
  headers: { append (name: string, value: string): void, [Symbol.iterator] (): Iterator<[string, string]> }
  text (): Promise<string>
}

interface RequestLike {
  url: string
  method: string
  headers: { append (name: string, value: string): void, get (name: string): string | null }
}

interface CacheLike {
  match (request: unknown, options?: unknown): Promise<ResponseLike | undefined>
  matchAll (request?: unknown, options?: unknown): Promise<readonly ResponseLike[]>
  add (request: unknown): Promise<void>
  addAll (requests: unknown): Promise<void>
  put (request: unknown, response: unknown): Promise<void>
  delete (request: unknown, options?: unknown): Promise<boolean>
  keys (request?: unknown, options?: unknown): Promise<readonly RequestLike[]>
}

/** What the script needs from an implementation. */
export interface CacheApi {
  caches: {
    open (name: string): Promise<CacheLike>
    has (name: string): Promise<boolean>
    delete (name: string): Promise<boolean>
    keys (): Promise<string[]>
    match (request: unknown, options?: unknown): Promise<ResponseLike | undefined>
  }
  Request: new (input: string, init?: Record<string, unknown>) => RequestLike
  Response: new (body?: unknown, init?: Record<string, unknown>) => ResponseLike
}

// Headers that differ between two fetches of the same resource for reasons of time or connection.
const VOLATILE = new Set(['date', 'keep-alive', 'connection'])

async function describeResponse (response: ResponseLike | undefined): Promise<unknown> {
  if (response === undefined) return 'undefined'
  const headers = [...response.headers].filter(([name]) => !VOLATILE.has(name))
  let immutable = false
  try {
    response.headers.append('x-added', '1')
  } catch (err) {
    immutable = err instanceof TypeError
  }
  return { status: response.status, statusText: response.statusText, type: response.type, url: response.url, redirected: response.redirected, headers, immutable, body: await response.text() }
}

function describeRequest (request: RequestLike): unknown {
  let immutable = false
  try {
    request.headers.append('x-added', '1')
  } catch (err) {
    immutable = err instanceof TypeError
  }
  return { url: request.url, method: request.method, accept: request.headers.get('accept'), immutable }
}

async function outcome (step: () => Promise<unknown>): Promise<unknown> {
  try {
    return { value: await step() }
  } catch (err) {
    // Errors compare by kind: messages are each library's own.
    return { error: err instanceof TypeError ? 'TypeError' : (err as Error).name }
  }
}

/** Runs the script; `origin` is a local server (see the test) and `prefix` keeps cache names apart. */
export async function runCacheScript (api: CacheApi, origin: string, prefix: string): Promise<unknown[]> {
  const { caches, Request, Response } = api
  const log: unknown[] = []
  const step = async (name: string, run: () => Promise<unknown>): Promise<void> => { log.push([name, await outcome(run)]) }
  const h = 'http://cache.test'
  const cache = await caches.open(`${prefix}-a`)

  await step('has', async () => await caches.has(`${prefix}-a`))
  await step('has missing', async () => await caches.has(`${prefix}-missing`))
  await step('put a', async () => { await cache.put(`${h}/a`, new Response('A', { status: 201, statusText: 'Made', headers: { 'x-one': '1' } })) })
  await step('match a', async () => await describeResponse(await cache.match(`${h}/a`)))
  await step('match a twice', async () => await describeResponse(await cache.match(`${h}/a`)))
  await step('match a#frag', async () => await describeResponse(await cache.match(`${h}/a#frag`)))
  await step('put a?q=1', async () => { await cache.put(new Request(`${h}/a?q=1`), new Response('Q')) })
  await step('match a?q=2', async () => await describeResponse(await cache.match(`${h}/a?q=2`)))
  await step('match a?q=2 ignoreSearch', async () => await describeResponse(await cache.match(`${h}/a?q=2`, { ignoreSearch: true })))
  await step('matchAll a ignoreSearch', async () => await Promise.all((await cache.matchAll(`${h}/a`, { ignoreSearch: true })).map(describeResponse)))
  await step('match POST', async () => await describeResponse(await cache.match(new Request(`${h}/a`, { method: 'POST' }))))
  await step('match POST ignoreMethod', async () => await describeResponse(await cache.match(new Request(`${h}/a`, { method: 'POST' }), { ignoreMethod: true })))
  await step('put vary html', async () => { await cache.put(new Request(`${h}/v`, { headers: { accept: 'text/html' } }), new Response('html', { headers: { vary: 'Accept' } })) })
  await step('put vary json', async () => { await cache.put(new Request(`${h}/v`, { headers: { accept: 'application/json' } }), new Response('json', { headers: { vary: 'accept, bad header' } })) })
  await step('match vary json', async () => await describeResponse(await cache.match(new Request(`${h}/v`, { headers: { accept: 'application/json' } }))))
  await step('match vary none', async () => await describeResponse(await cache.match(`${h}/v`)))
  await step('match vary none ignoreVary', async () => await describeResponse(await cache.match(`${h}/v`, { ignoreVary: true })))
  await step('put vary html again (replaces)', async () => { await cache.put(new Request(`${h}/v`, { headers: { accept: 'text/html' } }), new Response('html2', { headers: { vary: 'Accept' } })) })
  await step('keys', async () => (await cache.keys()).map(describeRequest))
  await step('keys v', async () => (await cache.keys(`${h}/v`, { ignoreVary: true })).map(describeRequest))
  await step('matchAll', async () => await Promise.all((await cache.matchAll()).map(describeResponse)))
  await step('put POST', async () => { await cache.put(new Request(`${h}/p`, { method: 'POST' }), new Response('x')) })
  await step('put data URL', async () => { await cache.put('data:text/plain,x', new Response('x')) })
  await step('put 206', async () => { await cache.put(`${h}/r`, new Response('x', { status: 206 })) })
  await step('put vary *', async () => { await cache.put(`${h}/s`, new Response('x', { headers: { vary: 'Accept, *' } })) })
  await step('put used body', async () => {
    const response = new Response('used')
    await response.text()
    await cache.put(`${h}/u`, response)
  })
  await step('put not a Response', async () => { await cache.put(`${h}/n`, { status: 200 }) })
  await step('put consumes the body', async () => {
    const response = new Response('fresh')
    await cache.put(`${h}/f`, response)
    return response.bodyUsed
  })
  await step('put no body', async () => { await cache.put(`${h}/empty`, new Response(null, { status: 204 })) })
  await step('match no body', async () => await describeResponse(await cache.match(`${h}/empty`)))
  await step('match relative', async () => await cache.match('/relative'))
  await step('match no arguments', async () => await (cache.match as () => Promise<unknown>)())
  await step('delete POST', async () => await cache.delete(new Request(`${h}/f`, { method: 'POST' })))
  await step('delete POST ignoreMethod', async () => await cache.delete(new Request(`${h}/f`, { method: 'POST' }), { ignoreMethod: true }))
  await step('delete a ignoreSearch', async () => await cache.delete(`${h}/a?z`, { ignoreSearch: true }))
  await step('delete a again', async () => await cache.delete(`${h}/a`))
  await step('match options not an object', async () => await cache.match(`${h}/v`, 5))

  const other = await caches.open(`${prefix}-b`)
  await other.put(`${h}/v`, new Response('from b'))
  await step('caches.match first cache', async () => await describeResponse(await caches.match(`${h}/v`)))
  await step('caches.match cacheName b', async () => await describeResponse(await caches.match(`${h}/v`, { cacheName: `${prefix}-b` })))
  await step('caches.match missing cacheName', async () => await describeResponse(await caches.match(`${h}/v`, { cacheName: `${prefix}-zzz` })))
  await step('caches.keys', async () => (await caches.keys()).filter((name) => name.startsWith(prefix)))
  await step('caches.delete b', async () => await caches.delete(`${prefix}-b`))
  await step('caches.delete b again', async () => await caches.delete(`${prefix}-b`))
  await step('deleted cache object still works', async () => await describeResponse(await other.match(`${h}/v`)))
  await step('caches.open no name', async () => await (caches.open as () => Promise<unknown>)())

  // add and addAll fetch from a real local server, each library with its own fetch. Successful
  // fetches are of bodiless 204 responses: undici 7's add/addAll never settle when the response
  // has a body (see docs/undici-differences.md); conduit's bodies are tested on their own.
  const net = await caches.open(`${prefix}-net`)
  await step('add 204', async () => { await net.add(`${origin}/empty`) })
  await step('match 204', async () => await describeResponse(await net.match(`${origin}/empty`)))
  await step('add redirect', async () => { await net.add(new Request(`${origin}/redirect`)) })
  await step('match redirect', async () => await describeResponse(await net.match(`${origin}/redirect`)))
  await step('add 404', async () => { await net.add(`${origin}/missing`) })
  await step('add 206', async () => { await net.add(`${origin}/partial`) })
  await step('add vary *', async () => { await net.add(`${origin}/vary-star`) })
  await step('add POST', async () => { await net.add(new Request(`${origin}/empty`, { method: 'POST' })) })
  await step('add unreachable', async () => { await net.add('http://127.0.0.1:1/') })
  await step('addAll two', async () => { await net.addAll([`${origin}/empty?1`, new Request(`${origin}/empty?2`)]) })
  await step('addAll one failing stores nothing', async () => { await net.addAll([`${origin}/empty?3`, `${origin}/missing`]) })
  await step('addAll undefined entry', async () => { await net.addAll([undefined]) })
  await step('addAll not iterable', async () => { await net.addAll(5) })
  await step('addAll duplicates', async () => { await net.addAll([`${origin}/empty?4`, `${origin}/empty?4`]) })
  await step('net keys', async () => (await net.keys()).map((r) => r.url.slice(origin.length)))
  return log
}
