// request() with a typed json(), stream bodies, and fetch() through a chosen dispatcher.
import { Agent, fetch, request } from 'undici'
import type { Dispatcher } from 'undici'

interface User { id: number, name: string }

export async function getUser (id: number): Promise<User> {
  const { statusCode, headers, body }: Dispatcher.ResponseData = await request(`http://127.0.0.1:3000/users/${id}`, { method: 'GET', headers: { accept: 'application/json' } })
  if (statusCode !== 200) throw new Error(`status ${statusCode}, ${String(headers['content-type'])}`)
  return await body.json() as User
}

export async function fetchText (dispatcher: Agent): Promise<string> {
  const response = await fetch('http://127.0.0.1:3000/', { dispatcher, headers: [['accept', 'text/plain']] })
  return await response.text()
}
