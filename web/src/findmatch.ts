// "Find a match": the signed-in player's ticket in a game's queue
// (MatchmakingService). CreateTicket acts for the player (its bearer
// token); WatchTicket, kept open, is the ticket's heartbeat and shows the
// wait and the rating window as it widens; Cancel ends the search
// (CancelTicket, with the ticket token); the assignment's seat token is held
// as any seat's and the match opens at #/play/ID. The search is kept in the
// tab's sessionStorage (as seat tokens are), so a reload picks it up again;
// leaving the home page cancels it.
import { create } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { asTicket, matchmaking } from "./api";
import { alertError, announce, button, el, field, replace, select } from "./dom";
import { describeError, errorCode } from "./errors";
import { GAMES, gameInfo } from "./games";
import { GameConfigSchema, GameKind } from "./gen/meeple/v1/game_pb";
import { type Assignment, type Ticket, TicketStatus } from "./gen/meeple/v1/matchmaking_service_pb";
import { asPlayer, identity } from "./identity";
import { focusNameField } from "./signin";
import { holdSeat } from "./tokens";

/** The tab's search: its ticket and what it asked for. */
interface Search {
  readonly ticketId: string;
  readonly token: string;
  readonly playerId: string;
  readonly kind: GameKind;
  readonly seatCounts: readonly number[];
  readonly allowBots: boolean;
  /** When it began, by this tab's clock (ms since the epoch). */
  readonly since: number;
}

const SEARCH_KEY = "meeple:ticket";
const FIRST_RETRY_MS = 250;
const LAST_RETRY_MS = 2_000;
// WatchTicket answers that no retry mends.
const FINAL = new Set([Code.NotFound, Code.InvalidArgument, Code.PermissionDenied, Code.Unauthenticated, Code.FailedPrecondition]);
// CreateTicket answers worth a retry with the same request id (which makes it safe).
const RETRIED = new Set([Code.Unavailable, Code.DeadlineExceeded]);
const CREATE_ATTEMPTS = 3;

function storedSearch(): Search | null {
  try {
    const raw = JSON.parse(sessionStorage.getItem(SEARCH_KEY) ?? "null") as Partial<Search> | null;
    if (typeof raw?.ticketId !== "string" || typeof raw.token !== "string" || typeof raw.playerId !== "string") return null;
    return raw as Search;
  } catch {
    return null;
  }
}

/** A random request id (32 of [A-Za-z0-9_-]): retries of CreateTicket reuse it. */
function requestId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_");
}

/** "0:07", "2:15". */
function clock(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/** "2, 3 or 4". */
function either(items: readonly (string | number)[]): string {
  const texts = items.map(String);
  return texts.length > 1 ? `${texts.slice(0, -1).join(", ")} or ${texts.at(-1)}` : (texts[0] ?? "");
}

/** "Othello, bots allowed", "Rolit for 2, 3 or 4, no bots". */
function describeSearch(search: Search): string {
  const info = gameInfo(search.kind);
  const sizes = info.maxPlayers > info.minPlayers && search.seatCounts.length > 0 ? ` for ${either(search.seatCounts)}` : "";
  return `${info.name}${sizes}, ${search.allowBots ? "bots allowed" : "no bots"}`;
}

/** The Find a match panel; `stop` ends its search (when the page leaves home). */
export function findMatch(): { element: HTMLElement; stop: () => void } {
  const game = select(
    "find-game",
    GAMES.map((info) => [String(info.kind), info.name] as const),
    String(GameKind.OTHELLO),
  );
  const sizeBoxes = [2, 3, 4].map((size) => el("input", { type: "checkbox", name: `find-size-${size}`, value: size, checked: true }));
  const sizes = el(
    "fieldset",
    { class: "table-sizes" },
    el("legend", {}, "Table sizes"),
    ...sizeBoxes.map((box) => field(`${box.value} players`, box)),
  );
  const allowBots = el("input", { type: "checkbox", name: "allow-bots", checked: true });
  const submit = el("button", { type: "submit" }, "Find a match");
  const form = el(
    "form",
    { class: "find-form" },
    field("Game to play", game),
    sizes,
    field("Allow bots", allowBots, "Bots near your rating fill the empty seats after a short wait."),
    submit,
  );
  const what = el("p", { class: "search-what" });
  const elapsed = el("p", { class: "search-time" });
  const windowLine = el("p", { class: "search-window secondary" });
  const connection = el("p", { class: "search-connection secondary" });
  const cancel = button("Cancel", () => void cancelSearch(), { "aria-label": "Cancel the search" });
  const searching = el("div", { class: "searching", hidden: true }, what, elapsed, windowLine, connection, cancel);
  const note = el("p", { class: "find-note", hidden: true });
  const element = el(
    "section",
    { class: "find-match", "aria-labelledby": "find-heading" },
    el("h2", { id: "find-heading" }, "Find a match"),
    form,
    searching,
    note,
  );

  let search: Search | null = null;
  let watching: AbortController | null = null;
  let ticking: ReturnType<typeof setInterval> | undefined;
  let stopped = false;

  const layout = (): void => {
    const info = gameInfo(Number(game.value) as GameKind);
    sizes.hidden = info.maxPlayers === info.minPlayers;
  };
  game.addEventListener("change", layout);
  layout();

  function forget(): void {
    watching?.abort();
    watching = null;
    clearInterval(ticking);
    search = null;
    sessionStorage.removeItem(SEARCH_KEY);
  }

  /** Back to the form, with a note saying how the search ended (if it did). */
  function idle(message?: string): void {
    forget();
    if (stopped) return;
    form.hidden = false;
    searching.hidden = true;
    replace(note, message ?? "");
    note.hidden = !message;
    if (message) announce(message);
    if (element.contains(document.activeElement) || document.activeElement === document.body) submit.focus();
  }

  function tick(): void {
    if (search) replace(elapsed, `Searching… ${clock(Date.now() - search.since)}`);
  }

  function showWindow(ticket: { rating: number; window: number } | number): void {
    const rating = typeof ticket === "number" ? null : ticket.rating;
    const window = typeof ticket === "number" ? ticket : ticket.window;
    const rated = rating ?? Number(windowLine.dataset.rating ?? NaN);
    if (rating !== null) windowLine.dataset.rating = String(rating);
    const around = Number.isFinite(rated) ? `${Math.round(rated)} ± ${Math.floor(window)}` : `± ${Math.floor(window)}`;
    replace(windowLine, `Rating window: ${around}`);
  }

  function show(current: Search): void {
    search = current;
    sessionStorage.setItem(SEARCH_KEY, JSON.stringify(current));
    form.hidden = true;
    note.hidden = true;
    searching.hidden = false;
    replace(what, describeSearch(current));
    replace(windowLine);
    replace(connection);
    delete windowLine.dataset.rating;
    tick();
    clearInterval(ticking);
    ticking = setInterval(tick, 500);
    watching = new AbortController();
    void follow(current, watching.signal);
  }

  function seated(assignment: Assignment, current: Search): void {
    const mine = assignment.seats.find((seat) => seat.playerId === current.playerId) ?? assignment.seats[0];
    forget();
    if (!mine) {
      idle();
      alertError("Could not open the match found: the assignment holds no seat for you.");
      return;
    }
    holdSeat(assignment.matchId, { seat: mine.seat, token: mine.seatToken });
    announce("Match found.");
    if (!stopped) location.hash = `#/play/${encodeURIComponent(assignment.matchId)}`;
  }

  function ended(ticket: Ticket, current: Search): void {
    if (ticket.status === TicketStatus.ASSIGNED && ticket.assignment) {
      seated(ticket.assignment, current);
    } else if (ticket.status === TicketStatus.EXPIRED) {
      idle(`No match was found in time. Try again${current.allowBots ? "" : ", or allow bots"}.`);
    } else {
      idle("Search cancelled.");
    }
  }

  /** WatchTicket until the ticket is assigned or ends, again after a dropped stream. */
  async function follow(current: Search, signal: AbortSignal): Promise<void> {
    let retry = FIRST_RETRY_MS;
    while (!signal.aborted) {
      try {
        // No deadline: the stream is the heartbeat, as long as the wait.
        const events = matchmaking.watchTicket({ ticketId: current.ticketId }, { headers: asTicket(current.token), signal, timeoutMs: 0 });
        for await (const event of events) {
          if (signal.aborted) return;
          switch (event.event.case) {
            case "snapshot":
              retry = FIRST_RETRY_MS;
              replace(connection);
              showWindow(event.event.value);
              break;
            case "widened":
              showWindow(event.event.value.window);
              break;
            case "assigned":
              seated(event.event.value, current);
              return;
            case "ended":
              ended(event.event.value, current);
              return;
          }
        }
        if (signal.aborted) return;
        replace(connection, "Connection closed; reconnecting…");
      } catch (error) {
        if (signal.aborted) return;
        if (FINAL.has(errorCode(error))) {
          idle();
          alertError(describeError("follow the search", error));
          return;
        }
        replace(connection, "Connection lost; reconnecting…");
      }
      await new Promise((resolve) => setTimeout(resolve, retry));
      retry = Math.min(retry * 2, LAST_RETRY_MS);
    }
  }

  async function start(): Promise<void> {
    alertError(null);
    const me = identity();
    if (me === null) {
      alertError("Could not find a match: choose your name first (Your name, on this page).");
      focusNameField();
      return;
    }
    const kind = Number(game.value) as GameKind;
    const info = gameInfo(kind);
    const seatCounts = info.maxPlayers > info.minPlayers ? sizeBoxes.filter((box) => box.checked).map((box) => Number(box.value)) : [];
    if (info.maxPlayers > info.minPlayers && seatCounts.length === 0) {
      alertError("Could not find a match: choose at least one table size.");
      sizeBoxes[0]!.focus();
      return;
    }
    const request = {
      config: create(GameConfigSchema, { kind }),
      seatCounts,
      allowBots: allowBots.checked,
      requestId: requestId(),
    };
    const since = Date.now();
    submit.disabled = true;
    try {
      let answer;
      for (let attempt = 1; ; attempt++) {
        try {
          answer = await asPlayer((options) => matchmaking.createTicket(request, options));
          break;
        } catch (error) {
          if (attempt >= CREATE_ATTEMPTS || !RETRIED.has(errorCode(error))) throw error;
        }
      }
      const current: Search = {
        ticketId: answer.ticket!.ticketId,
        token: answer.ticketToken,
        playerId: me.playerId,
        kind,
        seatCounts,
        allowBots: request.allowBots,
        since,
      };
      if (stopped) {
        void matchmaking.cancelTicket({ ticketId: current.ticketId }, { headers: asTicket(current.token) }).catch(() => undefined);
        return;
      }
      show(current);
      announce(`Searching for a match: ${describeSearch(current)}.`);
      cancel.focus();
    } catch (error) {
      alertError(describeError("find a match", error));
    } finally {
      submit.disabled = false;
    }
  }

  async function cancelSearch(): Promise<void> {
    const current = search;
    if (current === null) return;
    alertError(null);
    // The stream stops first: the answer says whether a table took the ticket meanwhile.
    watching?.abort();
    watching = null;
    cancel.disabled = true;
    try {
      const answer = await matchmaking.cancelTicket({ ticketId: current.ticketId }, { headers: asTicket(current.token) });
      if (answer.ticket) ended(answer.ticket, current);
      else idle("Search cancelled.");
    } catch (error) {
      if (errorCode(error) === Code.NotFound) {
        idle("Search cancelled.");
      } else {
        // Unwatched, the ticket expires within seconds anyway.
        idle();
        alertError(describeError("cancel the search", error));
      }
    } finally {
      cancel.disabled = false;
    }
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void start();
  });

  // A search this tab began before a reload goes on.
  const before = storedSearch();
  if (before !== null && before.playerId === identity()?.playerId) show(before);
  else sessionStorage.removeItem(SEARCH_KEY);

  function stop(): void {
    const current = search;
    stopped = true;
    forget();
    if (current !== null) {
      void matchmaking.cancelTicket({ ticketId: current.ticketId }, { headers: asTicket(current.token) }).catch(() => undefined);
    }
  }
  return { element, stop };
}
