// What the match view and the replay share: a board for a game's position,
// and how a match ended, in words.
import { arenaBoard } from "./boards/arena";
import type { Board } from "./boards/board";
import { courtBoard } from "./boards/court";
import { gridBoard } from "./boards/grid";
import type { GameView } from "./gen/meeple/v1/game_pb";
import { EndReason, type MatchEnded } from "./gen/meeple/v1/match_service_pb";

/** How a match ended: "Game over: Black (you) wins.", "White resigned. Black wins." */
export function resultText(ended: MatchEnded | undefined, who: (seat: number) => string): string {
  if (!ended) return "The match is over.";
  if (ended.reason === EndReason.RESIGNATION) return `${who(ended.seat ?? 0)} resigned. ${winners(ended, who)}`;
  if (ended.reason === EndReason.TIMEOUT) return `${who(ended.seat ?? 0)} ran out of time. ${winners(ended, who)}`;
  return `Game over: ${winners(ended, who)}`;
}

/** "Black (you) wins.", "Red and Blue share the win.", "a draw." */
export function winners(ended: MatchEnded, who: (seat: number) => string): string {
  const best = Math.max(...ended.returns);
  const won = ended.returns.flatMap((value, seat) => (value === best ? [seat] : []));
  if (won.length === ended.returns.length) return "a draw.";
  return `${won.map(who).join(" and ")} ${won.length === 1 ? "wins" : "share the win"}.`;
}

export function newBoard(view: GameView): Board {
  switch (view.position.case) {
    case "grid":
      return gridBoard();
    case "court":
      return courtBoard();
    case "arena":
      return arenaBoard();
    default:
      throw new Error("the server sent no position to draw");
  }
}

