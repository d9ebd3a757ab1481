// Rolit and Othello: the 8x8 board as 64 buttons (arrow keys move between
// them, one tab stop), each named by its square and what lies there.
import { create } from "@bufbuild/protobuf";
import { ActionSchema, type Action, type GameView, type GridPosition } from "../gen/meeple/v1/game_pb";
import { el } from "../dom";
import { colourLook } from "../games";
import { type Board, type LastAction, type Turn, rovingFocus, sameAction } from "./board";

const FILES = "abcdefgh";

export function squareName(index: number): string {
  return `${FILES[index % 8]}${Math.floor(index / 8) + 1}`;
}

function place(square: number): Action {
  return create(ActionSchema, { kind: { case: "board", value: { move: { case: "square", value: square } } } });
}

export function gridBoard(): Board {
  const squares: HTMLButtonElement[] = [];
  const cells = el("div", { class: "grid-board", role: "group", "aria-label": "Board: a1 is bottom left, h8 top right" });
  // Rank 8 on top, as a board is drawn.
  for (let rank = 7; rank >= 0; rank--) {
    cells.append(el("span", { class: "coordinate", "aria-hidden": "true" }, String(rank + 1)));
    for (let file = 0; file < 8; file++) {
      const button = el("button", { type: "button", class: "square" });
      squares[rank * 8 + file] = button;
      cells.append(button);
    }
  }
  cells.append(el("span", { class: "coordinate" }));
  for (const file of FILES) cells.append(el("span", { class: "coordinate", "aria-hidden": "true" }, file));
  const ordered = [...cells.querySelectorAll<HTMLButtonElement>("button.square")];
  rovingFocus(cells, ordered, 8);

  let turn: Turn | null = null;
  squares.forEach((button, index) => {
    button.addEventListener("click", () => {
      const action = place(index);
      if (turn && legalSquares(turn).has(index)) turn.choose(action);
    });
  });

  let last: LastAction | null = null;
  /** The colour index on each square as last drawn, and at which ply. */
  let drawn: number[] = [];
  let drawnPly = -1;
  /** The squares whose disc changed colour on the last new position drawn. */
  let flipped = new Set<number>();

  const element = el("div", { class: "board" }, cells);
  return {
    element,
    markLast(next: LastAction | null) {
      last = next;
    },
    show(view: GameView, shownTurn: Turn | null) {
      turn = shownTurn;
      if (view.position.case !== "grid") return;
      const grid: GridPosition = view.position.value;
      const legal = shownTurn ? legalSquares(shownTurn) : new Set<number>();
      const placed = last ? placedSquare(last.action) : null;
      const moved = view.ply !== drawnPly;
      if (moved) {
        // A new position: the discs that changed colour flip (a step back
        // in the replay flips them back). The same position drawn again
        // (a hint, the turn loaded) restarts nothing.
        flipped = new Set<number>();
        grid.cells.forEach((colour, index) => {
          const before = drawn[index] ?? -1;
          if (drawnPly >= 0 && before >= 0 && colour >= 0 && before !== colour) flipped.add(index);
        });
        drawn = [...grid.cells];
        drawnPly = view.ply;
      }
      squares.forEach((button, index) => {
        const colour = grid.cells[index] ?? -1;
        const look = colour >= 0 ? colourLook(grid.colours[colour] ?? "") : null;
        const hinted = shownTurn !== null && sameAction(shownTurn.hint, place(index));
        const isLast = placed === index && last !== null && last.ply + 1 === view.ply;
        const flip = flipped.has(index);
        const name = [
          squareName(index),
          look ? `${look.name} (${look.symbol})` : "empty",
          isLast && "last move",
          flip && "flipped",
          legal.has(index) && "playable",
          hinted && "hinted",
        ].filter(Boolean);
        button.setAttribute("aria-label", name.join(", "));
        button.setAttribute("aria-disabled", String(!legal.has(index)));
        button.className = `square${legal.has(index) ? " legal" : ""}${hinted ? " hinted" : ""}${isLast ? " last-move" : ""}`;
        const ball = button.querySelector<HTMLElement>(".ball");
        if (!look) {
          if (ball) button.replaceChildren();
          return;
        }
        // A disc that flips keeps its element, so that its colour changes
        // by a transition (style.css; none under prefers-reduced-motion).
        const disc = ball ?? el("span", { "aria-hidden": "true" });
        const style = `ball ${look.style}`;
        if (moved && flip) {
          disc.className = style;
          void disc.offsetWidth; // restarts the flip when it flipped last time too
          disc.className = `${style} flipped`;
        } else if (moved || !disc.className.startsWith(style)) {
          disc.className = flip ? `${style} flipped` : style;
        }
        disc.textContent = look.symbol;
        if (!ball) button.replaceChildren(disc);
      });
    },
  };
}

/** The square an action places on; null for a pass or another game's action. */
function placedSquare(action: Action): number | null {
  const kind = action.kind;
  return kind.case === "board" && kind.value.move.case === "square" ? kind.value.move.value : null;
}

function legalSquares(turn: Turn): Set<number> {
  const legal = new Set<number>();
  for (const info of turn.legal.actions) {
    const kind = info.action?.kind;
    if (kind?.case === "board" && kind.value.move.case === "square") legal.add(kind.value.move.value);
  }
  return legal;
}
