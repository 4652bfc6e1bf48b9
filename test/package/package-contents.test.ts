import { before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const root = fileURLToPath(new URL('../../../', import.meta.url))
// Generated or installed trees: what is in them is not the repository's own writing.
const NOT_SOURCES = new Set(['node_modules', 'dist', '.git', '.tmp', 'coverage', 'api'])
const TEXT = /\.(?:js|mjs|ts|mts|md|json)$/

function walk (dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (NOT_SOURCES.has(entry.name)) return []
    const full = path.join(dir, entry.name)
    return entry.isDirectory() ? walk(full) : [path.relative(root, full)]
  })
}

const docs = ['README.md', ...readdirSync(path.join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)]
const markdownNames = new Set(walk(root).filter((file) => file.endsWith('.md')).map((file) => path.basename(file)))

/** Names of markdown files a text mentions that exist nowhere in the repository. */
function missingMarkdown (text: string): string[] {
  return [...text.matchAll(/[\w-]+\.md\b/g)].map(([name]) => name).filter((name) => !markdownNames.has(name))
}

/** A repository path a doc names: found as written, or as the TypeScript source of a compiled .js. */
function pathExists (from: string, target: string): boolean {
  const candidates = [path.resolve(path.dirname(path.join(root, from)), target), path.join(root, target)]
  return candidates.some((file) => existsSync(file) || existsSync(file.replace(/^(.*)\.js$/, '$1.ts').replace(`${path.sep}dist${path.sep}`, path.sep)))
}

describe('the published package', () => {
  let shipped: string[] = []
  before(async () => {
    const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    shipped = (JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>)[0]?.files.map((file) => file.path) ?? []
  })

  it('ships the MIT license, the README and every file its exports point at', () => {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { license: string, exports: Record<string, string | Record<string, string>> }
    assert.equal(pkg.license, 'MIT')
    assert.match(readFileSync(path.join(root, 'LICENSE'), 'utf8'), /^MIT License\n\nCopyright \(c\) \d{4} conduit contributors\n/)
    const targets = Object.values(pkg.exports).flatMap((target) => typeof target === 'string' ? [target] : Object.values(target))
    for (const file of ['LICENSE', 'README.md', 'package.json', ...targets.map((target) => path.normalize(target))]) {
      assert.ok(shipped.includes(file), `${file} is not in the package`)
    }
  })

  it('ships the source every source map and declaration map points at', () => {
    const maps = shipped.filter((file) => file.endsWith('.map'))
    assert.ok(maps.length > 0)
    for (const map of maps) {
      const { sources } = JSON.parse(readFileSync(path.join(root, map), 'utf8')) as { sources: string[] }
      for (const source of sources) {
        const file = path.normalize(path.join(path.dirname(map), source))
        assert.ok(shipped.includes(file), `${map} points at ${file}, which is not in the package`)
      }
    }
  })

  it('mentions no markdown file that the repository does not have, in any shipped file or doc', () => {
    const offenders = [...new Set([...shipped.filter((file) => TEXT.test(file)), ...docs])]
      .flatMap((file) => missingMarkdown(readFileSync(path.join(root, file), 'utf8')).map((name) => `${file}: ${name}`))
    assert.deepEqual(offenders, [])
  })

  it('links and names only repository paths that exist, in README.md and docs/', () => {
    const offenders = docs.flatMap((file) => {
      // Paths inside code blocks are the reader's own (./fixtures/api.json), not the repository's.
      const text = readFileSync(path.join(root, file), 'utf8').replace(/^ *```[\s\S]*?^ *```/gm, '')
      const links = [...text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((match) => match[1] ?? '').filter((target) => !/^[a-z]+:/.test(target))
      const named = [...text.matchAll(/(?<![\w/.:-])(?:\.{1,2}\/)?(?:[\w-]+\/)+[\w.-]+\.(?:ts|js|mjs|md|json)\b/g)].map(([name]) => name)
      return [...links, ...named].filter((target) => !pathExists(file, target)).map((target) => `${file}: ${target}`)
    })
    assert.deepEqual(offenders, [])
  })
})
