// One match on screen, to play a seat or to watch: the seats with scores and
// clocks, the board, the viewer's turn (legal moves, a plan for multi-action
// turns, hints, resigning), the moves so far, and the live connection. Bot
// replies are shown one after another (pacing.ts); the last move is marked;
// the end shows a result card (resultcard.ts). State is applied by ply: an
// answer older than what the page shows (a SubmitAction answer arriving
// after the stream's end) never replaces it.
import { create } from "@bufbuild/protobuf";
import { HINT_TIMEOUT_MS, ai, asSeat, matches, rules } from "./api";
import { type LastAction, type Turn, sameAction } from "./boards/board";
import { Clocks, formatClock } from "./clocks";
import { alertError, announce, button, el, field, replace, select } from "./dom";
import { describeError } from "./errors";
import { BOT_LEVELS, gameInfo, seatLook } from "./games";
import { actionText, narrator } from "./notation";
import {
  type Action,
  type ActionInfo,
  type GameRecord,
  GameRecordSchema,
  type GameView,
  GamePhase,
} from "./gen/meeple/v1/game_pb";
import {
  type Match,
  type MatchEnded,
  MatchStatus,
  SeatKind,
  type WatchMatchResponse,
} from "./gen/meeple/v1/match_service_pb";
import type { ListLegalActionsResponse } from "./gen/meeple/v1/rules_service_pb";
import { asPlayer, identity, withPlayer } from "./identity";
import { heldSeat, holdSeat, type SeatHeld } from "./tokens";
import { noteMatchEnded } from "./mygames";
import { showReplay } from "./replay";
import { EventQueue } from "./pacing";
import { type ResultCard, resultCard } from "./resultcard";
import { soundToggle, turnBeep } from "./sound";
import { resetTitle, setTitle } from "./title";
import { newBoard, resultText } from "./view";
import { follow } from "./watch";

const LOG_LENGTH = 30;
/** On opening, the stream starts this many plies back: the log and the
 * last-move mark show the latest actions, with their seats and notation. */
const HISTORY_PLIES = 10;

/** How far a match has got: its ply, then its status (waiting, playing,
 * finished). The page never goes back to a lower one. */
function progress(match: Match): [number, number] {
  return [match.view?.ply ?? 0, match.status];
}

function behind(a: [number, number], b: [number, number]): boolean {
  return a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
}

/** Whether an action is Othello's pass. */
function isPass(action: Action | undefined): boolean {
  return action?.kind.case === "board" && action.kind.value.move.case === "passTurn";
}
const PLAYBACK_KEY = "meeple:playback";

/** Shows match `matchId` in `root`, to play it (`asked`, or when the
 * signed-in player holds a seat) or to watch it; returns what stops it.
 * It draws nothing once `current()` is false (the page moved on). */
export async function showMatch(
  root: HTMLElement,
  matchId: string,
  asked: boolean,
  current: () => boolean,
): Promise<() => void> {
  const stop = new AbortController();
  const first = await matches.getMatch({ matchId });
  if (first.match?.status === MatchStatus.FINISHED) {
    // A finished match opens as its replay (its link, shared after the game).
    history.replaceState(null, "", `#/replay/${encodeURIComponent(matchId)}`);
    return showReplay(root, matchId, current, first);
  }
  let match: Match = first.match!;
  let record: GameRecord | null = first.record ?? null;
  let view: GameView = match.view!;
  // "You" is the signed-in player, in any tab or device: a seat it holds
  // is played from here, its token asked for again if this tab lacks it.
  const me = identity();
  const ownSeat = (): number => (me ? match.seats.findIndex((seat) => seat.joined && seat.playerId === me.playerId) : -1);
  const playing = asked || ownSeat() >= 0;
  if (playing && !asked) history.replaceState(null, "", `#/play/${encodeURIComponent(matchId)}`);
  let held: SeatHeld | null = playing ? heldSeat(matchId) : null;
  let recovering: string | null = null;
  if (ownSeat() >= 0 && held?.seat !== ownSeat() && match.status !== MatchStatus.FINISHED) {
    try {
      const seat = ownSeat();
      const joined = await asPlayer((options) => matches.joinMatch({ matchId, seat }, options));
      held = { seat: joined.seat, token: joined.seatToken };
      holdSeat(matchId, held);
    } catch (error) {
      recovering = describeError("take your seat back", error);
    }
  }
  /** The viewer's seat: the signed-in player's; without an identity (or
   * on a server without them) the one this tab holds a token for. */
  const mySeat = (): number | null => {
    const own = ownSeat();
    if (own >= 0) return own;
    if (held === null) return null;
    const player = match.seats[held.seat]?.playerId ?? "";
    return me === null || player === "" ? held.seat : null;
  };
  /** The tab's token, while it is the viewer's seat's (not an earlier
   * player's of this browser, nor one the owner took back). */
  const dropStaleToken = (): void => {
    if (held !== null && held.seat !== mySeat()) held = null;
  };
  dropStaleToken();
  if (!current()) return () => undefined;
  const info = gameInfo(match.config!.kind);
  const board = newBoard(view);
  const clocks = new Clocks();
  clocks.setMatch(match);

  // The viewer's turn: legal actions for record + planned, and a hint.
  let planned: ActionInfo[] = [];
  let legal: ListLegalActionsResponse | null = null;
  let legalPly = -1;
  let loadingPly = -1;
  let hint: { action: Action; text: string } | null = null;
  const narrate = narrator(); // the move log's words (notation.ts)
  let busy = false;
  let generation = 0;
  // The last action played, for the board's mark and Othello's pass.
  let last: LastAction | null = null;
  const openedAt = view.ply;
  let card: ResultCard | null = null;
  let beepedPly = -1;

  // The game leads; the match id is secondary (the same accessible name).
  const heading = el("h2", { tabindex: -1 }, info.name, el("span", { class: "match-id" }, ` · match ${matchId}`));
  const status = el("p", { class: "match-status", "aria-live": "polite" });
  const connection = el("p", { class: "connection" });
  const invite = el("div", { class: "invite" });
  const seats = el("ul", { class: "seats", "aria-label": "Players" });
  const turnPanel = el("section", { class: "turn", "aria-label": "Your turn" });
  const endBox = el("div", { class: "end" });
  // It scrolls once it is long: a tab stop of its own, so keys scroll it too.
  const log = el("ol", { class: "log", reversed: true, tabindex: 0, "aria-label": "Moves" });
  const speed = select(
    "playback",
    [
      ["1", "real time"],
      ["4", "fast (4x)"],
      ["0", "off"],
    ],
    localStorage.getItem(PLAYBACK_KEY) ?? "1",
  );
  speed.addEventListener("change", () => localStorage.setItem(PLAYBACK_KEY, speed.value));
  const hintLevel = select(
    "hint-level",
    BOT_LEVELS.filter((level) => level !== "random").map((level) => [level, level] as const),
    "medium",
  );
  replace(
    root,
    heading,
    status,
    connection,
    invite,
    seats,
    el("div", { class: "play-area" }, board.element, turnPanel, endBox),
    board.playBack && field("Flick playback", speed),
    playing && el("div", { class: "sound" }, soundToggle()),
    el("section", { class: "moves" }, el("h3", {}, "Moves"), log),
  );
  heading.focus();
  if (recovering) alertError(recovering);

  const myTurn = (): boolean =>
    held !== null &&
    held.seat === mySeat() &&
    match.status === MatchStatus.PLAYING &&
    view.phase === GamePhase.SEAT_TO_ACT &&
    view.seatToAct === held.seat;
  const name = (seat: number): string => seatLook(view, seat).name;

  /** Takes a newer description of the match; an older one (by ply, then
   * status) is ignored, so a late answer cannot undo the end. */
  function acceptMatch(next: Match | undefined): boolean {
    if (!next || behind(progress(next), [Math.max(view.ply, match.view?.ply ?? 0), match.status])) return false;
    match = next;
    clocks.setMatch(match);
    return true;
  }

  function recordWith(actions: readonly Action[]): GameRecord {
    return create(GameRecordSchema, {
      config: record!.config,
      history: [...record!.history, ...actions],
      rulesVersion: record!.rulesVersion,
    });
  }
  const plannedActions = (): Action[] => planned.map((step) => step.action!);

  // --- drawing -----------------------------------------------------------------

  function drawSeats(): void {
    const items = match.seats.map((seat, index) => {
      const look = seatLook(view, index);
      const reserved = seat.playerId === "" ? "" : me?.playerId === seat.playerId ? ", reserved for you" : ", reserved";
      const who =
        mySeat() === index
          ? "you"
          : seat.kind === SeatKind.BOT
            ? `bot: ${seat.botSpec}`
            : seat.joined
              ? seat.displayName || "player"
              : `open seat${reserved}`;
      const toAct = view.phase === GamePhase.SEAT_TO_ACT && view.seatToAct === index;
      return el(
        "li",
        { class: toAct ? "to-act" : "" },
        el("span", { class: `badge ${look.style}`, "aria-hidden": "true" }, look.symbol),
        el("span", { class: "seat-name" }, `${look.name} (${who})`),
        el("span", { class: "score" }, `score ${view.scores[index] ?? 0}`),
        el("span", { class: "clock", "data-seat": index }),
        toAct ? el("span", { class: "to-act-mark" }, "to play") : "",
      );
    });
    replace(seats, ...items);
    tickClocks();
  }

  function tickClocks(): void {
    for (const clock of seats.querySelectorAll<HTMLElement>(".clock")) {
      const seat = Number(clock.dataset.seat);
      const left = clocks.remaining(seat);
      clock.textContent = left === null ? "no clock" : `clock ${formatClock(left)}${clocks.isRunning(seat) ? " running" : ""}`;
    }
  }

  function drawStatus(): void {
    let text: string;
    if (match.status === MatchStatus.WAITING) {
      const open = match.seats.filter((seat) => seat.kind === SeatKind.HUMAN && !seat.joined).length;
      text = `Waiting for ${open} more player${open === 1 ? "" : "s"} to join.`;
    } else if (match.status === MatchStatus.FINISHED) {
      text = result(match.ended);
    } else if (view.phase === GamePhase.CHANCE) {
      text = "The dice are rolling.";
    } else if (myTurn()) {
      text = `Your turn (${name(held!.seat)}).`;
    } else {
      text = `${name(view.seatToAct ?? 0)} to play.`;
    }
    const passed = passNote();
    if (passed && match.status === MatchStatus.PLAYING) text = `${passed} ${text}`;
    replace(status, text);
    drawTitle();
    drawEnd();
    const open = match.status === MatchStatus.WAITING;
    const link = `${location.origin}/#/join/${matchId}`;
    const linkInput = el("input", { type: "text", readonly: true, value: link, name: "invite-link" });
    replace(
      invite,
      open && field("Invite others with this link", linkInput),
      open && button("Copy link", () => void navigator.clipboard?.writeText(link)),
      playing && !held && hasOpenSeat() && button("Take a free seat", () => void join()),
      playing && !held && el("p", {}, "You hold no seat in this match: you are watching it."),
      match.status === MatchStatus.FINISHED && el("a", { href: `#/replay/${encodeURIComponent(matchId)}` }, "Replay this match"),
    );
  }

  /** "Black has no move and passes.", while the last action is a pass. */
  function passNote(): string | null {
    if (!last || !isPass(last.action) || last.ply + 1 !== view.ply) return null;
    const seat = last.seat ?? (view.seatToAct === undefined ? undefined : 1 - view.seatToAct);
    return seat === undefined ? null : `${name(seat)} has no move and passes.`;
  }

  function drawTitle(): void {
    if (match.status === MatchStatus.FINISHED) setTitle(`${info.name} — game over`);
    else if (match.status === MatchStatus.WAITING) setTitle(`${info.name} — waiting for players`);
    else if (myTurn()) setTitle(`Your turn — ${info.name}`);
    else if (view.phase === GamePhase.CHANCE) setTitle(`${info.name} — dice rolling`);
    else setTitle(`${info.name} — ${name(view.seatToAct ?? 0)} to play`);
    if (myTurn() && beepedPly !== view.ply) {
      beepedPly = view.ply;
      turnBeep();
    }
  }

  /** The result card, once the match is over (drawn once). */
  function drawEnd(): void {
    if (match.status !== MatchStatus.FINISHED) {
      card?.stop();
      card = null;
      replace(endBox);
      return;
    }
    if (card) return;
    const lost = document.activeElement === document.body || turnPanel.contains(document.activeElement);
    card = resultCard(match, mySeat(), who);
    replace(endBox, card.element);
    if (lost) card.element.querySelector<HTMLElement>("h3")?.focus();
  }

  /** A seat's name, with "(you)" for the viewer's. */
  const who = (seat: number): string => (mySeat() === seat ? `${name(seat)} (you)` : name(seat));

  const result = (ended: MatchEnded | undefined): string => resultText(ended, who);

  function drawTurn(): void {
    const mine = myTurn() && legal !== null && !busy;
    const turn: Turn | null = mine
      ? { legal: legal!, planned, hint: hint?.action ?? null, choose: (action) => void choose(action) }
      : null;
    board.markLast?.(last && last.ply + 1 === view.ply ? last : null);
    board.show(mine && legal!.view ? legal!.view : view, turn);
    if (!held || match.status !== MatchStatus.PLAYING) {
      replace(turnPanel);
      return;
    }
    const moves = legal?.actions ?? [];
    const choice = select(
      "legal-move",
      moves.map((move, index) => [String(index), move.notation] as const),
    );
    const resign = button("Resign", () => {
      replace(
        resignBox,
        el("span", {}, "Resign this match?"),
        button("Yes, resign", () => void resignMatch()),
        button("No, keep playing", () => replace(resignBox, resign)),
      );
    });
    const resignBox = el("div", { class: "resign" }, resign);
    replace(
      turnPanel,
      el("h3", {}, busy ? "Playing…" : mine ? "Your turn" : "Waiting for the others"),
      planned.length > 0 &&
        el(
          "p",
          { class: "planned" },
          `Planned, not yet sent: ${planned.map((step) => step.notation).join("; ")}. `,
          button("Undo last", () => void undo()),
        ),
      mine &&
        info.listsMoves &&
        moves.length > 0 &&
        el(
          "div",
          { class: "legal-moves" },
          field("Legal moves", choice),
          button("Play", () => void choose(moves[Number(choice.value)]!.action!)),
        ),
      mine &&
        el(
          "div",
          { class: "hint" },
          field("Hint from bot", hintLevel),
          button("Hint", () => void suggest()),
          hint && el("p", { class: "hint-text" }, hint.text),
        ),
      resignBox,
    );
  }

  function draw(): void {
    drawStatus();
    drawSeats();
    drawTurn();
  }

  function logEvent(event: WatchMatchResponse): void {
    if (event.event.case !== "action") return;
    const played = event.event.value;
    if (log.querySelector(`li[value="${event.ply + 1}"]`)) return; // seen (a resumed stream)
    const who = played.seat === undefined ? "chance" : name(played.seat);
    log.prepend(el("li", { value: event.ply + 1 }, `${who}: ${narrate(event, view, name)}`));
    while (log.children.length > LOG_LENGTH) log.lastElementChild!.remove();
  }

  // --- the match as it changes ---------------------------------------------------

  function setView(next: GameView): void {
    if (next.ply < view.ply) return;
    if (next.ply !== view.ply) {
      planned = [];
      legal = null;
      hint = null;
    }
    view = next;
    draw();
    void loadTurn();
  }

  async function refreshMatch(): Promise<void> {
    const got = await matches.getMatch({ matchId });
    if (!acceptMatch(got.match)) return;
    record = got.record ?? null;
    dropStaleToken();
    setView(match.view!);
  }

  /** Notes the action played at `ply` as the last one. */
  function noteLast(ply: number, seat: number | undefined, played: ActionInfo | undefined): void {
    if (!played?.action || (last && last.ply >= ply)) return;
    const sameTurn = last !== null && last.ply + 1 === ply && last.seat === seat && seat !== undefined;
    last = {
      ply,
      seat,
      action: played.action,
      notation: played.notation,
      turn: sameTurn ? [...last!.turn, played.action] : [played.action],
    };
  }

  /** Whether an event gives the viewer the turn. */
  function givesMeTheTurn(event: WatchMatchResponse): boolean {
    const next = event.view;
    return (
      event.event.case === "action" &&
      held !== null &&
      held.seat === mySeat() &&
      next?.phase === GamePhase.SEAT_TO_ACT &&
      next.seatToAct === held.seat
    );
  }

  const queue = new EventQueue<WatchMatchResponse>(
    {
      // Bot actions (and the dice) played since the page opened.
      paced(event) {
        if (event.event.case !== "action" || event.ply < openedAt) return false;
        // A match of bots only is paced by the server (CreateMatch's bot_pace).
        if (!match.seats.some((seat) => seat.kind === SeatKind.HUMAN)) return false;
        if (!event.view || event.view.ply <= view.ply) return false;
        const seat = event.event.value.seat;
        if (event.event.value.flick && board.playBack && Number(speed.value) > 0) return false; // its playback paces it
        return seat === undefined || match.seats[seat]?.kind === SeatKind.BOT;
      },
      viewersTurn: givesMeTheTurn,
      apply: applyEvent,
    },
    stop.signal,
  );
  // The player reaching for the board sees the true state at once.
  board.element.addEventListener("pointerdown", () => queue.flush());
  board.element.addEventListener("keydown", () => queue.flush());

  async function onEvent(event: WatchMatchResponse): Promise<void> {
    queue.push(event);
  }

  async function applyEvent(event: WatchMatchResponse, hurried: boolean): Promise<void> {
    const shown = event.view;
    switch (event.event.case) {
      case "snapshot":
        if (!acceptMatch(event.event.value)) return;
        if (shown && shown.ply <= view.ply) setView(shown);
        else draw();
        return;
      case "action": {
        logEvent(event);
        const played = event.event.value;
        const fresh = shown !== undefined && shown.ply > view.ply;
        if (played.flick && board.playBack && fresh && !hurried) {
          await board.playBack(played.flick, Number(speed.value), stop.signal);
        }
        noteLast(event.ply, played.seat, played.action);
        if (event.ply < openedAt) {
          drawStatus();
          drawTurn(); // the mark of what was played before the page opened
          return;
        }
        if (played.seat !== undefined) clocks.stop(played.seat);
        if (shown) setView(shown);
        if (!fresh) {
          drawStatus();
          drawTurn();
        }
        if (played.seat !== undefined && played.seat !== mySeat()) {
          announce(
            isPass(played.action?.action)
              ? `${name(played.seat)} has no move and passes.`
              : `${name(played.seat)} played ${actionText(played.action)}`,
          );
        }
        return;
      }
      case "clock":
        clocks.start(event.event.value);
        tickClocks();
        return;
      case "seatJoined":
      case "started":
        await refreshMatch();
        return;
      case "ended":
        match.status = MatchStatus.FINISHED;
        match.ended = event.event.value;
        if (shown && shown.ply >= view.ply) match.view = shown;
        clocks.stopAll();
        if (shown) setView(shown);
        draw();
        announce(result(match.ended));
        if (mySeat() !== null) noteMatchEnded(matchId);
        return;
    }
  }

  // --- the viewer's turn -----------------------------------------------------------

  async function loadTurn(): Promise<void> {
    if (!myTurn() || legalPly === view.ply || loadingPly === view.ply) return;
    const ply = view.ply;
    const mine = ++generation;
    loadingPly = ply;
    try {
      if (!record || record.history.length !== ply) {
        record = (await matches.getMatch({ matchId })).record ?? null;
        if (!record || record.history.length !== ply) return; // the stream will catch up
      }
      const found = await rules.listLegalActions({ record: recordWith([]) });
      if (mine !== generation || view.ply !== ply) return;
      legal = found;
      legalPly = ply;
      drawTurn();
    } catch (error) {
      alertError(describeError("load your legal moves", error));
    } finally {
      if (loadingPly === ply) loadingPly = -1;
    }
  }

  async function choose(action: Action): Promise<void> {
    if (busy || !held || !legal) return;
    busy = true;
    alertError(null);
    drawTurn();
    try {
      if (!info.plansTurns) {
        await submit([action]);
        return;
      }
      const next = await rules.listLegalActions({ record: recordWith([...plannedActions(), action]) });
      const stillMine = next.view?.phase === GamePhase.SEAT_TO_ACT && next.view.seatToAct === held.seat;
      if (!stillMine) {
        await submit([...plannedActions(), action]);
        return;
      }
      const notation = legal.actions.find((move) => sameAction(move.action, action))?.notation;
      planned = [...planned, { action, notation: notation ?? "?" } as ActionInfo];
      legal = next;
      hint = null;
      generation++;
      drawTurn();
    } catch (error) {
      alertError(describeError("play that", error));
      busy = false;
      await reloadTurn();
    } finally {
      busy = false;
      drawTurn();
    }
  }

  async function submit(actions: Action[]): Promise<void> {
    const response = await matches.submitAction(
      { matchId, expectedPly: record!.history.length, actions },
      await withPlayer(asSeat(held!.token)),
    );
    announce(`You played ${response.applied.map((applied) => actionText(applied)).join(", ")}`);
    record = null;
    // An answer arriving after the stream moved on (the end) changes nothing.
    if (!acceptMatch(response.match)) return;
    // Volta waits for its flick to come back on the stream, to play it back.
    if (!board.playBack) setView(response.match!.view!);
  }

  async function reloadTurn(): Promise<void> {
    planned = [];
    legal = null;
    legalPly = -1;
    hint = null;
    record = null;
    draw();
    await loadTurn();
  }

  async function undo(): Promise<void> {
    if (busy || planned.length === 0) return;
    busy = true;
    drawTurn();
    try {
      const kept = planned.slice(0, -1);
      legal = await rules.listLegalActions({ record: recordWith(kept.map((step) => step.action!)) });
      planned = kept;
      hint = null;
    } catch (error) {
      alertError(describeError("undo", error));
    } finally {
      busy = false;
      drawTurn();
    }
  }

  async function suggest(): Promise<void> {
    if (!record) return;
    const level = hintLevel.value;
    hint = null;
    drawTurn();
    try {
      const got = await ai.suggestAction({
        record: recordWith(plannedActions()),
        botSpec: level,
        seed: BigInt(view.ply),
      }, { timeoutMs: HINT_TIMEOUT_MS });
      hint = {
        action: got.action!.action!,
        text: `Hint (${level}): ${actionText(got.action)} (thought for ${got.thinkSeconds.toFixed(2)} s)`,
      };
      drawTurn();
      announce(hint.text);
    } catch (error) {
      alertError(describeError("get a hint", error));
    }
  }

  async function resignMatch(): Promise<void> {
    try {
      const response = await matches.resign({ matchId }, await withPlayer(asSeat(held!.token)));
      if (acceptMatch(response.match)) clocks.stopAll();
      draw();
    } catch (error) {
      alertError(describeError("resign", error));
    }
  }

  function hasOpenSeat(): boolean {
    return match.status === MatchStatus.WAITING && match.seats.some((seat) => seat.kind === SeatKind.HUMAN && !seat.joined);
  }

  async function join(): Promise<void> {
    if (identity() === null) {
      location.hash = `#/join/${encodeURIComponent(matchId)}`; // signs in first
      return;
    }
    try {
      const joined = await asPlayer((options) => matches.joinMatch({ matchId }, options));
      held = { seat: joined.seat, token: joined.seatToken };
      holdSeat(matchId, held);
      await refreshMatch();
    } catch (error) {
      alertError(describeError("join", error));
    }
  }

  // --- running -------------------------------------------------------------------

  if (myTurn()) beepedPly = view.ply; // no beep for the turn the page opened on
  draw();
  void loadTurn();
  const ticker = setInterval(tickClocks, 200);
  void follow(
    matchId,
    Math.max(0, view.ply - HISTORY_PLIES),
    {
      onEvent,
      onConnection(live, message) {
        connection.className = `connection ${live ? "live" : "lost"}`;
        replace(connection, `Connection: ${message}`);
      },
      onStop(_code, message) {
        replace(connection, `Connection: stopped. ${message}`);
        void refreshMatch().catch(() => undefined);
      },
    },
    stop.signal,
  );
  return () => {
    stop.abort();
    clearInterval(ticker);
    card?.stop();
    resetTitle();
  };
}
