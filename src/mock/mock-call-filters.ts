/**
 * The criteria `MockCallHistory.filterCalls()` selects logs by.
 * @module
 */

/** One of the URL fields a filter can select on. */
export type MockCallHistoryFilterField = 'protocol' | 'host' | 'port' | 'origin' | 'path' | 'hash' | 'fullUrl' | 'method'

/** A filter value: exact string (or null/undefined to match an absent value) or a RegExp. */
export type FilterCallsParameter = string | RegExp | null | undefined

/** Select logs by several fields; combined with OR unless `operator: 'AND'`. */
export type FilterCallsObjectCriteria = Partial<Record<MockCallHistoryFilterField, FilterCallsParameter>>

/** Options of `filterCalls`. */
export interface FilterCallsOptions {
  /**
   * How object criteria combine (case-insensitive).
   * @defaultValue `'OR'`
   */
  operator?: 'AND' | 'OR' | 'and' | 'or'
}
