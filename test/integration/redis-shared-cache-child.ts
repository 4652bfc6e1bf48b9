/**
 * One "host" of the shared-cache test: its own conduit Agent with the cache interceptor on a
 * RedisCacheStore, driven by the parent over IPC. Usage (forked): redis-shared-cache-child.js
 * <redis url> <key prefix>. Each message `{ id, op, ... }` gets `{ id, result }` or `{ id, error }`.
 */

import { Agent } from '../../src/dispatcher/agent.js'
import { cache } from '../../interceptors/cache/index.js'
import { RedisCacheStore } from '../../stores/redis-cache-store.js'

const [redisUrl, keyPrefix] = process.argv.slice(2)
const errors: string[] = []
const store = new RedisCacheStore({ clientOptions: redisUrl, keyPrefix, timeoutMs: 5000, errorCallback: (err) => errors.push(err.message) })
const agent = new Agent().compose(cache({ store }))

interface Message { id: number, op: string, origin?: string, path?: string, tags?: string[] }

function storeKey (message: Message): { origin: string, method: string, path: string, headers: Record<string, string> } {
  return { origin: message.origin ?? '', method: 'GET', path: message.path ?? '/', headers: {} }
}

async function handle (message: Message): Promise<unknown> {
  switch (message.op) {
    case 'request': {
      const { statusCode, headers, body } = await agent.request({ origin: message.origin ?? '', path: message.path ?? '/', method: 'GET' })
      return { statusCode, body: await body.text(), cacheStatus: headers['cache-status'] }
    }
    case 'stored': {
      const result = await store.get(storeKey(message))
      return result !== undefined
    }
    case 'inMemory': {
      const result = store.get(storeKey(message))
      const sync = typeof (result as Promise<unknown> | undefined)?.then !== 'function'
      await result
      return sync && result !== undefined
    }
    case 'tierActive':
      return store.memoryTierActive
    case 'delete':
      await store.delete(storeKey(message))
      return true
    case 'deleteTags':
      return await store.deleteTags(message.tags ?? [])
    case 'errors':
      return errors.length
    case 'close':
      await agent.close()
      await store.close()
      return true
    default:
      throw new Error(`unknown op ${message.op}`)
  }
}

process.on('message', (message: Message) => {
  handle(message).then(
    (result) => process.send?.({ id: message.id, result }, () => {
      // Closing the channel lets the process exit once everything else is closed.
      if (message.op === 'close') process.disconnect()
    }),
    (err: Error) => process.send?.({ id: message.id, error: `${err.name}: ${err.message}` })
  )
})
process.send?.({ id: 0, result: 'ready' })
