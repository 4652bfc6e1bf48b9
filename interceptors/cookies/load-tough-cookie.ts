/**
 * Loads tough-cookie, an optional dependency, only when `interceptors.cookies()` is called
 * without a jar, so the package imports fine without it and the failure names the package.
 * @module
 */

import { NotSupportedError } from '../../src/handler.js'
import { createRequire } from 'node:module'
import type { CookieJarLike } from './cookie-jar.js'

const require = createRequire(import.meta.url)

/** A new, empty tough-cookie `CookieJar` (memory store); throws a {@link NotSupportedError} when tough-cookie cannot be loaded. */
export function newToughCookieJar (moduleName = 'tough-cookie'): CookieJarLike {
  let loaded: { CookieJar: new () => CookieJarLike }
  try {
    loaded = require(moduleName) as { CookieJar: new () => CookieJarLike }
  } catch (err) {
    throw new NotSupportedError(
      `cookies() without a jar needs the optional dependency "${moduleName}" (npm install ${moduleName}), which could not be loaded: ${(err as Error).message}`
    )
  }
  return new loaded.CookieJar()
}
