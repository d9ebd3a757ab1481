// The home page's other two parts: joining a match by its id or link, and
// the live matches to watch (MatchService.ListMatches, newest first, paged),
// each headed by its game and players, then its moves, how long it has been
// played and its id in smaller text.
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { matches } from "./api";
import { alertError, button, el, field, replace, select } from "./dom";
import { describeError } from "./errors";
import { GAMES, gameInfo, seatCount } from "./games";
import { GameKind } from "./gen/meeple/v1/game_pb";
import { type Match, SeatKind } from "./gen/meeple/v1/match_service_pb";
import { identity } from "./identity";

const PAGE_SIZE = 10;

/** The match id in an id or a link to the page (…#/join/ID, #/play/ID, #/watch/ID, #/replay/ID). */
export function matchIdOf(text: string): string {
  const trimmed = text.trim();
  const found = /#\/(?:join|play|watch|replay)\/([^/?#\s]+)/.exec(trimmed);
  return found ? decodeURIComponent(found[1]!) : trimmed;
}

export function joinForm(): HTMLFormElement {
  const input = el("input", { type: "text", name: "match", required: true, autocomplete: "off" });
  const watch = button("Watch", () => {
    const matchId = matchIdOf(input.value);
    if (matchId) location.hash = `#/watch/${encodeURIComponent(matchId)}`;
  });
  const form = el(
    "form",
    { class: "join", "aria-labelledby": "join-heading" },
    el("h2", { id: "join-heading" }, "Join a match"),
    field("Match id or invitation link", input),
    el("button", { type: "submit" }, "Join"),
    watch,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const matchId = matchIdOf(input.value);
    if (matchId) location.hash = `#/join/${encodeURIComponent(matchId)}`;
  });
  return form;
}

/** "12 moves", "1 move". */
export function movesText(plies: number): string {
  return `${plies} move${plies === 1 ? "" : "s"}`;
}

/** How long a match has been played: "under a minute", "3 min", "1 h 5 min". */
export function playingFor(startMs: number, nowMs: number = Date.now()): string {
  const minutes = Math.floor(Math.max(0, nowMs - startMs) / 60_000);
  if (minutes < 1) return "under a minute";
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ""}`;
}

/** "Ada (you) and Bob", "Ada and bot easy", "bots random, random". */
function playersOf(match: Match, me: string | null): string {
  const bots = match.seats.filter((seat) => seat.kind === SeatKind.BOT).map((seat) => seat.botSpec);
  const people = match.seats
    .filter((seat) => seat.kind === SeatKind.HUMAN)
    .map((seat) => {
      if (!seat.joined) return "an open seat";
      const name = seat.displayName || "a player";
      return me !== null && seat.playerId === me ? `${name} (you)` : name;
    });
  const botText = bots.length === 1 ? `bot ${bots[0]}` : `bots ${bots.join(", ")}`;
  const players = bots.length > 0 ? [...people, botText] : people;
  return players.length > 1 ? `${players.slice(0, -1).join(", ")} and ${players.at(-1)}` : (players[0] ?? "");
}

/** When play began, in ms since the epoch, if the server says. */
function startedAt(match: Match): number | null {
  return match.startTime ? timestampMs(match.startTime) : null;
}

/** One live match: the game and players as its headline, then the moves,
 * how long it has been played and its id, smaller. */
function entry(match: Match, me: string | null): HTMLLIElement {
  const config = match.config!;
  const game = gameInfo(config.kind).name;
  const players = playersOf(match, me);
  const moves = movesText(match.view?.ply ?? 0);
  const started = startedAt(match);
  const duration = started === null ? null : playingFor(started);
  // One's own match opens to play it (from any tab or device).
  const mine = me !== null && match.seats.some((seat) => seat.joined && seat.playerId === me);
  const verb = mine ? "Play" : "Watch";
  const label = `${verb} ${game} for ${seatCount(config)}: ${players}; ${moves} played${duration ? `, for ${duration}` : ""}`;
  return el(
    "li",
    { class: "live-entry", "data-match": match.matchId },
    el("div", { class: "live-headline" }, el("strong", { class: "live-game" }, game), " ", el("span", { class: "live-players" }, players)),
    el(
      "div",
      { class: "live-meta secondary" },
      el("span", { class: "live-moves" }, moves),
      duration && el("span", { class: "live-time" }, duration),
      el("span", { class: "match-id" }, `match ${match.matchId}`),
    ),
    el("a", { class: "live-link", href: `#/${verb.toLowerCase()}/${encodeURIComponent(match.matchId)}`, "aria-label": label }, verb),
  );
}

export function liveMatches(): HTMLElement {
  const filter = select("game-filter", [["0", "all games"], ...GAMES.map((info) => [String(info.kind), info.name] as const)], "0");
  const list = el("ul", { class: "live-list" });
  const more = el("div", {});
  const section = el(
    "section",
    { class: "live", "aria-labelledby": "live-heading" },
    el("h2", { id: "live-heading" }, "Live matches"),
    el("div", { class: "row" }, field("Show", filter), button("Refresh", () => void load(""))),
    list,
    more,
  );

  let loading = 0;
  async function load(pageToken: string): Promise<void> {
    const mine = ++loading;
    try {
      const page = await matches.listMatches({ kind: Number(filter.value) as GameKind, pageSize: PAGE_SIZE, pageToken });
      if (mine !== loading) return;
      if (!pageToken) replace(list);
      const me = identity()?.playerId ?? null;
      for (const match of page.matches) list.append(entry(match, me));
      if (list.children.length === 0) list.append(el("li", {}, "No match is being played right now."));
      replace(more, page.nextPageToken && button("More matches", () => void load(page.nextPageToken)));
    } catch (error) {
      if (mine !== loading) return;
      alertError(describeError("list the live matches", error));
    }
  }
  filter.addEventListener("change", () => void load(""));
  void load("");
  return section;
}
