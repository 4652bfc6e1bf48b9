/**
 * Looks for secrets anywhere inside published or thrown values: a bounded deep walk over own
 * properties (symbol-keyed and non-enumerable ones included, getters never called), Map and Set
 * entries, array items, and the bytes of Buffers and typed arrays (read as latin1, which keeps
 * ASCII text such as base64 intact).
 */

import { inspect } from 'node:util'

/** Walk limit: a value graph bigger than this fails the scan instead of being half-checked. */
const MAX_NODES = 200_000

/** Every string reachable from `root` (Buffers and typed arrays decoded as latin1). */
export function reachableText (root: unknown): string[] {
  const texts: string[] = []
  const seen = new Set<object>()
  const stack: unknown[] = [root]
  while (stack.length > 0) {
    const value = stack.pop()
    if (typeof value === 'string') {
      texts.push(value)
      continue
    }
    if ((typeof value !== 'object' && typeof value !== 'function') || value === null || seen.has(value)) continue
    seen.add(value)
    if (seen.size > MAX_NODES) throw new Error(`secret scan: more than ${MAX_NODES} objects reachable; raise the limit`)
    if (ArrayBuffer.isView(value)) {
      texts.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('latin1'))
      continue
    }
    if (value instanceof ArrayBuffer || value instanceof SharedArrayBuffer) {
      texts.push(Buffer.from(value).toString('latin1'))
      continue
    }
    if (value instanceof Map) for (const [k, v] of value) stack.push(k, v)
    if (value instanceof Set) for (const v of value) stack.push(v)
    for (const key of Reflect.ownKeys(value)) {
      if (typeof key === 'string') texts.push(key)
      const descriptor = Reflect.getOwnPropertyDescriptor(value, key)
      if (descriptor !== undefined && 'value' in descriptor) stack.push(descriptor.value)
    }
  }
  return texts
}

/** The secret fragments found in `root`, each once (empty when it is clean). */
export function secretsIn (root: unknown, secrets: readonly string[]): string[] {
  const found = new Set<string>()
  for (const text of reachableText(root)) {
    for (const secret of secrets) if (text.includes(secret)) found.add(secret)
  }
  return [...found]
}

/** Every way an error is commonly shown: message, stack, util.inspect (cause chain included) and JSON. */
export function errorRenderings (err: unknown): Record<string, string> {
  const renderings: Record<string, string> = {
    inspect: inspect(err, { depth: 10, showHidden: true }),
    string: String(err),
    json: JSON.stringify(err, Object.getOwnPropertyNames(err instanceof Error ? err : {})) ?? ''
  }
  let depth = 0
  for (let e: unknown = err; e instanceof Error && depth < 10; e = e.cause, depth++) {
    renderings[`message[${depth}]`] = e.message
    renderings[`stack[${depth}]`] = e.stack ?? ''
    renderings[`json[${depth}]`] = JSON.stringify(e) ?? ''
  }
  return renderings
}

/** The secrets found in any rendering of `err` (message, stack, inspect, JSON, cause chain) or anywhere inside it, each once. */
export function errorLeaks (err: unknown, secrets: readonly string[]): string[] {
  return [...new Set([...secretsIn(errorRenderings(err), secrets), ...secretsIn(err, secrets)])]
}
