// The page: a home (your name, find a match, live matches, the leaderboard,
// new match, join, my games), a match view, a finished match's replay and
// the name page, chosen by the address's fragment: #/play/ID, #/watch/ID,
// #/join/ID, #/replay/ID, #/name.
import { matches } from "./api";
import { createForm } from "./create";
import { alertError, el, replace } from "./dom";
import { describeError } from "./errors";
import { findMatch } from "./findmatch";
import { asPlayer, identity, onIdentityChange } from "./identity";
import { leaderboard } from "./leaderboard";
import { joinForm, liveMatches } from "./lobby";
import { showMatch } from "./match";
import { myGames } from "./mygames";
import { showReplay } from "./replay";
import { drawIdentity, nameForm } from "./signin";
import { holdSeat } from "./tokens";

const main = document.getElementById("main")!;
let leave: (() => void) | null = null;
/** Where the name page goes back to once signed in. */
let beforeName: string | null = null;

const pageOf = (hash: string): string => /^#\/(\w+)/.exec(hash)?.[1] ?? "";
/** Counts the routings: one that finishes after a newer one began draws nothing. */
let routings = 0;

async function route(): Promise<void> {
  leave?.();
  leave = null;
  alertError(null);
  const routing = ++routings;
  const current = (): boolean => routing === routings;
  const [, page, id] = /^#\/(play|watch|join|replay)\/(.+)$/.exec(location.hash) ?? [];
  const matchId = id ? decodeURIComponent(id) : "";
  try {
    if (pageOf(location.hash) === "name") {
      namePage();
    } else if (page === "join") {
      await join(matchId, current);
      return;
    } else if (page === "play" || page === "watch" || page === "replay") {
      const stop =
        page === "replay" ? await showReplay(main, matchId, current) : await showMatch(main, matchId, page === "play", current);
      if (current()) leave = stop;
      else stop();
      return;
    } else {
      const heading = el("h1", { tabindex: -1 }, "Play Rolit, Othello, Volleyball Returns and Volta");
      const signIn =
        identity() === null &&
        nameForm({ intro: "Choose the name shown on your seats: creating or joining a match needs one (watching does not)." });
      // Finding a match and the live matches first (as a game site's home),
      // then the leaderboard, a match of one's own making, joining, My games.
      const finder = findMatch();
      replace(
        main,
        heading,
        el(
          "div",
          { class: "home" },
          signIn,
          finder.element,
          liveMatches(),
          leaderboard(),
          createForm(),
          joinForm(),
          identity() !== null && myGames(),
        ),
      );
      leave = finder.stop; // leaving home ends the search
    }
  } catch (error) {
    if (!current()) return;
    replace(main, el("h1", { tabindex: -1 }, "Match unavailable"), el("p", {}, el("a", { href: "#/" }, "Back to the start")));
    alertError(describeError(page === "join" ? "join the match" : "open the match", error));
  }
  main.querySelector<HTMLElement>("h1")?.focus();
}

/** Signing in (again): a new guest, for every tab of this browser. */
function namePage(): void {
  const who = identity();
  const intro = who
    ? `You play as ${who.displayName}. A new name makes a new guest player: this browser then plays as it, and no longer holds ${who.displayName}'s seats.`
    : "Choose the name shown on your seats.";
  replace(
    main,
    el("h1", { tabindex: -1 }, who ? "Change your name" : "Sign in"),
    nameForm({
      intro,
      signedIn() {
        if (beforeName !== null) history.back();
        else location.replace("#/");
      },
    }),
    el("p", {}, el("a", { href: beforeName ?? "#/" }, "Back")),
  );
}

/** Takes a seat: the player's own if it holds one, else the first free one. */
async function join(matchId: string, current: () => boolean): Promise<void> {
  if (identity() === null) {
    replace(
      main,
      el("h1", { tabindex: -1 }, `Join match ${matchId}`),
      nameForm({ intro: "Choose the name shown on your seat to join this match.", submit: "Sign in and join" }),
    );
    main.querySelector<HTMLElement>("h1")?.focus();
    return; // signing in routes again, and joins
  }
  const joined = await asPlayer((options) => matches.joinMatch({ matchId }, options));
  holdSeat(matchId, { seat: joined.seat, token: joined.seatToken });
  if (current()) location.replace(`#/play/${encodeURIComponent(matchId)}`);
}

window.addEventListener("hashchange", (event) => {
  if (pageOf(location.hash) === "name" && pageOf(new URL(event.oldURL).hash) !== "name") {
    beforeName = new URL(event.oldURL).hash || "#/";
  } else if (pageOf(location.hash) !== "name") {
    beforeName = null;
  }
  void route();
});
onIdentityChange((who) => {
  drawIdentity(who);
  // The page shows who plays: draw it again as the new player (the name
  // page leaves by itself once signed in).
  if (pageOf(location.hash) !== "name") void route();
});
drawIdentity(identity());
void route();
