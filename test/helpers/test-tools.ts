/**
 * Finding the server binaries the integration tests run, through the same lookup `npm test` uses
 * to decide what to install (the repository's scripts/test-servers.mjs), so a binary the
 * provisioning step accepts is the one the tests start.
 */

interface TestServerTools {
  findTool: (name: string) => string | undefined
  findPythonWith: (module: string) => string | undefined
  aptInstallCommand: (packages: readonly string[]) => string
}

// The script is plain JavaScript run before the build, so it is loaded from the source tree
// (dist/test/helpers -> the repository root) rather than compiled.
const tools = await import(new URL('../../../scripts/test-servers.mjs', import.meta.url).href) as TestServerTools

/**
 * The path of executable `name` (PATH, then the sbin directories, or only `CONDUIT_TOOL_DIRS`
 * when set); throws naming the Debian package to install when it is missing. Tests never skip.
 */
export function requireTool (name: string, debianPackage: string): string {
  const file = tools.findTool(name)
  if (file !== undefined) return file
  throw new Error(`${debianPackage} is required by the integration tests but ${name} was not found; install it with: ${tools.aptInstallCommand([debianPackage])}`)
}

/** The path of a Python that imports `module`; throws naming the Debian package when there is none. */
export function requirePythonModule (module: string, debianPackage: string): string {
  const file = tools.findPythonWith(module)
  if (file !== undefined) return file
  throw new Error(`${debianPackage} is required by the integration tests but no python3 imports ${module}; install it with: ${tools.aptInstallCommand([debianPackage])}`)
}
