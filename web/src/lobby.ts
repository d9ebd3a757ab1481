// The home page's other two parts: joining a match by its id or link, and
// the live matches to watch (MatchService.ListMatches, newest first, paged).
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

/** "Othello for 2: Ada (you) and bots random; 4 moves played". */
function describeMatch(match: Match, me: string | null): string {
  const config = match.config!;
  const bots = match.seats.filter((seat) => seat.kind === SeatKind.BOT).map((seat) => seat.botSpec);
  const people = match.seats
    .filter((seat) => seat.kind === SeatKind.HUMAN)
    .map((seat) => {
      if (!seat.joined) return "an open seat";
      const name = seat.displayName || "a player";
      return me !== null && seat.playerId === me ? `${name} (you)` : name;
    });
  const players = bots.length > 0 ? [...people, `bots ${bots.join(", ")}`] : people;
  const listed = players.length > 1 ? `${players.slice(0, -1).join(", ")} and ${players.at(-1)}` : (players[0] ?? "");
  return `${gameInfo(config.kind).name} for ${seatCount(config)}: ${listed}; ${match.view?.ply ?? 0} moves played`;
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

  async function load(pageToken: string): Promise<void> {
    try {
      const page = await matches.listMatches({ kind: Number(filter.value) as GameKind, pageSize: PAGE_SIZE, pageToken });
      if (!pageToken) replace(list);
      const me = identity()?.playerId ?? null;
      for (const match of page.matches) {
        const text = describeMatch(match, me);
        // One's own match opens to play it (from any tab or device).
        const mine = me !== null && match.seats.some((seat) => seat.joined && seat.playerId === me);
        const verb = mine ? "Play" : "Watch";
        list.append(
          el(
            "li",
            {},
            el("span", {}, text),
            " ",
            el("a", { href: `#/${verb.toLowerCase()}/${match.matchId}`, "aria-label": `${verb} ${text}` }, verb),
          ),
        );
      }
      if (list.children.length === 0) list.append(el("li", {}, "No match is being played right now."));
      replace(more, page.nextPageToken && button("More matches", () => void load(page.nextPageToken)));
    } catch (error) {
      alertError(describeError("list the live matches", error));
    }
  }
  filter.addEventListener("change", () => void load(""));
  void load("");
  return section;
}
