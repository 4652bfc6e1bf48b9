/**
 * A temporary directory holding a static site and the test certificate, for the server binaries
 * that serve files from disk (nginx, nghttpd, h2o, the python3-h2 script).
 */

import { chmod, mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { tempDir } from './child-server.js'
import type { TempDir } from './child-server.js'
import { serverCrt, serverKey } from '../../helpers/certs.js'

/** A directory with `www/` (the files), `cert.pem` and `key.pem`. */
export interface StaticSiteDir {
  tmp: TempDir
  root: string
  cert: string
  key: string
}

/** Writes `files` under a fresh temp dir's `www/`, beside the test certificate and its key. */
export async function staticSiteDir (prefix: string, files: Record<string, Buffer | string>): Promise<StaticSiteDir> {
  const tmp = await tempDir(prefix)
  const root = path.join(tmp.dir, 'www')
  await mkdir(root)
  for (const [name, content] of Object.entries(files)) await writeFile(path.join(root, name), content)
  // Workers may run as another user: they must be able to read what they serve.
  await chmod(tmp.dir, 0o755)
  const cert = path.join(tmp.dir, 'cert.pem')
  const key = path.join(tmp.dir, 'key.pem')
  await writeFile(cert, serverCrt)
  await writeFile(key, serverKey)
  return { tmp, root, cert, key }
}
