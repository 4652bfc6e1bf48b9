import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { MemoryTier } from '../../../stores/redis/memory-tier.js'
import type { TierVariant } from '../../../stores/redis/memory-tier.js'
import { decodeMeta, encodeMeta } from '../../../stores/redis/entry-codec.js'

function variant (writeId: string, body?: string): TierVariant {
  const now = Date.now()
  const value = { statusCode: 200, statusMessage: 'OK', headers: {}, cachedAt: now, staleAt: now, deleteAt: now + 60_000 }
  return { meta: decodeMeta('GET:-', encodeMeta(value, writeId)), body: body === undefined ? undefined : Buffer.from(body) }
}

function activeTier (): MemoryTier {
  const tier = new MemoryTier(10, 1024 * 1024)
  tier.setActive(true)
  return tier
}

describe('Redis store memory tier', () => {
  it('keeps what a read brought back and answers later lookups with it', () => {
    const tier = activeTier()
    tier.commit(tier.begin('k'), 'GET', [variant('1', 'x')])
    assert.equal(String(tier.lookup('k', 'GET')?.[0]?.body), 'x')
    assert.equal(tier.lookup('k', 'HEAD'), undefined)
  })

  it('drops the result of a read that an invalidation overtook', () => {
    const tier = activeTier()
    const ticket = tier.begin('k')
    tier.invalidate('k')
    tier.commit(ticket, 'GET', [variant('1', 'stale')])
    assert.equal(tier.lookup('k', 'GET'), undefined)
  })

  it('drops the result of a read that started before the tier was cleared or reactivated', () => {
    const tier = activeTier()
    const beforeClear = tier.begin('k')
    tier.clear()
    tier.commit(beforeClear, 'GET', [variant('1')])
    assert.equal(tier.lookup('k', 'GET'), undefined)
    const beforeReconnect = tier.begin('k')
    tier.setActive(false)
    tier.setActive(true)
    tier.commit(beforeReconnect, 'GET', [variant('1')])
    assert.equal(tier.lookup('k', 'GET'), undefined)
  })

  it('answers nothing and keeps nothing while inactive', () => {
    const tier = activeTier()
    tier.commit(tier.begin('k'), 'GET', [variant('1', 'x')])
    tier.setActive(false)
    assert.equal(tier.lookup('k', 'GET'), undefined)
    tier.commit(tier.begin('k'), 'GET', [variant('1', 'x')])
    tier.setActive(true)
    assert.equal(tier.lookup('k', 'GET'), undefined)
  })

  it('attaches a body read later only to the same write of the variant', () => {
    const tier = activeTier()
    tier.commit(tier.begin('k'), 'GET', [variant('1')])
    tier.commitBody(tier.begin('k'), 'GET', variant('2').meta, Buffer.from('other write'))
    assert.equal(tier.lookup('k', 'GET')?.[0]?.body, undefined)
    tier.commitBody(tier.begin('k'), 'GET', variant('1').meta, Buffer.from('body'))
    assert.equal(String(tier.lookup('k', 'GET')?.[0]?.body), 'body')
  })

  it('releases tickets, so invalidations of finished reads leave no state behind', () => {
    const tier = activeTier()
    const ticket = tier.begin('k')
    tier.release(ticket)
    tier.invalidate('k')
    assert.equal(ticket.stale, false)
  })

  it('evicts the least recently used URLs beyond maxCount', () => {
    const tier = new MemoryTier(2, 1024 * 1024)
    tier.setActive(true)
    for (const k of ['a', 'b', 'c']) tier.commit(tier.begin(k), 'GET', [variant('1', k)])
    assert.equal(tier.size, 2)
    assert.equal(tier.lookup('a', 'GET'), undefined)
  })
})
