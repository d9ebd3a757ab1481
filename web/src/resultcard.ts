// The end of a match: a card headed "Game over" with each seat's final
// score, how it ended in words, the viewer's rating change when the match
// was rated, and Rematch (the same seats and options, the colours swapped),
// New game and Review.
import { create } from "@bufbuild/protobuf";
import { archive, asOwner, matches } from "./api";
import { alertError, button, el, replace } from "./dom";
import { describeError } from "./errors";
import { seatLook } from "./games";
import type { RatingChange } from "./gen/meeple/v1/archive_service_pb";
import {
  CreateMatchRequestSchema,
  EndReason,
  type Match,
  type SeatConfig,
  SeatConfigSchema,
  SeatKind,
} from "./gen/meeple/v1/match_service_pb";
import { asPlayer, identity } from "./identity";
import { holdOwnerToken, holdSeat } from "./tokens";
import { winners } from "./view";

/** How often, and how far apart, the rating change is looked for: the rater
 * writes it a moment after the end. */
const RATING_TRIES = 5;
const RATING_RETRY_MS = 1000;

export interface ResultCard {
  readonly element: HTMLElement;
  /** Stops looking for the rating change. */
  stop(): void;
}

/** How a match ended, in words: "Black (you) wins by score.", "By
 * resignation: White resigned. Black wins.", "Out of time: ...". */
export function reasonText(match: Match, who: (seat: number) => string): string {
  const ended = match.ended;
  if (!ended) return "The match is over.";
  const result = winners(ended, who);
  switch (ended.reason) {
    case EndReason.RESIGNATION:
      return `By resignation: ${who(ended.seat ?? 0)} resigned. ${capital(result)}`;
    case EndReason.TIMEOUT:
      return `Out of time: ${who(ended.seat ?? 0)} ran out of time. ${capital(result)}`;
    default:
      return `By score: ${result}`;
  }
}

const capital = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** The card for finished `match`, seen from seat `mySeat` (null: watching). */
export function resultCard(match: Match, mySeat: number | null, who: (seat: number) => string): ResultCard {
  const stop = new AbortController();
  const matchId = match.matchId;
  const view = match.view;
  const ended = match.ended;
  const best = ended && ended.returns.length > 0 ? Math.max(...ended.returns) : null;
  const everyone = ended !== undefined && ended.returns.every((value) => value === best);
  const rows = match.seats.map((seat, index) => {
    const look = seatLook(view, index);
    const player = seat.kind === SeatKind.BOT ? `bot: ${seat.botSpec}` : seat.displayName || "player";
    const outcome = best === null ? "" : everyone ? "draw" : ended!.returns[index] === best ? "won" : "lost";
    return el(
      "tr",
      {},
      el(
        "th",
        { scope: "row" },
        el("span", { class: `badge ${look.style}`, "aria-hidden": "true" }, look.symbol),
        ` ${who(index)}`,
      ),
      el("td", {}, mySeat === index ? "you" : player),
      el("td", { class: "final-score" }, String(view?.scores[index] ?? 0)),
      el("td", {}, outcome),
    );
  });
  const table = el(
    "table",
    { class: "final-scores" },
    el("caption", {}, "Final scores"),
    el(
      "thead",
      {},
      el("tr", {}, el("th", { scope: "col" }, "Seat"), el("th", { scope: "col" }, "Player"), el("th", { scope: "col" }, "Score"), el("th", { scope: "col" }, "Result")),
    ),
    el("tbody", {}, ...rows),
  );
  const rating = el("p", { class: "rating-change" });
  rating.hidden = true;
  const playing = mySeat !== null && identity() !== null;
  const element = el(
    "section",
    { class: "result-card", "aria-labelledby": `result-${matchId}` },
    el("h3", { id: `result-${matchId}`, tabindex: -1 }, "Game over"),
    el("p", { class: "end-reason" }, reasonText(match, who)),
    table,
    rating,
    el(
      "div",
      { class: "row result-actions" },
      playing && button("Rematch", () => void rematch(match, mySeat!)),
      button("New game", () => newGame()),
      button("Review", () => {
        location.hash = `#/replay/${encodeURIComponent(matchId)}`;
      }),
    ),
  );
  if (playing) void ratingChange(match, stop.signal).then((change) => change && showRating(rating, change));
  return { element, stop: () => stop.abort() };
}

function showRating(where: HTMLElement, change: RatingChange): void {
  const before = change.before?.ordinal ?? 0;
  const after = change.after?.ordinal ?? 0;
  const delta = after - before;
  const sign = delta > 0 ? "+" : delta < 0 ? "−" : "±";
  replace(where, `Your rating: ${before.toFixed(1)} → ${after.toFixed(1)} (${sign}${Math.abs(delta).toFixed(1)})`);
  where.hidden = false;
}

/** The viewer's rating change for this match, if it was rated: looked for
 * a few times, as the rater writes it a moment after the end. */
async function ratingChange(match: Match, signal: AbortSignal): Promise<RatingChange | null> {
  const me = identity();
  if (!me || !match.config) return null;
  for (let attempt = 0; attempt < RATING_TRIES && !signal.aborted; attempt++) {
    try {
      const history = await archive.getRatingHistory(
        { playerId: me.playerId, game: match.config.kind, pageSize: 5 },
        { signal },
      );
      const found = history.changes.find((change) => change.matchId === match.matchId);
      if (found) return found;
    } catch {
      // No archive, or not yet: try again, then show nothing.
    }
    await new Promise((resolve) => setTimeout(resolve, RATING_RETRY_MS));
  }
  return null;
}

/** The seats of a rematch: every seat moves one on (two seats swap), so
 * the viewer plays the next colour, and where the viewer sat. */
export function rematchSeats(match: Match, mySeat: number): { seats: SeatConfig[]; you: number } {
  const count = match.seats.length;
  const seats: SeatConfig[] = new Array(count);
  match.seats.forEach((seat, index) => {
    const to = (index + 1) % count;
    seats[to] =
      seat.kind === SeatKind.BOT
        ? create(SeatConfigSchema, { kind: SeatKind.BOT, botSpec: seat.botSpec })
        : create(SeatConfigSchema, { kind: SeatKind.HUMAN, playerId: seat.playerId });
  });
  return { seats, you: (mySeat + 1) % count };
}

/** A new match with the same game, options and clocks, the colours swapped;
 * takes the viewer's seat and opens it. */
async function rematch(match: Match, mySeat: number): Promise<void> {
  alertError(null);
  try {
    const { seats, you } = rematchSeats(match, mySeat);
    const config = match.config ? { ...match.config } : undefined;
    // A first seat the server drew is drawn again; one chosen stays.
    if (config && match.firstSeatDrawn && config.options.case !== undefined && config.options.value) {
      config.options = { case: config.options.case, value: { ...config.options.value, firstSeat: undefined } } as typeof config.options;
    }
    const request = create(CreateMatchRequestSchema, { config, seats, timeControl: match.timeControl });
    const created = await asPlayer((options) => matches.createMatch(request, options));
    const matchId = created.match!.matchId;
    holdOwnerToken(matchId, created.ownerToken);
    const joined = await asPlayer((options) => matches.joinMatch({ matchId, seat: you }, options), asOwner(created.ownerToken));
    holdSeat(matchId, { seat: joined.seat, token: joined.seatToken });
    location.hash = `#/play/${encodeURIComponent(matchId)}`;
  } catch (error) {
    alertError(describeError("start the rematch", error));
  }
}

/** Back to the home page's New match form. */
function newGame(): void {
  location.hash = "#/";
  // The home page draws on the hash change: then the form's first control.
  setTimeout(() => {
    const form = document.querySelector<HTMLElement>("form.create");
    form?.scrollIntoView({ block: "start" });
    form?.querySelector<HTMLElement>("select, input")?.focus();
  }, 100);
}
