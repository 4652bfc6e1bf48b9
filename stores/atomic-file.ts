/**
 * Atomic file saves for the snapshot files (JSON and HAR): the text goes to a temporary file
 * in the same directory, is flushed to disk, then renamed over the target, so a crash mid-save
 * leaves the previous file intact. Temporary files that killed writers left behind are removed
 * by the next load or save of the same file.
 * @module
 */

import { mkdir, open, readdir, rename, unlink } from 'node:fs/promises'
import { randomBytes } from 'node:crypto'
import { basename, dirname, join, resolve } from 'node:path'
import { SnapshotFileError } from '../src/handler.js'

function isAlive (pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Deletes temporary files a killed process left next to `file` (same naming scheme, owner no
 * longer running). Files of running processes, this one included, may be saves in progress and stay.
 */
export async function removeStaleTemps (dir: string, file: string): Promise<void> {
  const prefix = `.${file}.`
  const names = await readdir(dir).catch(() => [] as string[])
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue
    const match = /^(\d+)\.[0-9a-f]{12}\.tmp$/.exec(name.slice(prefix.length))
    if (match === null) continue
    const pid = Number(match[1])
    if (pid !== process.pid && !isAlive(pid)) await unlink(join(dir, name)).catch(() => {})
  }
}

/**
 * Writes `text` to `path` atomically (see the module comment); `what` names the file in the
 * {@link SnapshotFileError} a failed write rejects with (`snapshot file`, `HAR file`).
 */
export async function writeFileAtomically (path: string, text: string, what: string): Promise<void> {
  const resolved = resolve(path)
  const dir = dirname(resolved)
  const temp = join(dir, `.${basename(resolved)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`)
  try {
    await mkdir(dir, { recursive: true })
    const handle = await open(temp, 'wx', 0o644)
    try {
      await handle.writeFile(text, 'utf8')
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temp, resolved)
  } catch (err) {
    await unlink(temp).catch(() => {})
    throw new SnapshotFileError(`could not save ${what} ${resolved}: ${(err as Error).message}`, resolved, { cause: err })
  }
  // The rename is durable only once the directory entry is on disk; some platforms cannot open a directory.
  const dirHandle = await open(dir, 'r').catch(() => null)
  if (dirHandle !== null) {
    await dirHandle.sync().catch(() => {})
    await dirHandle.close()
  }
  await removeStaleTemps(dir, basename(resolved))
}
