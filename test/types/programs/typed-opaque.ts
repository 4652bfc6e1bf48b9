// The request APIs carry the type of `opaque` through, as undici's tests of dispatcher.d.ts check;
// statusText is a string, and `upgrade` takes what undici's DispatchOptions takes.
import { Writable } from 'node:stream'
import { Agent, request } from 'undici'
import type { Dispatcher } from 'undici'
import type { Equal, Expect } from './expect.js'

const origin = 'http://127.0.0.1:3000'
const agent = new Agent()

export async function opaqueThroughRequest (): Promise<number> {
  const response = await agent.request({ origin, path: '/', method: 'GET', opaque: { id: 1 } })
  type _opaque = Expect<Equal<typeof response.opaque, { id: number }>>
  type _statusText = Expect<Equal<typeof response.statusText, string>>
  const plain = await request(`${origin}/`)
  type _plain = Expect<Equal<typeof plain.opaque, null>>
  await plain.body.dump()
  return response.opaque.id
}

export async function opaqueThroughStream (): Promise<string> {
  const data = await agent.stream({ origin, path: '/', method: 'GET', opaque: 'tag' }, ({ opaque, statusCode }) => {
    type _factoryOpaque = Expect<Equal<typeof opaque, string>>
    return new Writable({ write (_chunk, _encoding, done) { done(statusCode === 200 ? null : new Error(opaque)) } })
  })
  type _streamOpaque = Expect<Equal<typeof data.opaque, string>>
  return data.opaque
}

export function opaqueThroughPipeline (): void {
  agent.pipeline({ origin, path: '/', method: 'PUT', opaque: 42 }, ({ opaque, body }) => {
    type _pipelineOpaque = Expect<Equal<typeof opaque, number>>
    return body
  })
}

export async function opaqueThroughConnect (): Promise<void> {
  const { socket, opaque } = await agent.connect({ origin, path: 'example.org:443', opaque: ['x'] })
  type _connectOpaque = Expect<Equal<typeof opaque, string[]>>
  socket.destroy()
}

type _upgrade = Expect<Equal<Dispatcher.DispatchOptions['upgrade'], boolean | string | null | undefined>>
type _responseData = Expect<Equal<Dispatcher.ResponseData<{ a: 1 }>['opaque'], { a: 1 }>>
type _streamData = Expect<Equal<Dispatcher.StreamData['opaque'], null>>
type _factoryData = Expect<Equal<Dispatcher.StreamFactoryData<string>['opaque'], string>>
type _pipelineData = Expect<Equal<Dispatcher.PipelineHandlerData<number>['opaque'], number>>
type _requestOptions = Expect<Equal<Dispatcher.RequestOptions<boolean>['opaque'], boolean | undefined>>
type _connectData = Expect<Equal<Dispatcher.ConnectData<Date>['opaque'], Date>>
