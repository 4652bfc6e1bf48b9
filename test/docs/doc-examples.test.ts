import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { caCrt } from '../helpers/certs.js'
import { codeBlocks } from './markdown-blocks.js'
import type { CodeBlock } from './markdown-blocks.js'
import { DocServers } from './doc-servers.js'

// Every code block of README.md and docs/*.md is checked here, by the rules at the top of
// docs/README.md: ts/js blocks run as ES modules against local servers, json blocks parse.
const root = fileURLToPath(new URL('../../../', import.meta.url))
// Inside the package, so `import ... from 'conduit'` resolves to this build through its exports.
const workDir = path.join(root, '.tmp', 'doc-examples')
const loopbackOnly = new URL('./loopback-only.js', import.meta.url).href
const RUNNABLE = new Set(['ts', 'typescript', 'js', 'javascript'])
// A backstop only: examples finish in well under a second each.
const EXAMPLE_TIMEOUT_MS = 30_000

const markdownFiles = ['README.md', ...readdirSync(path.join(root, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)]

function toModule (block: CodeBlock): string {
  if (block.language.startsWith('j')) return block.code
  return ts.transpileModule(block.code, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText
}

function runModule (file: string, cwd: string, caFile: string): Promise<{ code: number | null, output: string }> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_EXTRA_CA_CERTS: caFile }
    // Examples that use node:test must run their own tests, not report to this runner.
    delete env.NODE_TEST_CONTEXT
    const child = spawn(process.execPath, ['--import', loopbackOnly, file], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
    const backstop = setTimeout(() => {
      output += `\n(killed: still running after ${EXAMPLE_TIMEOUT_MS} ms)`
      child.kill('SIGKILL')
    }, EXAMPLE_TIMEOUT_MS)
    child.once('error', reject)
    child.once('close', (code) => {
      clearTimeout(backstop)
      resolve({ code, output })
    })
  })
}

describe('the code blocks of README.md and docs/', { concurrency: 2 }, () => {
  const servers = new DocServers()
  const caFile = path.join(workDir, 'test-ca.pem')
  let prepared: Promise<void> | undefined
  const prepare = (): Promise<void> => {
    prepared ??= mkdir(workDir, { recursive: true }).then(() => writeFile(caFile, caCrt))
    return prepared
  }
  after(async () => {
    await servers.close()
    await rm(workDir, { recursive: true, force: true })
  })

  for (const file of markdownFiles) {
    for (const block of codeBlocks(readFileSync(path.join(root, file), 'utf8'))) {
      const where = `${file}:${block.line}`
      if (RUNNABLE.has(block.language) && block.noRun !== undefined) {
        it(`the ${block.language} block at ${where}, marked no-run, says why`, () => {
          assert.notEqual(block.noRun, '', `${where}: write the reason after no-run, e.g. \`\`\`ts no-run: a type signature`)
        })
      } else if (RUNNABLE.has(block.language)) {
        it(`the ${block.language} example at ${where} runs as written against local servers`, async () => {
          await prepare()
          const dir = path.join(workDir, where.replace(/[^\w]+/g, '-'))
          await mkdir(dir, { recursive: true })
          const module = path.join(dir, 'example.mjs')
          await writeFile(module, await servers.localise(toModule(block)))
          const run = await runModule(module, dir, caFile)
          assert.equal(run.code, 0, `${where} failed:\n${run.output}`)
        })
      } else if (block.language === 'json') {
        it(`the json block at ${where} parses`, () => {
          assert.doesNotThrow(() => JSON.parse(block.code), `${where} is not valid JSON`)
        })
      }
    }
  }

  it('the README quick start is exactly two commands', () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8')
    const quickStart = readme.slice(readme.indexOf('## Quick start'))
    const [commands] = codeBlocks(quickStart)
    assert.equal(commands?.language, 'sh')
    assert.deepEqual(commands?.code.split('\n').filter((line) => line.trim() !== ''), ['npm ci && npm run demo', 'npm test'])
  })
})
