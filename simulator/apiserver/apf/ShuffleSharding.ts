/**
 * Shuffle sharding: a flow's hash deals it a hand of `handSize` distinct queues out of `deckSize`
 * (`staging/src/k8s.io/apiserver/pkg/util/shufflesharding/shufflesharding.go`, `Dealer.Deal`): the hash is read as
 * mixed-radix digits (deckSize, deckSize − 1, …), and each digit is bumped past the cards dealt before it.
 * A heavy flow then fills only its own hand of queues; another flow shares all of its hand with it rarely.
 */

/** The queues (0 … deckSize − 1) dealt to `hash` (an unsigned integer below 2^53). */
export const dealHand = (hash: number, deckSize: number, handSize: number): ReadonlyArray<number> => {
  if (!(handSize >= 1 && handSize <= deckSize)) throw new Error(`shuffle sharding: handSize ${handSize} not in [1, ${deckSize}]`)
  const remainders: Array<number> = []
  let value = hash
  for (let i = 0; i < handSize; i++) {
    const radix = deckSize - i
    remainders.push(value % radix)
    value = Math.floor(value / radix)
  }
  const hand: Array<number> = []
  for (let i = 0; i < handSize; i++) {
    let card = remainders[i]!
    for (let j = i; j > 0; j--) if (card >= remainders[j - 1]!) card++
    hand.push(card)
  }
  return hand
}

/** FNV-1a over the flow's name, 32 bits: a deterministic hash (upstream hashes the flow with FNV too). */
export const flowHash = (flow: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < flow.length; i++) {
    h ^= flow.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h
}
