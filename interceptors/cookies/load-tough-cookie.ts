/**
 * Loads tough-cookie, an optional dependency, only when `interceptors.cookies()` is called
 * without a jar, so the package imports fine without it and the failure names the package.
 * @module
 */

import { NotSupportedError } from '../../src/handler.js'
import { createRequire } from 'node:module'
import type { CookieJarLike } from './cookie-jar.js'
import { BoundedCookieStore } from './bounded-cookie-store.js'
import type { RegistrableDomain } from './site-context.js'

const require = createRequire(import.meta.url)

interface ToughCookie {
  CookieJar: new (store?: unknown) => CookieJarLike
  getPublicSuffix?: (domain: string, options?: { allowSpecialUseDomain?: boolean, ignoreError?: boolean }) => string | null | undefined
}

/**
 * A new, empty tough-cookie `CookieJar` on a {@link BoundedCookieStore}; throws a
 * {@link NotSupportedError} when tough-cookie cannot be loaded.
 */
export function newToughCookieJar (moduleName = 'tough-cookie'): CookieJarLike {
  let loaded: ToughCookie
  try {
    loaded = require(moduleName) as ToughCookie
  } catch (err) {
    throw new NotSupportedError(
      `cookies() without a jar needs the optional dependency "${moduleName}" (npm install ${moduleName}), which could not be loaded: ${(err as Error).message}`
    )
  }
  return new loaded.CookieJar(new BoundedCookieStore())
}

/**
 * The registrable domain of a host by tough-cookie's public suffix list, special-use names
 * (`shop.test`, `localhost`) included. Without tough-cookie every host is a site of its own,
 * which only counts more redirects as cross-site.
 */
export function loadRegistrableDomain (moduleName = 'tough-cookie'): RegistrableDomain {
  let getPublicSuffix: ToughCookie['getPublicSuffix']
  try {
    getPublicSuffix = (require(moduleName) as ToughCookie).getPublicSuffix
  } catch {
    getPublicSuffix = undefined
  }
  if (typeof getPublicSuffix !== 'function') return () => null
  const lookup = getPublicSuffix
  return (host) => {
    try {
      return lookup(host, { allowSpecialUseDomain: true, ignoreError: true }) ?? null
    } catch {
      return null
    }
  }
}
