// Headers and FormData iterators, BalancedPool upstreams, MockScope's data type, snapshot look-ups
// and the diagnostics messages, as undici's tests of fetch.d.ts, balanced-pool.d.ts,
// mock-interceptor.d.ts, snapshot-agent.d.ts and diagnostics-channel.d.ts check them.
import { channel } from 'node:diagnostics_channel'
import { BalancedPool, FormData, Headers, MockAgent, Pool, SnapshotAgent } from 'undici'
import type { DiagnosticsChannel, SpecIterableIterator } from 'undici'
import type { Equal, Expect } from './expect.js'

const headers = new Headers({ accept: 'text/plain' })
type _keys = Expect<Equal<ReturnType<Headers['keys']>, SpecIterableIterator<string>>>
type _entries = Expect<Equal<ReturnType<Headers['entries']>, SpecIterableIterator<[string, string]>>>
export const names: string[] = [...headers.keys()]
export const firstEntry: [string, string] | undefined = headers.entries().next().value ?? undefined

const form = new FormData()
form.append('a', '1')
type _formKeys = Expect<Equal<ReturnType<FormData['keys']>, SpecIterableIterator<string>>>
export const formNames: string[] = [...form.keys()]

const balanced = new BalancedPool(['http://127.0.0.1:3001', 'http://127.0.0.1:3002'])
type _upstream = Expect<Equal<ReturnType<BalancedPool['getUpstream']>, Pool | undefined>>
export const upstream: Pool | undefined = balanced.getUpstream('http://127.0.0.1:3001')
export const upstreams: string[] = balanced.upstreams

const mockAgent = new MockAgent()
const scope = mockAgent.get('http://127.0.0.1:3000').intercept({ path: '/' }).reply<{ ok: boolean }>(200, { ok: true })
// undici's entry does not export MockScope by name: its data type is checked through what the scope returns.
type _scope = Expect<Equal<ReturnType<typeof scope.times>, typeof scope>>
export const persisted: typeof scope = scope.persist()

const snapshots = new SnapshotAgent({ mode: 'playback', snapshotPath: 'snapshots.json' })
export const deleted: boolean = snapshots.getRecorder().deleteSnapshot({})

channel('undici:request:create').subscribe((message) => {
  const { request } = message as DiagnosticsChannel.RequestCreateMessage
  const target: string = request.path
  const done: boolean = request.completed
  return [target, done]
})
channel('undici:request:headers').subscribe((message) => {
  const { response } = message as DiagnosticsChannel.RequestHeadersMessage
  const status: [number, string] = [response.statusCode, response.statusText]
  return status
})
channel('undici:client:connected').subscribe((message) => {
  const { connectParams, socket } = message as DiagnosticsChannel.ClientConnectedMessage
  return [connectParams.hostname, connectParams.servername, socket.remoteAddress]
})
