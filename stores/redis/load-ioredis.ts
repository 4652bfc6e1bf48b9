/**
 * Loads ioredis, an optional dependency, only when a store has to create its own client, so the
 * package imports fine without it and the failure names the missing package.
 * @module
 */

import { createRequire } from 'node:module'
import type { Redis, RedisOptions } from 'ioredis'
import { NotSupportedError } from '../../src/handler.js'

/** The ioredis client constructor. */
export type RedisConstructor = new (...args: [RedisOptions] | [string, RedisOptions]) => Redis

const require = createRequire(import.meta.url)

/**
 * Returns the ioredis constructor; throws a {@link NotSupportedError} naming `moduleName` when it
 * cannot be loaded. `moduleName` is a parameter so the failure path can be tested.
 */
export function loadIoredis (moduleName = 'ioredis'): RedisConstructor {
  try {
    const loaded = require(moduleName) as RedisConstructor | { default: RedisConstructor }
    return typeof loaded === 'function' ? loaded : loaded.default
  } catch (err) {
    throw new NotSupportedError(
      `RedisCacheStore needs the optional dependency "${moduleName}" (npm install ${moduleName}), which could not be loaded: ${(err as Error).message}`
    )
  }
}
