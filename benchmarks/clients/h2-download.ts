/**
 * One client process of the HTTP/2 download row: `node h2-download.js <client> <origin> <path>`,
 * where `<client>` is `conduit`, `conduit-64k` (conduit told to advertise 64 KiB windows),
 * `undici`, or `node-http2-64k` (a bare node:http2 session, which never enlarges a 64 KiB window).
 * Opens the session with a small request first, so the handshake is not timed, then downloads
 * `path` once and prints `{ seconds, bytes }` as JSON.
 * @module
 */

import { fileURLToPath } from 'node:url'
import { FIXED_64K_WINDOWS, one, open } from './h2-client.js'
import type { H2Windows } from './h2-client.js'

/** Each download client: the implementation and the windows it is told to advertise. */
export const DOWNLOAD_CLIENTS: Readonly<Record<string, { impl: string, windows?: H2Windows }>> = Object.freeze({
  conduit: { impl: 'conduit' },
  'conduit-64k': { impl: 'conduit', windows: FIXED_64K_WINDOWS },
  undici: { impl: 'undici' },
  'node-http2-64k': { impl: 'node-http2', windows: FIXED_64K_WINDOWS }
})

async function main (): Promise<void> {
  const [name, origin, path] = process.argv.slice(2)
  const choice = DOWNLOAD_CLIENTS[name!]
  if (choice === undefined) throw new TypeError(`unknown download client ${String(name)} (${Object.keys(DOWNLOAD_CLIENTS).join(', ')})`)
  const client = open(choice.impl, origin!, 1, choice.windows)
  await one(client, '/1k')
  const start = process.hrtime.bigint()
  const bytes = await one(client, path!)
  const seconds = Number(process.hrtime.bigint() - start) / 1e9
  await client.close()
  process.stdout.write(JSON.stringify({ seconds, bytes }) + '\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main()
