/**
 * Interleaved weighted round robin, the scheduling of BalancedPool: a threshold walks down from
 * the greatest weight in steps, and each pass over the list gives a turn to every member whose
 * weight reaches the threshold. Over a full walk each member gets turns in proportion to its
 * weight, spread out rather than in bursts.
 * @module
 */

/** The scheduler's state, kept by its owner between picks. */
export interface WeightedTurns {
  /** Index of the member that had the last turn; -1 before the first. */
  index: number
  /** The threshold a member's weight must reach to get a turn. */
  currentWeight: number
  /** The greatest weight, where the threshold starts again. */
  maxWeight: number
  /** How far the threshold walks down after each pass (the weights' greatest common divisor). */
  step: number
  /** How much one failure changes a weight (kept here for the owner). */
  penalty: number
}

/**
 * The member whose turn it is, among those `available` allows; when no member reaches the
 * threshold in a whole pass, the heaviest available one, and the walk goes on from it. Null
 * when none is available.
 */
export function nextWeightedTurn<M extends { weight: number }> (members: readonly M[], turns: WeightedTurns, available: (member: M) => boolean): M | null {
  let heaviest = -1
  for (let n = 0; n < members.length; n++) {
    turns.index = (turns.index + 1) % members.length
    if (turns.index === 0) {
      turns.currentWeight -= turns.step
      if (turns.currentWeight <= 0) turns.currentWeight = turns.maxWeight
    }
    const member = members[turns.index]!
    if (!available(member)) continue
    if (heaviest === -1 || member.weight > members[heaviest]!.weight) heaviest = turns.index
    if (member.weight >= turns.currentWeight) return member
  }
  if (heaviest === -1) return null
  turns.index = heaviest
  turns.currentWeight = members[heaviest]!.weight
  return members[heaviest]!
}
