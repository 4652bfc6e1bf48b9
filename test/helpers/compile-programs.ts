/**
 * Compiles TypeScript programs in memory for the type tests: the files as they are, or with
 * their imports of one package rewritten to another (`'undici'` → `'conduit'`), so the same user
 * program is checked against both libraries.
 * @module
 */

import ts from 'typescript'
import path from 'node:path'

/**
 * Reads the files of one package directory from another, as if that copy were installed there:
 * `{ from: 'node_modules/@types/node', to: 'node_modules/@types/node-22' }` compiles against
 * @types/node 22 everywhere `node` types are resolved (`types`, `/// <reference types>`).
 */
export interface PackageSwap {
  from: string
  to: string
}

function swapped (name: string, swap: PackageSwap | undefined): string {
  if (swap === undefined) return name
  const resolved = path.resolve(name)
  const from = path.resolve(swap.from) + path.sep
  return resolved.startsWith(from) ? path.join(path.resolve(swap.to), resolved.slice(from.length)) : name
}

/** The diagnostics of one compilation, each as `file(line): message`. */
export function compilePrograms (files: readonly string[], options: ts.CompilerOptions, rewrite?: { from: string, to: string }, swap?: PackageSwap): string[] {
  const host = ts.createCompilerHost(options)
  const roots = new Set(files.map((file) => path.resolve(file)))
  const readRaw = host.readFile.bind(host)
  const readFile = (name: string): string | undefined => readRaw(swapped(name, swap))
  const fileExists = host.fileExists.bind(host)
  host.fileExists = (name) => fileExists(swapped(name, swap))
  const getRawSourceFile = host.getSourceFile.bind(host)
  const getSourceFile: typeof getRawSourceFile = (name, ...rest) => {
    const source = getRawSourceFile(swapped(name, swap), ...rest)
    // The compiler knows the file by the name it asked for, not by where it was read from.
    if (source !== undefined) source.fileName = name
    return source
  }
  const rewritten = (name: string): string | undefined => {
    const text = readFile(name)
    if (text === undefined || rewrite === undefined || !roots.has(path.resolve(name))) return text
    return text.replaceAll(`from '${rewrite.from}'`, `from '${rewrite.to}'`)
  }
  host.readFile = rewritten
  host.getSourceFile = (name, language, ...rest) => {
    if (!roots.has(path.resolve(name))) return getSourceFile(name, language, ...rest)
    const text = rewritten(name)
    return text === undefined ? undefined : ts.createSourceFile(name, text, language)
  }
  const program = ts.createProgram([...roots], options, host)
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')
    if (diagnostic.file === undefined || diagnostic.start === undefined) return message
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start)
    return `${path.basename(diagnostic.file.fileName)}(${line + 1}): ${message}`
  })
}
