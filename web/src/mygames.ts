// "My games": the signed-in player's finished matches from the archive
// (ArchiveService.ListPlayerMatches, the latest first, in pages), each with
// a link to its replay. A match of the player that ends (in any tab) is
// looked for again until the archive has it: it writes one a moment later.
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import { archive } from "./api";
import { alertError, button, el, replace } from "./dom";
import { describeError, errorCode } from "./errors";
import { gameInfo } from "./games";
import { MatchOutcome, type MatchSummary } from "./gen/meeple/v1/archive_service_pb";
import { EndReason, SeatKind } from "./gen/meeple/v1/match_service_pb";
import { asPlayer, identity } from "./identity";

const PAGE_SIZE = 10;
/** The player's match that ended last, and when: {matchId, at}. */
const ENDED_KEY = "meeple:ended";
const ENDED_EVENT = "meeple:match-ended";
/** How long a match that ended is looked for in the archive. */
const LOOK_FOR_MS = 60_000;
const RETRY_MS = 300;
const RETRIES = 12;

/** Says that a match of the signed-in player ended (for My games, in this
 * tab and the browser's others). */
export function noteMatchEnded(matchId: string): void {
  localStorage.setItem(ENDED_KEY, JSON.stringify({ matchId, at: Date.now() }));
  window.dispatchEvent(new Event(ENDED_EVENT));
}

/** The match that ended lately, to look for, or null. */
function endedLately(): string | null {
  try {
    const noted = JSON.parse(localStorage.getItem(ENDED_KEY) ?? "null") as { matchId?: unknown; at?: unknown } | null;
    if (typeof noted?.matchId !== "string" || typeof noted.at !== "number") return null;
    return Date.now() - noted.at < LOOK_FOR_MS ? noted.matchId : null;
  } catch {
    return null;
  }
}

const RESULTS: Partial<Record<MatchOutcome, string>> = {
  [MatchOutcome.WIN]: "Win",
  [MatchOutcome.LOSS]: "Loss",
  [MatchOutcome.DRAW]: "Draw",
};

/** "Othello against bot random", "Rolit against Bob, bot easy and bot easy". */
function opponents(match: MatchSummary, me: string): string {
  const others = match.seats
    .filter((seat) => !(seat.kind === SeatKind.HUMAN && seat.playerId === me))
    .map((seat) => (seat.kind === SeatKind.BOT ? `bot ${seat.botSpec}` : seat.displayName || "a player"));
  if (others.length === 0) return "yourself";
  return others.length > 1 ? `${others.slice(0, -1).join(", ")} and ${others.at(-1)}` : others[0]!;
}

/** Why it ended, when not by the rules: "you resigned", "Bob ran out of time". */
function endedBy(match: MatchSummary, me: string): string {
  if (match.reason !== EndReason.RESIGNATION && match.reason !== EndReason.TIMEOUT) return "";
  const seat = match.endSeat === undefined ? undefined : match.seats[match.endSeat];
  const mine = seat?.kind === SeatKind.HUMAN && seat.playerId === me;
  const who = mine ? "you" : seat?.displayName || (seat?.kind === SeatKind.BOT ? `bot ${seat.botSpec}` : "a player");
  return match.reason === EndReason.RESIGNATION ? ` (${who} resigned)` : ` (${who} ran out of time)`;
}

function entry(match: MatchSummary, me: string): HTMLLIElement {
  const result = RESULTS[match.outcome] ?? "Unknown result";
  const game = gameInfo(match.config!.kind).name;
  const ended = match.endTime ? timestampDate(match.endTime) : null;
  const when = ended ? ended.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }) : "";
  const moves = `${match.plies} move${match.plies === 1 ? "" : "s"}`;
  const text = `${result}${endedBy(match, me)}: ${game} against ${opponents(match, me)}, ${moves}`;
  return el(
    "li",
    { "data-match": match.matchId },
    el("strong", { class: `result result-${result.toLowerCase()}` }, result),
    el("span", {}, `${endedBy(match, me)}: ${game} against ${opponents(match, me)}, ${moves}`),
    ended && el("span", { class: "games-when secondary" }, ", ended ", el("time", { datetime: ended.toISOString() }, when)),
    " ",
    el("a", { href: `#/replay/${encodeURIComponent(match.matchId)}`, "aria-label": `Replay ${text}${when ? `, ended ${when}` : ""}` }, "Replay"),
  );
}

/** The My games section, for the signed-in player. */
export function myGames(): HTMLElement {
  const list = el("ul", { class: "games-list" });
  const more = el("div", {});
  const section = el(
    "section",
    { class: "my-games", "aria-labelledby": "my-games-heading" },
    el("h2", { id: "my-games-heading" }, "My games"),
    list,
    more,
  );
  let loading = 0;
  let retries = 0;
  let retry: ReturnType<typeof setTimeout> | undefined;

  async function load(pageToken: string): Promise<void> {
    const me = identity()?.playerId;
    if (!me) return;
    const mine = ++loading;
    try {
      const page = await asPlayer((options) => archive.listPlayerMatches({ pageSize: PAGE_SIZE, pageToken }, options));
      if (mine !== loading || !section.isConnected) return;
      if (!pageToken) replace(list);
      for (const match of page.matches) list.append(entry(match, me));
      if (list.children.length === 0) list.append(el("li", {}, "No finished games yet."));
      replace(more, page.nextPageToken && button("More", () => void load(page.nextPageToken), { "aria-label": "More of my games" }));
      if (!pageToken) lookForEnded(page.matches);
    } catch (error) {
      if (mine !== loading) return;
      if (errorCode(error) === Code.FailedPrecondition) {
        replace(list, el("li", {}, "This server keeps no archive of finished games."));
        replace(more);
        return;
      }
      alertError(describeError("list your games", error));
    }
  }

  /** A match that just ended may not be archived yet: look again soon. */
  function lookForEnded(listed: readonly MatchSummary[]): void {
    clearTimeout(retry);
    const ended = endedLately();
    if (ended === null || listed.some((match) => match.matchId === ended) || retries >= RETRIES) return;
    retries++;
    retry = setTimeout(() => void load(""), RETRY_MS * retries);
  }

  const onEnded = (): void => {
    if (!section.isConnected) {
      window.removeEventListener(ENDED_EVENT, onEnded);
      window.removeEventListener("storage", onStorage);
      return;
    }
    retries = 0;
    void load("");
  };
  const onStorage = (event: StorageEvent): void => {
    if (event.key === ENDED_KEY) onEnded();
  };
  window.addEventListener(ENDED_EVENT, onEnded);
  window.addEventListener("storage", onStorage);
  void load("");
  return section;
}
