// What every game's board offers the match view.
import type { Action, ActionInfo, FlickOutcome, GameView } from "../gen/meeple/v1/game_pb";
import type { ListLegalActionsResponse } from "../gen/meeple/v1/rules_service_pb";

/** The viewer's turn: what may be played now, and how to play it. */
export interface Turn {
  /** The legal actions after the planned ones (ListLegalActions). */
  readonly legal: ListLegalActionsResponse;
  /** Actions chosen this turn and not yet sent (Volleyball). */
  readonly planned: readonly ActionInfo[];
  /** The action a hint suggested, to point at. */
  readonly hint: Action | null;
  /** Plays (or plans) an action. */
  choose(action: Action): void;
}

/** The last action played before the position shown, for the board to mark:
 * Rolit and Othello the square placed (or nothing for a pass), Volleyball
 * the piece moved or served, Volta the steed flicked. */
export interface LastAction {
  /** The ply it was played at (0 for the first action). */
  readonly ply: number;
  /** The seat that played it; undefined for chance (the dice). */
  readonly seat: number | undefined;
  readonly action: Action;
  /** Its notation, as the server wrote it ("d3", "step 3,2->2,2", "pass"). */
  readonly notation: string;
  /** Every action the same seat played in a row, ending with this one
   * (a Volleyball turn's steps and `end`); at least this one. */
  readonly turn: readonly Action[];
}

export interface Board {
  readonly element: HTMLElement;
  /** Draws a state; `turn` is set while the viewer may act in it. */
  show(view: GameView, turn: Turn | null): void;
  /** Sets the last action to mark (null: none, as at the start). The page
   * calls it before the show() of the position that action led to, and a
   * board draws the mark on that show() (it may draw it at once too). */
  markLast?(last: LastAction | null): void;
  /** Plays a flick's frames back (Volta), `speed` times real time. */
  playBack?(outcome: FlickOutcome, speed: number, signal: AbortSignal): Promise<void>;
}

/** The same action, whatever object holds it. */
export function sameAction(a: Action | null | undefined, b: Action | null | undefined): boolean {
  return !!a && !!b && JSON.stringify(a.kind, bigints) === JSON.stringify(b.kind, bigints);
}

function bigints(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}

/** Arrow keys move focus in a grid of `columns` buttons with one tab stop. */
export function rovingFocus(container: HTMLElement, buttons: HTMLButtonElement[], columns: number): void {
  let current = 0;
  const focusOn = (index: number): void => {
    buttons[current]!.tabIndex = -1;
    current = index;
    buttons[current]!.tabIndex = 0;
    buttons[current]!.focus();
  };
  buttons.forEach((button, index) => {
    button.tabIndex = index === 0 ? 0 : -1;
    button.addEventListener("focus", () => {
      buttons[current]!.tabIndex = -1;
      current = index;
      button.tabIndex = 0;
    });
  });
  container.addEventListener("keydown", (event) => {
    const moves: Record<string, number> = {
      ArrowLeft: -1,
      ArrowRight: 1,
      ArrowUp: -columns,
      ArrowDown: columns,
    };
    if (event.key === "Home" || event.key === "End") {
      focusOn(event.key === "Home" ? 0 : buttons.length - 1);
      event.preventDefault();
      return;
    }
    const move = moves[event.key];
    if (move === undefined) return;
    const next = current + move;
    if (next >= 0 && next < buttons.length) focusOn(next);
    event.preventDefault();
  });
}
