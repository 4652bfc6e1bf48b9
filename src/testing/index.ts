/**
 * conduit/testing: test suites for code that plugs into conduit. Store authors run the cache
 * store contract against their own store with node's test runner.
 * @module conduit/testing
 */

export { runCacheStoreContract, writeEntry, readCachedBody } from './cache-store-contract.js'
export type { ContractStore, MakeContractStore } from './cache-store-contract.js'
