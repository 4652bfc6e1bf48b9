/**
 * Reads the library's TypeScript sources and the relative imports between them (type-only
 * imports and re-exports included), for the architecture rules the tests beside it check.
 * @module
 */

import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, posix, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository root: the compiled tests run from dist/test/architecture. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url))

/** The folders whose sources make up the library. */
export const LIBRARY_FOLDERS = ['src', 'interceptors', 'stores', 'presets'] as const

// `import ... from '...'`, `export ... from '...'`, `import '...'` and `import('...')`, type-only included.
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)(['"])(\.{1,2}\/[^'"]+)\1/g

function toPosix (path: string): string {
  return path.split(sep).join('/')
}

function listSources (dir: string): string[] {
  const found: string[] = []
  for (const entry of readdirSync(join(REPO_ROOT, dir), { withFileTypes: true })) {
    const path = posix.join(dir, entry.name)
    if (entry.isDirectory()) found.push(...listSources(path))
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) found.push(path)
  }
  return found
}

/** One source file: its path from the repository root, its text and the files it imports. */
export interface SourceFile {
  /** Path from the repository root, with `/` separators. */
  path: string
  /** Number of lines. */
  lines: number
  /** Paths (from the repository root) of the library files it imports. */
  imports: string[]
}

/** Every library source file with its relative imports resolved to repository paths. */
export function readSourceGraph (): Map<string, SourceFile> {
  const graph = new Map<string, SourceFile>()
  for (const folder of LIBRARY_FOLDERS) {
    for (const path of listSources(folder)) {
      const text = readFileSync(join(REPO_ROOT, path), 'utf8')
      const imports = new Set<string>()
      for (const match of text.matchAll(SPECIFIER)) {
        const target = posix.normalize(posix.join(posix.dirname(path), match[2]!)).replace(/\.js$/, '.ts')
        imports.add(toPosix(relative(REPO_ROOT, join(REPO_ROOT, dirname(target), posix.basename(target)))))
      }
      graph.set(path, { path, lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0), imports: [...imports] })
    }
  }
  return graph
}

/** Every import cycle, each as the list of files around it (first file repeated at the end). */
export function findCycles (graph: Map<string, SourceFile>): string[][] {
  const cycles: string[][] = []
  const state = new Map<string, 'open' | 'done'>()
  const stack: string[] = []
  const visit = (path: string): void => {
    state.set(path, 'open')
    stack.push(path)
    for (const next of graph.get(path)?.imports ?? []) {
      if (!graph.has(next)) continue
      const seen = state.get(next)
      if (seen === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next])
      else if (seen === undefined) visit(next)
    }
    stack.pop()
    state.set(path, 'done')
  }
  for (const path of [...graph.keys()].sort()) if (!state.has(path)) visit(path)
  return cycles
}

/**
 * The room a file belongs to: its folder one level below a library folder (`src/h1`,
 * `interceptors/cache`), or the file itself when it sits directly in one (`src/errors.ts`).
 */
export function roomOf (path: string): string {
  const parts = path.split('/')
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : path
}

/** The graph of rooms (see {@link roomOf}): a room imports another when one of its files imports one of the other's. */
export function roomGraph (graph: Map<string, SourceFile>): Map<string, SourceFile> {
  const rooms = new Map<string, { lines: number, imports: Set<string> }>()
  for (const file of graph.values()) {
    const room = roomOf(file.path)
    const entry = rooms.get(room) ?? { lines: 0, imports: new Set<string>() }
    rooms.set(room, entry)
    entry.lines += file.lines
    for (const target of file.imports) if (graph.has(target) && roomOf(target) !== room) entry.imports.add(roomOf(target))
  }
  return new Map([...rooms].map(([path, { lines, imports }]) => [path, { path, lines, imports: [...imports] }]))
}
