import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { undici } from '../../helpers/undici-reference.js'
import { Agent, fetch, getSetCookies } from '../../../src/index.js'
import { startHttpServer } from '../../helpers/servers.js'

describe('getSetCookies on fetched responses', () => {
  it('parses the Set-Cookie of a real response as undici does on its own fetch', async (t) => {
    const setCookies = ['a=1; Path=/; HttpOnly', 'b="two"; Max-Age=60; SameSite=lax', 'c=3; Expires=Wed, 21 Oct 2037 07:28:00 GMT; Secure', `big=${'x'.repeat(5000)}`]
    const server = await startHttpServer((req, res) => {
      res.writeHead(200, setCookies.flatMap((value) => ['set-cookie', value])).end('ok')
    })
    const agent = new Agent()
    const undiciAgent = new undici.Agent()
    t.after(async () => { await agent.close(); await undiciAgent.close(); await server.close() })
    const ours = await fetch(`${server.origin}/`, { dispatcher: agent })
    const theirs = await undici.fetch(`${server.origin}/`, { dispatcher: undiciAgent })
    await ours.text()
    await theirs.text()
    const comparable = (cookies: unknown[]): string => JSON.stringify(cookies, (key, value: unknown) => key === 'expires' ? `date:${new Date(value as string).getTime()}` : value)
    assert.equal(comparable(getSetCookies(ours.headers)), comparable(undici.getSetCookies(theirs.headers)))
    assert.equal(getSetCookies(ours.headers).length, 4)
    // Over 4096 characters of name and value: ignored, as null in the list.
    assert.equal(getSetCookies(ours.headers)[3], null)
  })
})
