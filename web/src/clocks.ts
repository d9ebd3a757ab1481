// The turn clocks of a match's human seats: what the server last said each
// seat had, and the running one counted down locally from when it started.
import { durationMs, timestampMs } from "@bufbuild/protobuf/wkt";
import type { ClockStarted, Match } from "./gen/meeple/v1/match_service_pb";
import { SeatKind } from "./gen/meeple/v1/match_service_pb";

export class Clocks {
  private left: (number | null)[] = [];
  private running: { seat: number; since: number } | null = null;
  private incrementMs = 0;

  /** Takes the clocks of a match as the server describes it. */
  setMatch(match: Match): void {
    this.incrementMs = match.timeControl?.increment ? durationMs(match.timeControl.increment) : 0;
    this.left = match.seats.map((seat) =>
      seat.kind === SeatKind.HUMAN && seat.timeLeft ? durationMs(seat.timeLeft) : null,
    );
    this.running = null;
    const view = match.view;
    if (match.turnDeadline && view?.seatToAct !== undefined && this.left[view.seatToAct] !== null) {
      // The deadline is the server's clock; fine for a page on the same network.
      this.left[view.seatToAct] = Math.max(0, timestampMs(match.turnDeadline) - Date.now());
      this.running = { seat: view.seatToAct, since: performance.now() };
    }
  }

  /** A seat's clock started: it has `timeLeft` from now. */
  start(clock: ClockStarted): void {
    this.left[clock.seat] = clock.timeLeft ? durationMs(clock.timeLeft) : 0;
    this.running = { seat: clock.seat, since: performance.now() };
  }

  /** A seat acted: its clock stops and gains the increment. */
  stop(seat: number): void {
    if (this.running?.seat !== seat) return;
    this.left[seat] = this.remaining(seat)! + this.incrementMs;
    this.running = null;
  }

  /** Every clock stops (the match is over). */
  stopAll(): void {
    if (this.running) this.left[this.running.seat] = this.remaining(this.running.seat);
    this.running = null;
  }

  /** A seat's time left in ms now, or null for a seat without a clock (a bot). */
  remaining(seat: number): number | null {
    const left = this.left[seat] ?? null;
    if (left === null || this.running?.seat !== seat) return left;
    return Math.max(0, left - (performance.now() - this.running.since));
  }

  isRunning(seat: number): boolean {
    return this.running?.seat === seat;
  }
}

/** "4:05", or "0:09.4" under ten seconds. */
export function formatClock(ms: number): string {
  const seconds = ms / 1000;
  const minutes = Math.floor(seconds / 60);
  const rest = seconds - minutes * 60;
  if (minutes === 0 && rest < 10) return `0:0${rest.toFixed(1)}`;
  return `${minutes}:${String(Math.floor(rest)).padStart(2, "0")}`;
}
