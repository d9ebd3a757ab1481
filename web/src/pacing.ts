// Bot replies at a readable pace: the match's events go through a queue
// that shows each bot action at least PACE_MS after the action before it,
// so that three bots answering at once are seen one after another. The
// viewer's own turn is never held back for long: once the queue holds the
// event that gives the viewer the turn, the bot actions before it share at
// most CATCH_UP_MS, and any key or click on the board (the player acting)
// or flush() shows the true state at once.

/** The least time between two bot actions on screen. */
export const PACE_MS = 600;
/** The most the bot actions ahead of the viewer's turn may take together. */
export const CATCH_UP_MS = 2000;

export interface PacedEvents<E> {
  /** Whether the event is a bot's action, to pace. */
  paced(event: E): boolean;
  /** Whether the event gives the viewer the turn. */
  viewersTurn(event: E): boolean;
  /** Shows the event; `hurried` when the queue is being flushed (skip
   * playbacks). The queue waits for it. */
  apply(event: E, hurried: boolean): Promise<void>;
}

export class EventQueue<E> {
  private readonly queue: E[] = [];
  private running = false;
  private hurry = false;
  private lastShown = -Infinity;
  private wake: (() => void) | null = null;

  constructor(
    private readonly events: PacedEvents<E>,
    private readonly signal: AbortSignal,
  ) {
    signal.addEventListener("abort", () => this.wake?.());
  }

  push(event: E): void {
    this.queue.push(event);
    if (!this.running) void this.run();
    else if (this.events.viewersTurn(event)) this.wake?.(); // a shorter wait now
  }

  /** Shows everything queued at once. */
  flush(): void {
    if (this.queue.length === 0) return;
    this.hurry = true;
    this.wake?.();
  }

  /** How long the next event waits, from now. */
  private waitFor(event: E): number {
    if (this.hurry || !this.events.paced(event)) return 0;
    let pace = PACE_MS;
    const turnAt = this.queue.findIndex((queued) => this.events.viewersTurn(queued));
    if (turnAt >= 0) {
      const bots = this.queue.slice(0, turnAt + 1).filter((queued) => this.events.paced(queued)).length;
      pace = Math.min(PACE_MS, CATCH_UP_MS / Math.max(bots, 1));
    }
    return this.lastShown + pace - performance.now();
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length > 0 && !this.signal.aborted) {
        const wait = this.waitFor(this.queue[0]!);
        if (wait > 0) {
          await this.sleep(wait);
          continue; // the queue may have changed: measure again
        }
        const event = this.queue.shift()!;
        try {
          await this.events.apply(event, this.hurry);
        } catch (error) {
          console.error("could not show a match event", error);
        }
        this.lastShown = performance.now();
      }
    } finally {
      this.hurry = false;
      this.running = false;
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}
