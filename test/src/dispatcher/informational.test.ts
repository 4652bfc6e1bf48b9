import { describe, it, after } from 'node:test'
import assert from 'node:assert/strict'
import { Agent, DecoratorHandler, fetch as conduitFetch } from '../../../src/index.js'
import type { DispatchHandler, IncomingHeaders, Interceptor } from '../../../src/index.js'
import { startTcpServer } from '../../helpers/servers.js'

describe('informational (1xx) responses', async () => {
  // 103 Early Hints, then the final response, on every request.
  const server = await startTcpServer((socket) => {
    socket.on('data', () => {
      socket.write('HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n')
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello')
    })
  })
  const agent = new Agent()
  after(async () => { await agent.close(); await server.close() })

  it('reports each one to request()\'s onInfo before the final response', async () => {
    const infos: Array<{ statusCode: number, headers: IncomingHeaders }> = []
    const res = await agent.request({ origin: server.origin, path: '/', method: 'GET', onInfo: (info) => infos.push(info) })
    assert.equal(res.statusCode, 200)
    assert.equal(await res.body.text(), 'hello')
    assert.deepEqual(infos, [{ statusCode: 103, headers: { link: '</style.css>; rel=preload' } }])
  })

  it('reaches interceptors through onResponseInformation, keeping onResponseStart to the final response', async () => {
    const seen: string[] = []
    const watching: Interceptor = (dispatch) => (opts, handler: DispatchHandler) => dispatch(opts, new class extends DecoratorHandler {
      override onResponseInformation (controller: Parameters<DecoratorHandler['onResponseInformation']>[0], statusCode: number, headers: IncomingHeaders): void {
        seen.push(`info ${statusCode}`)
        super.onResponseInformation(controller, statusCode, headers)
      }

      override onResponseStart (controller: Parameters<DecoratorHandler['onResponseStart']>[0], statusCode: number, headers: IncomingHeaders, message?: string): void {
        seen.push(`start ${statusCode}`)
        super.onResponseStart(controller, statusCode, headers, message)
      }
    }(handler))
    const res = await agent.compose(watching).request({ origin: server.origin, path: '/', method: 'GET' })
    assert.equal(await res.body.text(), 'hello')
    assert.deepEqual(seen, ['info 103', 'start 200'])
  })

  it('is skipped by conduit fetch and by the runtime\'s fetch over conduit', async () => {
    const ours = await conduitFetch(`${server.origin}/`, { dispatcher: agent })
    assert.equal(ours.status, 200)
    assert.equal(await ours.text(), 'hello')
    const runtime = await fetch(`${server.origin}/`, { dispatcher: agent } as RequestInit)
    assert.equal(runtime.status, 200)
    assert.equal(await runtime.text(), 'hello')
  })
})
