// MockAgent replies, with a callback reading the request.
import { MockAgent, setGlobalDispatcher } from 'undici'

const mockAgent = new MockAgent()
mockAgent.disableNetConnect()
setGlobalDispatcher(mockAgent)

const pool = mockAgent.get('http://127.0.0.1:3000')
pool.intercept({ path: '/users', method: 'GET' }).reply(200, { users: [] }, { headers: { 'content-type': 'application/json' } })
pool.intercept({ path: '/echo', method: 'POST' }).reply(200, (options) => ({ echoed: String(options.body) }))
pool.intercept({ path: '/status' }).reply((options) => ({ statusCode: 201, data: options.path }))
pool.intercept({ path: '/fail' }).replyWithError(new Error('down'))

export const pending: number = mockAgent.pendingInterceptors().length
