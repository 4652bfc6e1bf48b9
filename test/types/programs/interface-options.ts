// Options held in values of the user's own interfaces and classes, not in object literals:
// TypeScript gives an interface no implicit index signature, so these go wherever undici's
// option interfaces (which have none) are expected.
import { Agent, Client, Dispatcher, Pool, request } from 'undici'

interface HealthCheck {
  path: string
  method: 'GET'
  headers: Record<string, string>
}

class Probe {
  readonly path = '/health'
  readonly method = 'HEAD'
  readonly idempotent = true
}

interface Tuning {
  connections: number
  keepAliveTimeout: number
}

interface TimedRequest {
  method: 'POST'
  body: string
  headersTimeout: number
}

const check: HealthCheck = { path: '/health', method: 'GET', headers: { accept: 'application/json' } }
const tuning: Tuning = { connections: 4, keepAliveTimeout: 1_000 }
const timed: TimedRequest = { method: 'POST', body: '{}', headersTimeout: 5_000 }

const agent = new Agent(tuning)
const pool = new Pool('http://127.0.0.1:3000', tuning)
const client = new Client('http://127.0.0.1:3000', tuning)

const ignore: Dispatcher.DispatchHandler = {}
agent.dispatch({ origin: 'http://127.0.0.1:3000', ...check }, ignore)
pool.dispatch(check, ignore)
client.dispatch(new Probe(), ignore)

export async function send (): Promise<number> {
  const first = await request('http://127.0.0.1:3000/health', timed)
  const second = await pool.request(check)
  const third = await client.request(new Probe())
  return first.statusCode + second.statusCode + third.statusCode
}

// An interceptor that adds a key of its own to a copy of the options (a literal with an unknown
// key is refused by both libraries; a variable holding one is not), and one that forwards a typed copy.
export function tagged (): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (opts, handler) => {
    const withTag = { ...opts, myTag: 'a' }
    return dispatch(withTag, handler)
  }
}

export function stamped (): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (opts, handler) => {
    const copy: Dispatcher.DispatchOptions = { ...opts, headers: { ...opts.headers as Record<string, string>, 'x-stamp': '1' } }
    return dispatch(copy, handler)
  }
}
