import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { STATUS_CODES } from 'node:http'
import { reasonPhrase } from '../../../src/replay/reason-phrases.js'
import { statusText } from '../../../src/replay/response-player.js'

describe('reason phrases of replayed responses', () => {
  it('are the phrases of node:http for every code it names, on this runtime', () => {
    for (const [code, phrase] of Object.entries(STATUS_CODES)) assert.equal(reasonPhrase(Number(code)), phrase, `status ${code}`)
  })

  it('name no code node:http does not, and a replayed response without one says unknown', () => {
    for (let code = 100; code < 600; code++) {
      if (STATUS_CODES[code] === undefined) assert.equal(reasonPhrase(code), undefined, `status ${code}`)
    }
    assert.equal(statusText(299), 'unknown')
    assert.equal(statusText(404), 'Not Found')
  })
})
