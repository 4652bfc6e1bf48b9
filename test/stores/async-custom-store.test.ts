import { runCacheStoreContract } from '../../src/testing/cache-store-contract.js'
import { AsyncTestStore } from './async-test-store.js'

runCacheStoreContract('an asynchronous custom store (cache store contract)', () => ({ store: new AsyncTestStore(), cleanup: async () => {} }))
