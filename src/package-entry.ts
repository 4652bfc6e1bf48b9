/**
 * The package's entry: every public name of {@link "index" | the public surface}, and the same
 * names as one default object, as undici's default export (`import conduit from 'conduit'`,
 * then `conduit.Agent`). The default lives here because a module cannot be its own namespace.
 * @module
 */

import * as conduit from './index.js'

export * from './index.js'
export default conduit
