// What the page knows of each game: names, seats, and how a seat is shown
// (a name and a symbol, so that colour is never the only clue).
import { GameKind, type GameConfig, type GameView } from "./gen/meeple/v1/game_pb";

export interface GameInfo {
  readonly kind: GameKind;
  readonly name: string;
  readonly minPlayers: number;
  readonly maxPlayers: number;
  /** A turn may be several actions (Volleyball's placements, steps and
   * `end`): the page plans them with RulesService and sends them whole. */
  readonly plansTurns: boolean;
  /** The first seat is fixed by the rules (Othello: black). */
  readonly fixedFirstSeat: boolean;
  /** Its legal actions are a list to choose from; Volta's are a sample of
   * a continuous space, aimed with the board's own form instead. */
  readonly listsMoves: boolean;
}

export const GAMES: readonly GameInfo[] = [
  { kind: GameKind.ROLIT, name: "Rolit", minPlayers: 2, maxPlayers: 4, plansTurns: false, fixedFirstSeat: false, listsMoves: true },
  { kind: GameKind.OTHELLO, name: "Othello", minPlayers: 2, maxPlayers: 2, plansTurns: false, fixedFirstSeat: true, listsMoves: true },
  { kind: GameKind.VOLLEYBALL, name: "Volleyball Returns", minPlayers: 2, maxPlayers: 2, plansTurns: true, fixedFirstSeat: false, listsMoves: true },
  { kind: GameKind.VOLTA, name: "Volta", minPlayers: 2, maxPlayers: 2, plansTurns: false, fixedFirstSeat: false, listsMoves: false },
];

export function gameInfo(kind: GameKind): GameInfo {
  const found = GAMES.find((game) => game.kind === kind);
  if (!found) throw new Error(`unknown game kind ${kind}`);
  return found;
}

/** The number of seats a config asks for (Rolit's default is all four). */
export function seatCount(config: GameConfig): number {
  const info = gameInfo(config.kind);
  if (config.options.case === "rolit") return config.options.value.players ?? info.maxPlayers;
  return info.minPlayers;
}

/** The bot levels every game maps to a spec, weakest first, and `random`. */
export const BOT_LEVELS = ["random", "easy", "medium", "hard", "expert"] as const;

const COLOUR_SYMBOLS: Record<string, string> = {
  red: "R",
  yellow: "Y",
  green: "G",
  blue: "B",
  black: "B",
  white: "W",
};

export interface SeatLook {
  /** "Red", "Black", "Player 2". */
  readonly name: string;
  /** A letter or digit drawn on the seat's pieces. */
  readonly symbol: string;
  /** A CSS class giving its colour and pattern. */
  readonly style: string;
}

/** How the page shows a seat: by its ball colour on a grid, else by number. */
export function seatLook(view: GameView | undefined, seat: number): SeatLook {
  if (view?.position.case === "grid") {
    const grid = view.position.value;
    return colourLook(grid.colours[grid.seatColours[seat] ?? 0] ?? "");
  }
  return { name: `Player ${seat + 1}`, symbol: String(seat + 1), style: `seat-${seat}` };
}

/** How a ball colour is shown: its name, its letter and its pattern. */
export function colourLook(colour: string): SeatLook {
  return {
    name: colour.charAt(0).toUpperCase() + colour.slice(1),
    symbol: COLOUR_SYMBOLS[colour] ?? colour.charAt(0).toUpperCase(),
    style: `colour-${colour}`,
  };
}
