/**
 * Compiles TypeScript programs in memory for the type tests: the files as they are, or with
 * their imports of one package rewritten to another (`'undici'` → `'conduit'`), so the same user
 * program is checked against both libraries.
 * @module
 */

import ts from 'typescript'
import path from 'node:path'

/** The diagnostics of one compilation, each as `file(line): message`. */
export function compilePrograms (files: readonly string[], options: ts.CompilerOptions, rewrite?: { from: string, to: string }): string[] {
  const host = ts.createCompilerHost(options)
  const roots = new Set(files.map((file) => path.resolve(file)))
  const readFile = host.readFile.bind(host)
  const getSourceFile = host.getSourceFile.bind(host)
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
