/**
 * What keeps a composed dispatcher's base reachable: its own methods and properties (a
 * MockAgent's `get()`, a SnapshotAgent's `getRecorder()`, a pool's `stats`) answered by the base.
 * @module
 */

/**
 * Defines on `composed` every member of `base` (own and inherited, below `Object.prototype`) that
 * `composed` does not have itself, as an accessor reading and writing the base: methods come
 * bound to the base, so its private state stays its own. What `composed` has (dispatch and the
 * request APIs, close and destroy, the events) stays its own, so requests still go through the
 * interceptors. Reading each member when asked keeps later changes of the base visible.
 */
export function forwardBaseMembers (composed: object, base: object): void {
  const done = new Set<PropertyKey>()
  for (let holder: object | null = base; holder !== null && holder !== Object.prototype; holder = Object.getPrototypeOf(holder) as object | null) {
    for (const key of Reflect.ownKeys(holder)) {
      if (key === 'constructor' || done.has(key) || key in composed) continue
      done.add(key)
      let bound: { method: Function, fn: Function } | null = null
      Object.defineProperty(composed, key, {
        configurable: true,
        enumerable: false,
        get () {
          const value: unknown = Reflect.get(base, key)
          if (typeof value !== 'function') return value
          // The same bound function on each read while the method stays the same (listeners compare by identity).
          if (bound?.method !== value) bound = { method: value, fn: value.bind(base) }
          return bound.fn
        },
        set (value: unknown) {
          Reflect.set(base, key, value)
        }
      })
    }
  }
}
