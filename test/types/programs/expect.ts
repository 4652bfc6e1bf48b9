// expectType-style assertions for the type programs: `type _ = Expect<Equal<A, B>>` fails to
// compile unless A and B are the same type. No undici import, so it is the same file for both.

/** True when `A` and `B` are the same type (not merely assignable to each other). */
export type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false

/** Compiles only when `T` is `true`. */
export type Expect<T extends true> = T
