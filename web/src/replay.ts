// A finished match's replay: its every position, stepped through with First,
// Previous, Next and Last (or the Left and Right arrow keys), drawn by the
// board the match was played on. The positions come from WatchMatch from
// ply 0 (each ActionPlayed with its view; from the archive once the match's
// live copy expired), the start from RulesService on the empty record. The
// match downloads from ArchiveService.ExportMatch.
import { create } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { archive, matches, rules } from "./api";
import { alertError, announce, button, el, replace } from "./dom";
import { describeError, errorCode } from "./errors";
import { gameInfo, seatLook } from "./games";
import { narrator } from "./notation";
import { ExportFormat } from "./gen/meeple/v1/archive_service_pb";
import { type FlickOutcome, GameKind, GameRecordSchema, type GameView } from "./gen/meeple/v1/game_pb";
import { type GetMatchResponse, type Match, MatchStatus, SeatKind } from "./gen/meeple/v1/match_service_pb";
import { identity } from "./identity";
import type { LastAction } from "./boards/board";
import { resetTitle, setTitle } from "./title";
import { newBoard, resultText } from "./view";

const PLAYBACK_KEY = "meeple:playback";

/** One position of the replay: the start, or the one after a move. */
interface Position {
  readonly view: GameView;
  /** "Black: d3"; empty for the start. */
  readonly move: string;
  /** Volta: the flick that led here, to play back. */
  readonly flick?: FlickOutcome | undefined;
  /** The action that led here, for the board to mark. */
  readonly last?: LastAction | undefined;
}

/** The match's positions from its start, read from WatchMatch. */
async function positions(match: Match, first: GetMatchResponse, signal: AbortSignal): Promise<Position[]> {
  const record = first.record!;
  const start = rules.listLegalActions(
    { record: create(GameRecordSchema, { config: record.config, history: [], rulesVersion: record.rulesVersion }) },
    { signal },
  );
  const name = (view: GameView | undefined, seat: number | undefined): string =>
    seat === undefined ? "chance" : seatLook(view ?? match.view, seat).name;
  const moves: Position[] = [];
  const narrate = narrator(); // the moves' words (notation.ts)
  for (let attempt = 0; ; attempt++) {
    moves.length = 0;
    try {
      // A finished match's stream ends with its MatchEnded.
      const events = matches.watchMatch({ matchId: match.matchId, fromPly: 0 }, { signal, timeoutMs: 0 });
      for await (const event of events) {
        if (event.event.case === "action" && event.view && event.ply === moves.length) {
          const played = event.event.value;
          const move = `${name(event.view, played.seat)}: ${narrate(event, undefined, (seat) => name(event.view, seat))}`;
          const before = moves[moves.length - 1]?.last;
          const sameTurn = before !== undefined && played.seat !== undefined && before.seat === played.seat;
          const last: LastAction | undefined = played.action?.action && {
            ply: event.ply,
            seat: played.seat,
            action: played.action.action,
            notation: played.action.notation,
            turn: sameTurn ? [...before.turn, played.action.action] : [played.action.action],
          };
          moves.push({ view: event.view, move, flick: played.flick, last });
        }
        if (event.event.case === "ended") break;
      }
      break;
    } catch (error) {
      // Its live copy expired meanwhile: the archive has it now.
      if (attempt > 0 || errorCode(error) !== Code.NotFound) throw error;
    }
  }
  const initial = (await start).view;
  if (!initial) throw new Error("the server sent no starting position");
  return [{ view: initial, move: "" }, ...moves];
}

/** Saves a text as a file, as the browser saves downloads. */
function save(content: string, mediaType: string, fileName: string): void {
  const url = URL.createObjectURL(new Blob([content], { type: mediaType || "application/octet-stream" }));
  const link = el("a", { href: url, download: fileName, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}

/** Shows the replay of finished match `matchId` in `root` (`first`: its
 * GetMatch, when already read); returns what stops it. */
export async function showReplay(
  root: HTMLElement,
  matchId: string,
  current: () => boolean,
  first?: GetMatchResponse,
): Promise<() => void> {
  const stop = new AbortController();
  const got = first ?? (await matches.getMatch({ matchId }));
  const match = got.match!;
  if (match.status !== MatchStatus.FINISHED) {
    // Not over yet: it is watched (or played) instead.
    if (current()) location.replace(`#/watch/${encodeURIComponent(matchId)}`);
    return () => undefined;
  }
  const steps = await positions(match, got, stop.signal);
  if (!current()) return () => undefined;
  const info = gameInfo(match.config!.kind);
  const last = steps.length - 1;
  let at = last;
  const me = identity()?.playerId ?? null;
  const mine = (seat: number): boolean => me !== null && match.seats[seat]?.kind === SeatKind.HUMAN && match.seats[seat]?.playerId === me;
  const who = (seat: number): string => `${seatLook(match.view, seat).name}${mine(seat) ? " (you)" : ""}`;

  const board = newBoard(steps[0]!.view);
  const heading = el(
    "h2",
    { tabindex: -1 },
    info.name,
    el("span", { class: "match-id" }, ` · match ${matchId}`),
    " · replay",
  );
  const status = el("p", { class: "match-status" }, resultText(match.ended, who));
  const seats = el("ul", { class: "seats", "aria-label": "Players" });
  const where = el("p", { class: "replay-position", "aria-live": "polite" });
  const firstButton = button("First", () => go(0));
  const previous = button("Previous", () => go(at - 1));
  const next = button("Next", () => go(at + 1, true));
  const lastButton = button("Last", () => go(last));
  const log = el("ol", { class: "log replay-moves", "aria-label": "Moves" });
  steps.slice(1).forEach((step, index) => {
    log.append(el("li", {}, button(step.move, () => go(index + 1))));
  });
  const downloads = el(
    "div",
    { class: "row downloads" },
    button("Download JSON", () => void download(ExportFormat.MATCH_JSON, "JSON")),
    info.kind === GameKind.OTHELLO && button("Download GGF", () => void download(ExportFormat.GGF, "GGF")),
  );
  const controls = el(
    "section",
    { class: "replay-controls", "aria-label": "Replay" },
    el("h3", {}, "Replay"),
    where,
    el("div", { class: "row" }, firstButton, previous, next, lastButton),
    el("p", { class: "keys" }, "The Left and Right arrow keys step too."),
    downloads,
  );
  replace(
    root,
    heading,
    status,
    seats,
    el("div", { class: "play-area replay" }, board.element, controls),
    el("section", { class: "moves" }, el("h3", {}, "Moves"), log),
    el("p", {}, el("a", { href: "#/" }, "Back to the start")),
  );
  heading.focus();

  let playing: AbortController | null = null;

  function draw(): void {
    const step = steps[at]!;
    board.markLast?.(step.last ?? null);
    board.show(step.view, null);
    replace(
      where,
      `Move ${at} of ${last}`,
      at === 0 ? ": the start" : `: ${step.move}`,
    );
    firstButton.disabled = previous.disabled = at === 0;
    next.disabled = lastButton.disabled = at === last;
    const items = match.seats.map((seat, index) => {
      const look = seatLook(step.view, index);
      const player = mine(index) ? "you" : seat.kind === SeatKind.BOT ? `bot: ${seat.botSpec}` : seat.displayName || "player";
      return el(
        "li",
        {},
        el("span", { class: `badge ${look.style}`, "aria-hidden": "true" }, look.symbol),
        el("span", { class: "seat-name" }, `${look.name} (${player})`),
        el("span", { class: "score" }, `score ${step.view.scores[index] ?? 0}`),
      );
    });
    replace(seats, ...items);
    log.querySelectorAll("button").forEach((move, index) => {
      if (index + 1 === at) move.setAttribute("aria-current", "step");
      else move.removeAttribute("aria-current");
    });
  }

  /** Shows position `index`; one step forward plays a flick back (Volta). */
  function go(index: number, stepping = false): void {
    if (index < 0 || index > last || index === at) return;
    playing?.abort();
    playing = null;
    const flick = steps[index]!.flick;
    const speed = Number(localStorage.getItem(PLAYBACK_KEY) ?? "1");
    at = index;
    if (stepping && flick && board.playBack && speed > 0) {
      const playback = new AbortController();
      playing = playback;
      board.markLast?.(steps[index - 1]!.last ?? null);
      board.show(steps[index - 1]!.view, null);
      void board.playBack(flick, speed, AbortSignal.any([playback.signal, stop.signal])).then(() => {
        if (playing === playback) draw();
      });
      replace(where, `Move ${at} of ${last}: ${steps[at]!.move}`);
      return;
    }
    draw();
  }

  async function download(format: ExportFormat, label: string): Promise<void> {
    alertError(null);
    try {
      const file = await archive.exportMatch({ matchId, format });
      save(file.content, file.mediaType, file.fileName);
      announce(`Saved ${file.fileName}.`);
    } catch (error) {
      alertError(describeError(`download the match as ${label}`, error));
    }
  }

  const onKey = (event: KeyboardEvent): void => {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const target = event.target as HTMLElement | null;
    // The board and form controls use the arrow keys themselves.
    if (target?.closest(".board, input, select, textarea")) return;
    if (event.key === "ArrowLeft") go(at - 1);
    else if (event.key === "ArrowRight") go(at + 1, true);
    else return;
    event.preventDefault();
  };
  document.addEventListener("keydown", onKey);
  setTitle(`${info.name} — replay`);
  draw();
  return () => {
    resetTitle();
    stop.abort();
    playing?.abort();
    document.removeEventListener("keydown", onKey);
  };
}
