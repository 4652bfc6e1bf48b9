/**
 * The type-level differential: a generated program that, for every entry of undici's surface,
 * names conduit's counterpart at the same path and checks that the two are assignable (types:
 * both directions; classes and values: conduit's where undici's is expected). It is compiled in
 * memory, once, and each diagnostic is traced back to the surface path whose check it broke.
 */

import ts from 'typescript'
import path from 'node:path'
import type { SurfaceEntry } from './undici-surface.js'

/** The generated check program and which surface path each of its lines checks. */
export interface DifferentialProgram {
  text: string
  pathOfLine: ReadonlyMap<number, string>
}

function typeArguments (count: number): string {
  return count === 0 ? '' : `<${Array.from({ length: count }, () => 'any').join(', ')}>`
}

/** Writes the checks for `entries`: `U` is undici's entry, `C` conduit's. */
export function writeDifferentialProgram (entries: readonly SurfaceEntry[], undiciSpecifier: string, conduitSpecifier: string): DifferentialProgram {
  const lines = [
    `import type * as U from '${undiciSpecifier}'`,
    `import type * as C from '${conduitSpecifier}'`,
    'declare function take<T> (value: T): void'
  ]
  const pathOfLine = new Map<number, string>()
  const add = (entryPath: string, line: string): void => {
    pathOfLine.set(lines.length, entryPath)
    lines.push(line)
  }
  entries.forEach((entry, index) => {
    const args = typeArguments(entry.requiredTypeParameters)
    if (entry.isType) {
      const undiciType = `U.${entry.path}${args}`
      const conduitType = `C.${entry.path}${args}`
      // A user's value of undici's type goes where conduit's is expected, and back (options in,
      // results out). Class instances carry private state, so only conduit's goes into undici's.
      add(entry.path, `take<${undiciType}>(null as unknown as ${conduitType})`)
      if (!entry.isClass) add(entry.path, `take<${conduitType}>(null as unknown as ${undiciType})`)
    }
    if (entry.isValue) {
      add(entry.path, `declare const value${index}: typeof C.${entry.path}; take<typeof U.${entry.path}>(value${index})`)
    }
  })
  return { text: lines.join('\n') + '\n', pathOfLine }
}

/** The diagnostics of one surface path, each flattened to one message. */
export type DifferentialResult = Map<string, string[]>

/**
 * Compiles `program` as the file `fileName` (inside the package, so both specifiers resolve as a
 * user's would) with `options`, and groups the diagnostics by surface path. A diagnostic outside
 * the generated file is a defect of a declaration file and is reported under its file name.
 */
export function compileDifferential (program: DifferentialProgram, fileName: string, options: ts.CompilerOptions): DifferentialResult {
  const host = ts.createCompilerHost(options)
  const absolute = path.resolve(fileName)
  const readFile = host.readFile.bind(host)
  const fileExists = host.fileExists.bind(host)
  const getSourceFile = host.getSourceFile.bind(host)
  host.readFile = (name) => path.resolve(name) === absolute ? program.text : readFile(name)
  host.fileExists = (name) => path.resolve(name) === absolute || fileExists(name)
  host.getSourceFile = (name, language, ...rest) => path.resolve(name) === absolute
    ? ts.createSourceFile(name, program.text, language)
    : getSourceFile(name, language, ...rest)
  const compiled = ts.createProgram([absolute], options, host)
  const result: DifferentialResult = new Map()
  for (const diagnostic of ts.getPreEmitDiagnostics(compiled)) {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')
    let key = '(global)'
    if (diagnostic.file !== undefined && diagnostic.start !== undefined) {
      if (path.resolve(diagnostic.file.fileName) === absolute) {
        const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start)
        key = program.pathOfLine.get(line) ?? `(line ${line + 1})`
      } else {
        key = diagnostic.file.fileName
      }
    }
    const list = result.get(key) ?? []
    list.push(message)
    result.set(key, list)
  }
  return result
}
