// Rolit and Othello: the 8x8 board as 64 buttons (arrow keys move between
// them, one tab stop), each named by its square and what lies there.
import { create } from "@bufbuild/protobuf";
import { ActionSchema, type Action, type GameView, type GridPosition } from "../gen/meeple/v1/game_pb";
import { el } from "../dom";
import { colourLook } from "../games";
import { type Board, type Turn, rovingFocus, sameAction } from "./board";

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

  const element = el("div", { class: "board" }, cells);
  return {
    element,
    show(view: GameView, shownTurn: Turn | null) {
      turn = shownTurn;
      if (view.position.case !== "grid") return;
      const grid: GridPosition = view.position.value;
      const legal = shownTurn ? legalSquares(shownTurn) : new Set<number>();
      squares.forEach((button, index) => {
        const colour = grid.cells[index] ?? -1;
        const look = colour >= 0 ? colourLook(grid.colours[colour] ?? "") : null;
        const hinted = shownTurn !== null && sameAction(shownTurn.hint, place(index));
        const name = [
          squareName(index),
          look ? `${look.name} (${look.symbol})` : "empty",
          legal.has(index) && "playable",
          hinted && "hinted",
        ].filter(Boolean);
        button.setAttribute("aria-label", name.join(", "));
        button.setAttribute("aria-disabled", String(!legal.has(index)));
        button.className = `square${legal.has(index) ? " legal" : ""}${hinted ? " hinted" : ""}`;
        button.replaceChildren(look ? el("span", { class: `ball ${look.style}`, "aria-hidden": "true" }, look.symbol) : "");
      });
    },
  };
}

function legalSquares(turn: Turn): Set<number> {
  const legal = new Set<number>();
  for (const info of turn.legal.actions) {
    const kind = info.action?.kind;
    if (kind?.case === "board" && kind.value.move.case === "square") legal.add(kind.value.move.value);
  }
  return legal;
}
