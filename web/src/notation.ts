// Moves written for people: a Volta flick by its side's name, offset in
// percent, angle in degrees and impulse in mN·s (never the engine's raw
// floats), and a Volleyball Returns point with its reason in words. The move
// log, hints, announcements and the boards all write moves through here.
import {
  type Action,
  type ActionInfo,
  CourtPhase,
  type CourtPosition,
  type CourtSquare,
  type Flick,
  type GameView,
} from "./gen/meeple/v1/game_pb";
import type { WatchMatchResponse } from "./gen/meeple/v1/match_service_pb";

const DEGREE = Math.PI / 180;

/** A side of a Volta steed as the engine names it: side 0 is the steed's +x
 * side, then counter-clockwise (engine_core/volta/RULES.md, "side": 0 is
 * +x, 1 +y, 2 -x, 3 -y, in the steed's own frame). The steed is a plain
 * square with no front or back in the rules, so the frame's axes name it. */
export function sideName(side: number): string {
  return `${["+x", "+y", "-x", "-y"][side] ?? `#${side}`} side`;
}

/** A signed whole number with its unit: "+12%", "-5°", "+0%". */
function signed(value: number, unit: string): string {
  const whole = Math.round(value);
  return `${whole < 0 ? "-" : "+"}${Math.abs(whole)}${unit}`;
}

/** "+x side, offset +12%, angle -5°, 45 mN·s": the offset in percent of the
 * half side (+-100% are the corners, positive counter-clockwise), the angle
 * from straight in (positive counter-clockwise), the impulse in mN·s. */
export function flickText(flick: Pick<Flick, "side" | "offset" | "angleRad" | "impulseNs">): string {
  const angle = Math.round(flick.angleRad / DEGREE);
  return [
    sideName(flick.side),
    `offset ${signed(flick.offset * 100, "%")}`,
    `angle ${angle === 0 ? "0°" : signed(angle, "°")}`,
    `${Math.round(flick.impulseNs * 1000)} mN·s`,
  ].join(", ");
}

/** An action as people read it: a flick in words, anything else by the
 * engine's notation ("d3", "step 3,2->2,2"), which the legal moves list too. */
export function actionText(info: ActionInfo | undefined, action: Action | undefined = info?.action): string {
  if (action?.kind.case === "flick") return `flick ${flickText(action.kind.value)}`;
  return info?.notation ?? "?";
}

/** A court square as the page's labels write it: "3,2" (column, row). */
export function squareText(square: CourtSquare | undefined): string {
  return `${square?.column ?? 0},${square?.row ?? 0}`;
}

/** Three of `seat`'s pieces in a straight contiguous line with one end on
 * the ball, within columns 1-6 (engine_core/volleyball/RULES.md rule 7),
 * or null. */
export function interceptLine(court: CourtPosition, seat: number, ball: CourtSquare): CourtSquare[] | null {
  const mine = new Set(
    court.pieces.filter((piece) => piece.seat === seat && (piece.square?.column ?? 7) <= 6).map((piece) => squareText(piece.square)),
  );
  for (const [dc, dr] of [[1, 0], [-1, 0], [0, 1], [0, -1], [1, 1], [1, -1], [-1, 1], [-1, -1]] as const) {
    const line = [0, 1, 2].map((k) => ({ column: ball.column + k * dc, row: ball.row + k * dr }) as CourtSquare);
    if (line.every((square) => mine.has(squareText(square)))) return line;
  }
  return null;
}

/** Why the rally between two views of a Volleyball Returns game ended or
 * went on, in words, or null when no point was decided and no ball came
 * back between them. The server sends no reason: it follows from the views
 * (the ball's landing square before, the scores and the hitter after):
 * - a miss, rule 9 of engine_core/volleyball/RULES.md: "If the ball is not
 *   successfully intercepted, then the previous active player to hit the
 *   volleyball over the net ... earns 1 point";
 * - a block, rule 7: "3 pieces in a straight, contiguous line without
 *   gaps, where one end of the line overlaps with the volleyball", after
 *   which the receiver hits back (rule 8). */
export function rallyText(before: GameView | undefined, after: GameView, name: (seat: number) => string): string | null {
  if (!before || after.ply <= before.ply) return null;
  if (before.position.case !== "court" || after.position.case !== "court") return null;
  const was = before.position.value;
  const now = after.position.value;
  const receiver = 1 - was.hitter;
  const ball = was.landing ? squareText(was.landing) : null;
  const scorer = after.scores.findIndex((score, seat) => score > (before.scores[seat] ?? 0));
  if (scorer >= 0) {
    const landed = ball
      ? `The ball landed on ${ball} of ${name(receiver)}'s side: no line of three with one end on it`
      : `${name(1 - scorer)} did not return the ball`;
    const over = now.phase === CourtPhase.OVER ? ` ${name(scorer)} wins the game.` : "";
    return `${landed} — point to ${name(scorer)} (${after.scores.join("–")}).${over}`;
  }
  if (was.landing && now.hitter === receiver && now.hitter !== was.hitter) {
    const line = interceptLine(now, receiver, was.landing);
    const through = line ? ` through ${squareText(line[1])} to ${squareText(line[2])}` : "";
    return `Blocked: ${name(receiver)}'s line of three from the ball at ${ball}${through} — the ball returns; ${name(receiver)} hits.`;
  }
  return null;
}

/** The move log's words for each action of one match's stream: the
 * action (a flick in words), then what it decided (a Volta point, a
 * Volleyball point's reason or a returned ball). `shown` is the view the
 * page showed before the action, used when the stream's previous view is
 * not at hand (the first action after connecting). */
export function narrator(): (event: WatchMatchResponse, shown: GameView | undefined, name: (seat: number) => string) => string {
  let last: GameView | undefined;
  return (event, shown, name) => {
    if (event.event.case !== "action") return "";
    const played = event.event.value;
    const before = last?.ply === event.ply ? last : shown?.ply === event.ply ? shown : undefined;
    if (event.view) last = event.view;
    const parts = [actionText(played.action)];
    const flick = played.flick;
    if (flick?.pointTo !== undefined) {
      const falls = flick.events
        .map((fall) => (fall.seat === undefined ? "" : ["", "", `${name(fall.seat)}'s rider fell`, `${name(fall.seat)}'s steed fell off`][fall.kind] ?? ""))
        .filter(Boolean);
      parts.push(`${falls.length ? `${falls.join(", ")}: ` : ""}point to ${name(flick.pointTo)}`);
    }
    const rally = event.view ? rallyText(before, event.view, name) : null;
    if (rally) parts.push(rally);
    return parts.join(" — ");
  };
}
