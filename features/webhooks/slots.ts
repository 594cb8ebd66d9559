/**
 * The sends in flight in this process, shared by every game's webhook worker, so that a game with a
 * long backlog to a slow receiver cannot hold them all: a game's worker asks for at most its own
 * bound (its `concurrency`, below the `total`), and when none is free a game that wants one waits in line: each slot that comes free is
 * kept for the first game in line (others cannot take it) and that game's worker is woken to take
 * it. A game waits for at most one freed slot per game ahead of it.
 */
export class SendSlots {
  private inUse = 0
  private readonly held = new Map<string, number>()
  /** Games waiting for a slot, first come first served, each once, with how to wake its worker. */
  private readonly line: Array<{ game: string; wake: () => void }> = []
  /** Slots kept for a game of the line until its worker's next `take`. */
  private readonly kept = new Map<string, number>()
  private keptTotal = 0

  constructor(readonly total: number) {}

  /** Slots `game` holds now. */
  heldBy(game: string): number {
    return this.held.get(game) ?? 0
  }

  /** Slots in use over every game. */
  get used(): number {
    return this.inUse
  }

  /**
   * Up to `wanted` slots for `game` now (each given back with `give`; `wanted` within the game's own
   * bound). When fewer are free, the game joins the line, and `wake` is called once a slot is kept
   * for it. A take of 0 gives up the slot kept for the game, if any.
   */
  take(game: string, wanted: number, wake: () => void): number {
    const mine = this.kept.get(game) ?? 0
    this.kept.delete(game)
    this.keptTotal -= mine
    const free = this.total - this.inUse - this.keptTotal
    const granted = Math.max(0, Math.min(wanted, free))
    this.inUse += granted
    if (granted > 0) this.held.set(game, this.heldBy(game) + granted)
    const waiting = this.line.findIndex((entry) => entry.game === game)
    if (granted < wanted) {
      if (waiting < 0) this.line.push({ game, wake })
    } else if (waiting >= 0) this.line.splice(waiting, 1)
    // A kept slot the game did not need goes to the next in line.
    this.handOut()
    return granted
  }

  /** `game` gives back `n` slots (a send ended, or a slot taken and not used). */
  give(game: string, n = 1): void {
    if (n <= 0) return
    const left = this.heldBy(game) - n
    if (left > 0) this.held.set(game, left)
    else this.held.delete(game)
    this.inUse -= n
    this.handOut()
  }

  /** The game's worker stopped: it leaves the line, and what was kept for it goes to the next. */
  leave(game: string): void {
    const waiting = this.line.findIndex((entry) => entry.game === game)
    if (waiting >= 0) this.line.splice(waiting, 1)
    this.keptTotal -= this.kept.get(game) ?? 0
    this.kept.delete(game)
    this.handOut()
  }

  private handOut() {
    while (this.line.length > 0 && this.total - this.inUse - this.keptTotal > 0) {
      const next = this.line.shift()!
      this.kept.set(next.game, (this.kept.get(next.game) ?? 0) + 1)
      this.keptTotal++
      next.wake()
    }
  }
}
