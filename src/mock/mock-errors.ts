/**
 * The `mockErrors` namespace: errors a mock agent raises.
 * @module
 */

export { MockNotMatchedError } from '../errors.js'
