// Following a match: WatchMatch from a ply, and after a dropped connection
// again from the ply after the last action seen, until the match ends.
import { Code } from "@connectrpc/connect";
import { matches } from "./api";
import { describeError, errorCode } from "./errors";
import type { WatchMatchResponse } from "./gen/meeple/v1/match_service_pb";

export interface Follower {
  /** Handles one event; the stream waits for it (a flick's playback). */
  onEvent(event: WatchMatchResponse): Promise<void>;
  /** The connection's state, for the page to show. */
  onConnection(live: boolean, message: string): void;
  /** The stream cannot go on (the match is gone, or over past `fromPly`). */
  onStop(code: Code, message: string): void;
}

const FIRST_RETRY_MS = 250;
const LAST_RETRY_MS = 4000;
// Errors that no retry mends.
const FINAL = new Set([Code.NotFound, Code.InvalidArgument, Code.OutOfRange, Code.PermissionDenied]);

/** Follows `matchId` from `fromPly` until it ends or `signal` aborts. */
export async function follow(
  matchId: string,
  fromPly: number,
  follower: Follower,
  signal: AbortSignal,
): Promise<void> {
  let next = fromPly;
  let retry = FIRST_RETRY_MS;
  while (!signal.aborted) {
    try {
      // No deadline: the stream lasts the whole match.
      const events = matches.watchMatch({ matchId, fromPly: next }, { signal, timeoutMs: 0 });
      for await (const event of events) {
        if (event.event.case === "snapshot") {
          follower.onConnection(true, next === fromPly ? "live" : `live again, resumed at ply ${next}`);
          retry = FIRST_RETRY_MS;
        }
        if (event.event.case === "action") next = event.ply + 1;
        await follower.onEvent(event);
        if (event.event.case === "ended") return;
      }
      if (signal.aborted) return;
      follower.onConnection(false, "the server closed the stream; reconnecting");
    } catch (error) {
      if (signal.aborted) return;
      const code = errorCode(error);
      if (FINAL.has(code)) {
        follower.onStop(code, describeError("follow the match", error));
        return;
      }
      follower.onConnection(false, `connection lost (${describeError("follow the match", error)}); reconnecting`);
    }
    await sleep(retry, signal);
    retry = Math.min(retry * 2, LAST_RETRY_MS);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
