// The page: a home (new match, join, live matches) and a match view, chosen
// by the address's fragment: #/play/ID, #/watch/ID, #/join/ID.
import { asOwner, matches } from "./api";
import { createForm } from "./create";
import { alertError, el, replace } from "./dom";
import { describeError } from "./errors";
import { joinForm, liveMatches } from "./lobby";
import { showMatch } from "./match";
import { heldSeat, holdSeat, ownerToken } from "./tokens";

const main = document.getElementById("main")!;
let leave: (() => void) | null = null;

async function route(): Promise<void> {
  leave?.();
  leave = null;
  alertError(null);
  const [, page, id] = /^#\/(play|watch|join)\/(.+)$/.exec(location.hash) ?? [];
  const matchId = id ? decodeURIComponent(id) : "";
  try {
    if (page === "join") {
      await join(matchId);
      return;
    }
    if (page === "play" || page === "watch") {
      leave = await showMatch(main, matchId, page === "play");
      return;
    }
    const heading = el("h1", { tabindex: -1 }, "Play Rolit, Othello, Volleyball Returns and Volta");
    replace(main, heading, el("div", { class: "home" }, createForm(), joinForm(), liveMatches()));
  } catch (error) {
    replace(main, el("h1", { tabindex: -1 }, "Match unavailable"), el("p", {}, el("a", { href: "#/" }, "Back to the start")));
    alertError(describeError(page === "join" ? "join the match" : "open the match", error));
  }
  main.querySelector<HTMLElement>("h1, h2")?.focus();
}

/** Takes a seat (the first free one; with the owner token, the held one back). */
async function join(matchId: string): Promise<void> {
  if (heldSeat(matchId) === null) {
    const owner = ownerToken(matchId);
    const joined = await matches.joinMatch({ matchId }, owner ? asOwner(owner) : {});
    holdSeat(matchId, { seat: joined.seat, token: joined.seatToken });
  }
  location.replace(`#/play/${encodeURIComponent(matchId)}`);
}

window.addEventListener("hashchange", () => void route());
void route();
