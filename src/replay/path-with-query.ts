/**
 * The path of a request with its `query` option applied, as mocks and snapshots key requests by it.
 * @module
 */

/**
 * Appends `query` to `path` as a query string (arrays repeat the name), keeping an existing query.
 * `undefined` values are left out, as URLSearchParams users expect.
 */
export function serializePathWithQuery (path: string, query: Record<string, unknown> | undefined): string {
  if (query == null) return path
  const params = new URLSearchParams()
  for (const name of Object.keys(query)) {
    const value = query[name]
    if (value === undefined) continue
    if (Array.isArray(value)) for (const v of value) params.append(name, String(v))
    else params.append(name, String(value))
  }
  const search = params.toString()
  if (search === '') return path
  return `${path}${path.includes('?') ? '&' : '?'}${search}`
}
