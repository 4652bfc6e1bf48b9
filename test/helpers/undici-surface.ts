/**
 * undici's public type surface, read from its own declaration files with the TypeScript compiler
 * API: every exported name of its entry and, recursively, every member of the namespaces merged
 * onto its classes and functions (`Dispatcher.DispatchOptions`, `errors.UndiciError`, ...).
 * The list is derived, never written by hand, so a name a future undici adds shows up by itself.
 */

import ts from 'typescript'

/** One entry of undici's type surface. */
export interface SurfaceEntry {
  /** The dotted path a user writes after the import: `Dispatcher.DispatchOptions`. */
  path: string
  /** True when the path names a type (interface, alias, class). */
  isType: boolean
  /** True when the path names a value other than a plain namespace (class, function, const). */
  isValue: boolean
  /** True when the type is a class (its instances carry private state, so only one direction is checked). */
  isClass: boolean
  /** How many type parameters have no default: the check fills them with `any`. */
  requiredTypeParameters: number
}

function typeParameterDeclarations (symbol: ts.Symbol): readonly ts.TypeParameterDeclaration[] {
  for (const declaration of symbol.declarations ?? []) {
    if (ts.isInterfaceDeclaration(declaration) || ts.isTypeAliasDeclaration(declaration) || ts.isClassDeclaration(declaration)) {
      return declaration.typeParameters ?? []
    }
  }
  return []
}

function isNamespaceOnly (symbol: ts.Symbol): boolean {
  const flags = symbol.flags
  return (flags & ts.SymbolFlags.Module) !== 0 && (flags & (ts.SymbolFlags.Class | ts.SymbolFlags.Function | ts.SymbolFlags.Variable | ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias)) === 0
}

/** Names that exist for CommonJS interop, not as something a user imports by name. */
const INTEROP_NAMES = new Set(['default', 'prototype'])

/** Reads the surface of the declaration entry at `entryFile` (undici's `index.d.ts`). */
export function readSurface (entryFile: string): SurfaceEntry[] {
  const program = ts.createProgram([entryFile], { noEmit: true, types: ['node'], skipLibCheck: true, target: ts.ScriptTarget.ES2022 })
  const checker = program.getTypeChecker()
  const source = program.getSourceFile(entryFile)
  if (source === undefined) throw new Error(`cannot read ${entryFile}`)
  const moduleSymbol = checker.getSymbolAtLocation(source)
  if (moduleSymbol === undefined) throw new Error(`${entryFile} is not a module`)
  const entries: SurfaceEntry[] = []
  const seen = new Set<ts.Symbol>()

  const visit = (exported: ts.Symbol, path: string): void => {
    const symbol = (exported.flags & ts.SymbolFlags.Alias) !== 0 ? checker.getAliasedSymbol(exported) : exported
    const flags = symbol.flags
    const isType = (flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Class)) !== 0
    const isValue = !isNamespaceOnly(symbol) && (flags & ts.SymbolFlags.Value) !== 0
    if (isType || isValue) {
      entries.push({
        path,
        isType,
        isValue,
        isClass: (flags & ts.SymbolFlags.Class) !== 0,
        requiredTypeParameters: typeParameterDeclarations(symbol).filter((parameter) => parameter.default === undefined).length
      })
    }
    if ((flags & (ts.SymbolFlags.Module)) === 0 || seen.has(symbol)) return
    seen.add(symbol)
    for (const member of checker.getExportsOfModule(symbol)) {
      if (INTEROP_NAMES.has(member.name)) continue
      visit(member, `${path}.${member.name}`)
    }
  }

  for (const exported of checker.getExportsOfModule(moduleSymbol)) {
    if (INTEROP_NAMES.has(exported.name)) continue
    visit(exported, exported.name)
  }
  return entries.sort((a, b) => a.path.localeCompare(b.path))
}
