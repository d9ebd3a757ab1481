// A game's leaderboard (MatchmakingService.ListLeaderboard, best ordinal
// first, in pages): rank, player, rating (the ordinal, mu - 3 sigma,
// rounded) and rated matches. Each rating carries its player's name in its
// latest rated match (older ratings none: then the player's latest archived
// match names it, when the server keeps an archive); the id stays beside it.
import { archive, matchmaking } from "./api";
import { alertError, button, el, field, replace, select } from "./dom";
import { describeError } from "./errors";
import { GAMES, gameInfo } from "./games";
import { GameKind } from "./gen/meeple/v1/game_pb";
import type { Rating } from "./gen/meeple/v1/matchmaking_service_pb";
import { identity } from "./identity";

const PAGE_SIZE = 10;
/** Display names found, by player id (null: looked for, none found). */
const names = new Map<string, Promise<string | null>>();

function displayName(playerId: string): Promise<string | null> {
  let found = names.get(playerId);
  if (!found) {
    found = archive.listPlayerMatches({ playerId, pageSize: 1 }).then(
      (page) => page.matches[0]?.seats.find((seat) => seat.playerId === playerId)?.displayName || null,
      () => null,
    );
    // Not found yet (no archived match, or no archive): look again next time.
    void found.then((name) => {
      if (name === null) names.delete(playerId);
    });
    names.set(playerId, found);
  }
  return found;
}

function row(rating: Rating, rank: number, me: { playerId: string; displayName: string } | null): HTMLTableRowElement {
  const mine = me !== null && rating.playerId === me.playerId;
  const name = el("span", { class: "player-name" }, mine ? `${me.displayName} (you)` : "");
  const id = el("span", { class: "player-id secondary" }, `id ${rating.playerId}`);
  if (!mine && rating.displayName) {
    replace(name, rating.displayName); // its name in its latest rated match
  } else if (!mine) {
    // A rating stored before ratings kept names: the archive may know it.
    void displayName(rating.playerId).then((found) => {
      if (found) replace(name, found);
    });
  }
  return el(
    "tr",
    mine ? { class: "you", "aria-current": "true" } : {},
    el("td", { class: "rank" }, String(rank)),
    el("td", {}, name, " ", id),
    el("td", { class: "number" }, String(Math.round(rating.ordinal))),
    el("td", { class: "number" }, String(rating.matches)),
  );
}

/** The Leaderboard section, with its game selector. */
export function leaderboard(): HTMLElement {
  const game = select(
    "leaderboard-game",
    GAMES.map((info) => [String(info.kind), info.name] as const),
    String(GameKind.OTHELLO),
  );
  const caption = el("caption", { class: "visually-hidden" });
  const body = el("tbody", {});
  const table = el(
    "table",
    { class: "leaderboard-table", hidden: true },
    caption,
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        el("th", { scope: "col" }, "Rank"),
        el("th", { scope: "col" }, "Player"),
        el("th", { scope: "col", class: "number" }, "Rating"),
        el("th", { scope: "col", class: "number" }, "Matches"),
      ),
    ),
    body,
  );
  const empty = el("p", { class: "leaderboard-empty", hidden: true });
  const more = el("div", {});
  const section = el(
    "section",
    { class: "leaderboard", "aria-labelledby": "leaderboard-heading" },
    el("h2", { id: "leaderboard-heading" }, "Leaderboard"),
    field("Leaderboard for", game),
    table,
    empty,
    more,
  );
  let loading = 0;

  async function load(pageToken: string, offset: number): Promise<void> {
    const kind = Number(game.value) as GameKind;
    const mine = ++loading;
    try {
      const page = await matchmaking.listLeaderboard({ game: kind, pageSize: PAGE_SIZE, pageToken });
      if (mine !== loading) return;
      const me = identity();
      const gameName = gameInfo(kind).name;
      if (!pageToken) replace(body);
      page.ratings.forEach((rating, index) => body.append(row(rating, offset + index + 1, me)));
      replace(caption, `${gameName} leaderboard`);
      const none = body.children.length === 0;
      table.hidden = none;
      empty.hidden = !none;
      replace(empty, none ? `No rated ${gameName} players yet: a matchmade match (Find a match) rates its players.` : "");
      const next = offset + page.ratings.length;
      replace(
        more,
        page.nextPageToken && button("More", () => void load(page.nextPageToken, next), { "aria-label": "More of the leaderboard" }),
      );
    } catch (error) {
      if (mine !== loading) return;
      alertError(describeError("list the leaderboard", error));
    }
  }
  game.addEventListener("change", () => void load("", 0));
  void load("", 0);
  return section;
}
