// Removes the previous build so deleted sources never leave stale compiled tests behind.
import { rmSync } from 'node:fs'

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true })
