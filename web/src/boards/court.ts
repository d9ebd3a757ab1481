// Volleyball Returns: both sides of the net as buttons (seat 1's side on the
// left, column 7 outermost; row 1 at the bottom). A click places, serves,
// picks a piece to step and then its target, or lands the ball; End turn,
// Roll and Skip are buttons. Each square's name says what is on it. A step
// hint marks both the piece and its target; the last turn's pieces are
// marked; why each point ended (or the ball came back) is said in words in a
// live region. On a phone the court keeps squares of at least 44 px and
// scrolls sideways (to the side in play) instead of shrinking them.
import {
  type Action,
  CourtPhase,
  type CourtPosition,
  type CourtSquare,
  type GameView,
} from "../gen/meeple/v1/game_pb";
import { button, el, replace } from "../dom";
import { seatLook } from "../games";
import { rallyText } from "../notation";
import { type Board, type LastAction, type Turn, sameAction } from "./board";

const COLUMNS = 7;
// A jump between two shown views longer than a turn (a replay's First and
// Last) spans points: no reason is given for it.
const LONGEST_TURN = 8;

const key = (seat: number, square: CourtSquare | undefined): string =>
  `${seat}:${square?.column ?? 0},${square?.row ?? 0}`;

/** The legal actions of a turn, by what the player clicks. */
interface Choices {
  place: Map<string, Action>;
  serve: Map<string, Action>;
  land: Map<string, Action>;
  steps: Map<string, Map<string, Action>>; // origin -> target -> action
  end?: Action;
  roll?: Action;
}

function choices(turn: Turn, mover: number): Choices {
  const found: Choices = { place: new Map(), serve: new Map(), land: new Map(), steps: new Map() };
  for (const info of turn.legal.actions) {
    const action = info.action;
    if (action?.kind.case !== "volleyball") continue;
    const move = action.kind.value.move;
    switch (move.case) {
      case "place":
      case "serve":
        found[move.case].set(key(mover, move.value), action);
        break;
      case "land":
        found.land.set(key(1 - mover, move.value), action);
        break;
      case "step": {
        const origin = key(mover, move.value.origin);
        const targets = found.steps.get(origin) ?? new Map<string, Action>();
        targets.set(key(mover, move.value.target), action);
        found.steps.set(origin, targets);
        break;
      }
      case "end":
        found.end = action;
        break;
      case "roll":
        found.roll = action;
        break;
    }
  }
  return found;
}

export function courtBoard(): Board {
  const court = el("div", { class: "court", role: "group", "aria-label": "Court" });
  const phase = el("p", { class: "phase" });
  const controls = el("div", { class: "court-controls" });
  const rally = el("p", { class: "rally", role: "status" });
  const scroller = el("div", { class: "court-scroll" }, court);
  const swipe = el("p", { class: "court-swipe" }, "The court scrolls sideways: swipe it for the other side.");
  const element = el("div", { class: "board court-board" }, phase, scroller, swipe, controls, rally);
  let squares = new Map<string, HTMLButtonElement>();
  let rows = 0;
  let selected: string | null = null;
  let current: { turn: Turn | null; choices: Choices | null; view: GameView; mover: number } | null = null;
  let last: LastAction | null = null;
  let previous: GameView | null = null;
  let reason: { text: string; ply: number } | null = null;
  let shownSide = -1;

  function build(height: number): void {
    rows = height;
    squares = new Map();
    court.replaceChildren();
    for (let row = height; row >= 1; row--) {
      court.append(el("span", { class: "coordinate", "aria-hidden": "true" }, String(row)));
      for (let column = COLUMNS; column >= 1; column--) court.append(square(0, column, row));
      court.append(el("span", { class: "net", "aria-hidden": "true" }));
      for (let column = 1; column <= COLUMNS; column++) court.append(square(1, column, row));
    }
    court.append(el("span", { class: "coordinate" }));
    for (let column = COLUMNS; column >= 1; column--) court.append(columnLabel(column));
    court.append(el("span", { class: "coordinate", "aria-hidden": "true" }, "net"));
    for (let column = 1; column <= COLUMNS; column++) court.append(columnLabel(column));
  }

  function columnLabel(column: number): HTMLElement {
    return el("span", { class: "coordinate", "aria-hidden": "true" }, column === 7 ? "7 serve" : String(column));
  }

  function square(seat: number, column: number, row: number): HTMLButtonElement {
    const id = `${seat}:${column},${row}`;
    const element = el("button", { type: "button", class: `square side-${seat}${column === 7 ? " serving" : ""}` });
    element.addEventListener("click", () => click(id));
    squares.set(id, element);
    return element;
  }

  function click(id: string): void {
    const turn = current?.turn;
    const found = current?.choices;
    if (!turn || !found) return;
    const direct = found.place.get(id) ?? found.serve.get(id) ?? found.land.get(id);
    if (direct) return turn.choose(direct);
    const step = selected ? found.steps.get(selected)?.get(id) : undefined;
    if (step) {
      selected = null;
      return turn.choose(step);
    }
    selected = found.steps.has(id) && selected !== id ? id : null;
    draw();
  }

  function draw(): void {
    if (!current || current.view.position.case !== "court") return;
    const { view, turn, choices: found } = current;
    const position: CourtPosition = current.view.position.value;
    const pieces = new Map(position.pieces.map((piece) => [key(piece.seat, piece.square), piece.seat]));
    const receiver = 1 - position.hitter;
    const ball = position.landing ? key(receiver, position.landing) : null;
    const targets = selected ? found?.steps.get(selected) : undefined;
    const hint = turn?.hint?.kind.case === "volleyball" ? turn.hint.kind.value.move : undefined;
    const hintFrom = hint?.case === "step" ? key(current.mover, hint.value.origin) : null;
    const hintTo = hint?.case === "step" ? key(current.mover, hint.value.target) : null;
    const moved = lastMoved(last, view);
    for (const [id, element] of squares) {
      const [seat, place] = id.split(":") as [string, string];
      const owner = pieces.get(id);
      const look = owner === undefined ? null : seatLook(view, owner);
      const offers = [
        found?.place.has(id) && "place a piece here",
        found?.serve.has(id) && "serve this piece",
        found?.land.has(id) && "land the ball here",
        found?.steps.has(id) && (selected === id ? "selected to step" : "can step"),
        targets?.has(id) && "step here",
      ].filter(Boolean) as string[];
      const hintedPiece = id === hintFrom;
      const hinted =
        hintedPiece || (turn?.hint && (id === hintTo || [...allActions(found, id)].some((action) => sameAction(action, turn.hint))));
      const content = [
        look ? `${look.name} piece` : "empty",
        id === ball && "the ball is here",
        moved.has(id) && "last move",
        hinted && (hintedPiece ? "hinted piece to step" : hintTo === id ? "hinted target" : "hinted"),
      ];
      element.setAttribute(
        "aria-label",
        `${seatLook(view, Number(seat)).name} side ${place}: ${[...content, ...offers].filter(Boolean).join(", ")}`,
      );
      element.setAttribute("aria-pressed", String(selected === id));
      element.setAttribute("aria-disabled", String(offers.length === 0));
      element.classList.toggle("legal", offers.length > 0);
      element.classList.toggle("ball-here", id === ball);
      element.classList.toggle("hinted", !!hinted);
      element.classList.toggle("hint-from", hintedPiece);
      element.classList.toggle("last-move", moved.has(id));
      // The children change only with what is on the square: a redraw
      // between a press and its release (the match catching up on the
      // press) must not remove the element pressed, or no click follows.
      const shows = `${look?.style ?? ""}|${look?.symbol ?? ""}|${id === ball}`;
      if (element.dataset.shows !== shows) {
        element.dataset.shows = shows;
        element.replaceChildren(
          look ? el("span", { class: `piece ${look.style}`, "aria-hidden": "true" }, look.symbol) : "",
          id === ball ? el("span", { class: "ball-marker", "aria-hidden": "true" }, "●") : "",
        );
      }
    }
    replace(
      controls,
      found?.end &&
        button(position.phase === CourtPhase.HITTER_STEP ? "Skip your step" : "End turn", () => turn!.choose(found.end!)),
      found?.roll && button("Roll the dice", () => turn!.choose(found.roll!)),
    );
    replace(phase, describe(view, position));
    replace(rally, reason?.text ?? "");
    followPlay(position, found, current.mover);
  }

  /** On a court wider than its box (a phone), scrolls it sideways to the
   * side in play when that changes: where the viewer may act, else where
   * the ball is or the mover stands. Only the court's box scrolls. */
  function followPlay(position: CourtPosition, found: Choices | null | undefined, mover: number): void {
    if (scroller.scrollWidth <= scroller.clientWidth + 1) return;
    const side = found?.land.size ? 1 - mover : found ? mover : position.landing ? 1 - position.hitter : mover;
    if (side === shownSide) return;
    shownSide = side;
    scroller.scrollLeft = side === 0 ? 0 : scroller.scrollWidth;
  }

  /** The reason for the point (or the return) between the view shown last
   * and this one, kept until the next one (or a step back in a replay). */
  function noteRally(view: GameView): void {
    if (previous && view.ply > previous.ply && view.ply - previous.ply <= LONGEST_TURN) {
      const text = rallyText(previous, view, (seat) => seatLook(view, seat).name);
      if (text) reason = { text, ply: view.ply };
    } else if (reason && view.ply < reason.ply) {
      reason = null;
    }
    previous = view;
  }

  return {
    element,
    show(view: GameView, turn: Turn | null) {
      if (view.position.case !== "court") return;
      if (view.position.value.rows !== rows) build(view.position.value.rows);
      const mover = turn?.legal.view?.seatToAct ?? view.seatToAct ?? 0;
      const found = turn ? choices(turn, mover) : null;
      // A piece picked stays picked while the same position is drawn again
      // without a turn for a moment (the match catching up on a click).
      if ((found && !found.steps.has(selected ?? "")) || view.ply !== current?.view.ply) selected = null;
      current = { view, turn, choices: found, mover };
      noteRally(view);
      draw();
    },
    markLast(next: LastAction | null) {
      last = next;
    },
  };
}

function* allActions(found: Choices | null | undefined, id: string): Generator<Action> {
  if (!found) return;
  for (const map of [found.place, found.serve, found.land]) {
    const action = map.get(id);
    if (action) yield action;
  }
  for (const targets of found.steps.values()) {
    const action = targets.get(id);
    if (action) yield action;
  }
}

/** The squares the last turn's pieces stand on now: placed, served (to
 * column 7, same row) or stepped to; while the position after it shows. */
function lastMoved(last: LastAction | null, view: GameView): Set<string> {
  const found = new Set<string>();
  if (!last || last.seat === undefined || last.ply + 1 !== view.ply) return found;
  for (const action of last.turn) {
    if (action.kind.case !== "volleyball") continue;
    const move = action.kind.value.move;
    if (move.case === "place") found.add(key(last.seat, move.value));
    if (move.case === "serve") found.add(`${last.seat}:7,${move.value.row}`);
    if (move.case === "step") {
      found.delete(key(last.seat, move.value.origin));
      found.add(key(last.seat, move.value.target));
    }
  }
  return found;
}

function describe(view: GameView, court: CourtPosition): string {
  const name = (seat: number): string => seatLook(view, seat).name;
  const dice = court.lastDice ? `dice ${court.lastDice.die1},${court.lastDice.die2}` : "";
  const landing = court.landing ? `the ball landed on ${court.landing.column},${court.landing.row} of ${name(1 - court.hitter)}'s side` : "";
  const mover = view.seatToAct === undefined ? "" : name(view.seatToAct);
  const placed = court.pieces.filter((piece) => piece.seat === view.seatToAct).length;
  switch (court.phase) {
    case CourtPhase.PLACE:
      return `${mover} places a piece (${placed} of 6 placed; ${name(court.servingSeat)} serves this point).`;
    case CourtPhase.SERVE:
      return `${mover} serves: a piece nearest column 6 goes to column 7.`;
    case CourtPhase.HIT:
      return `${mover} hits: choose where the ball lands, or roll the dice.`;
    case CourtPhase.ROLL:
      return `The dice roll for ${name(court.hitter)}'s hit.`;
    case CourtPhase.HITTER_STEP:
      return `${[dice, landing].filter(Boolean).join(": ")}. ${mover} may step one piece first.`;
    case CourtPhase.RECEIVE:
      return `${[dice, landing].filter(Boolean).join(": ")}. ${mover} receives: step up to 3 pieces, then End turn; 3 in a line with one end on the ball return it.`;
    case CourtPhase.OVER:
      return "The game is over.";
    default:
      return "";
  }
}
