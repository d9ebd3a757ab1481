// The form that creates a match: the game and its options, who plays each
// seat (you, a bot of any level or spec, or someone you invite), who starts
// and the clocks. It then takes your seat and opens the match.
import { create } from "@bufbuild/protobuf";
import { asOwner, matches } from "./api";
import { alertError, el, field, replace, select } from "./dom";
import { describeError } from "./errors";
import { BOT_LEVELS, GAMES, colourLook, gameInfo } from "./games";
import { DentSize, GameConfigSchema, GameKind, type GameConfig } from "./gen/meeple/v1/game_pb";
import { type SeatConfig, SeatConfigSchema, SeatKind } from "./gen/meeple/v1/match_service_pb";
import { asPlayer, identity } from "./identity";
import { focusNameField } from "./signin";
import { holdOwnerToken, holdSeat } from "./tokens";

const ROLIT_COLOURS: Record<number, string[]> = {
  2: ["red", "green"],
  3: ["red", "yellow", "green"],
  4: ["red", "yellow", "green", "blue"],
};

const PLAYER_CHOICES: ReadonlyArray<readonly [string, string]> = [
  ["you", "You"],
  ...BOT_LEVELS.map((level) => [`bot:${level}`, `Bot: ${level}`] as const),
  ["custom", "Bot: custom spec"],
  ["open", "Someone you invite"],
];

function seatNames(kind: GameKind, players: number): string[] {
  if (kind === GameKind.ROLIT) return ROLIT_COLOURS[players]!.map((colour) => colourLook(colour).name);
  if (kind === GameKind.OTHELLO) return ["Black", "White"];
  return ["Player 1", "Player 2"];
}

export function createForm(): HTMLFormElement {
  const game = select(
    "game",
    GAMES.map((info) => [String(info.kind), info.name] as const),
    String(GameKind.ROLIT),
  );
  const players = select("players", []);
  const seats = el("fieldset", { class: "seats-choice" });
  const firstSeat = select("first-seat", [["", "drawn by the server"]]);
  const bigLeagues = el("input", { type: "checkbox", name: "big-leagues" });
  const underdog = el("input", { type: "checkbox", name: "underdog-boost" });
  const swap = el("input", { type: "checkbox", name: "swap-marbles" });
  const base = el("input", { type: "number", name: "clock-base", min: 0.5, max: 1440, step: 0.5, value: 5 });
  const increment = el("input", { type: "number", name: "clock-increment", min: 0, max: 3600, step: 1, value: 5 });
  const options = el("div", { class: "options" });
  const submit = el("button", { type: "submit" }, "Create match");
  const form = el(
    "form",
    { class: "create", "aria-labelledby": "create-heading" },
    el("h2", { id: "create-heading" }, "New match"),
    field("Game", game),
    options,
    seats,
    el(
      "fieldset",
      {},
      el("legend", {}, "Clocks for people (bots have none)"),
      field("Minutes each", base),
      field("Seconds added per move", increment),
    ),
    submit,
  );
  const playerCount = field("Players", players);
  const volleyballOptions = el(
    "fieldset",
    {},
    el("legend", {}, "Variants"),
    field("Big Leagues (6 rows, longer steps, the hitter steps too)", bigLeagues),
    field("Underdog Boost (a player behind chooses where the ball lands)", underdog),
  );
  let voltaSeats: { dent: HTMLSelectElement; mass: HTMLInputElement }[] = [];

  function layout(): void {
    const kind = Number(game.value) as GameKind;
    const info = gameInfo(kind);
    const choosesPlayers = info.maxPlayers > info.minPlayers;
    if (choosesPlayers && players.dataset.kind !== game.value) {
      players.dataset.kind = game.value;
      const counts = Array.from({ length: info.maxPlayers - info.minPlayers + 1 }, (_, i) => info.minPlayers + i);
      replace(players, ...counts.map((count) => el("option", { value: count, selected: count === info.maxPlayers }, String(count))));
    }
    const count = choosesPlayers ? Number(players.value) : info.minPlayers;
    const names = seatNames(kind, count);
    const seatRows = names.map((seatName, index) =>
      el(
        "div",
        { class: "seat-choice" },
        field(`${seatName} is played by`, select(`seat-${index}`, PLAYER_CHOICES, index === 0 ? "you" : "bot:medium")),
        field(`${seatName}'s bot spec`, el("input", { type: "text", name: `spec-${index}`, placeholder: "mcts:iterations=500" })),
      ),
    );
    replace(seats, el("legend", {}, "Players"), ...seatRows);
    for (const row of seatRows) {
      const chooser = row.querySelector("select")!;
      const spec = row.lastElementChild as HTMLElement;
      const sync = (): void => {
        spec.hidden = chooser.value !== "custom";
      };
      chooser.addEventListener("change", sync);
      sync();
    }
    replace(
      firstSeat,
      el("option", { value: "" }, "drawn by the server"),
      ...names.map((seatName, index) => el("option", { value: index }, seatName)),
    );
    voltaSeats = names.map((_name, index) => ({
      dent: select(`dent-${index}`, [["large", `large dent (easier)`], ["small", "small dent (harder)"]], "large"),
      mass: el("input", { type: "number", name: `mass-${index}`, min: 1, max: 20, step: 0.5, value: 5.5 }),
    }));
    const voltaOptions = el(
      "fieldset",
      {},
      el("legend", {}, "Steeds and riders"),
      ...voltaSeats.flatMap((choice, index) => [
        field(`${names[index]}'s dent`, choice.dent),
        field(`${names[index]}'s marble (grams)`, choice.mass, "1 to 20 g"),
      ]),
      field("Swap marbles every 5 points", swap),
    );
    replace(
      options,
      choosesPlayers && playerCount,
      kind === GameKind.VOLLEYBALL && volleyballOptions,
      kind === GameKind.VOLTA && voltaOptions,
      !info.fixedFirstSeat && field("Who starts", firstSeat),
    );
  }

  function config(): GameConfig {
    const kind = Number(game.value) as GameKind;
    const first = firstSeat.value === "" ? undefined : Number(firstSeat.value);
    switch (kind) {
      case GameKind.ROLIT:
        return create(GameConfigSchema, { kind, options: { case: "rolit", value: { players: Number(players.value), firstSeat: first } } });
      case GameKind.VOLLEYBALL:
        return create(GameConfigSchema, {
          kind,
          options: { case: "volleyball", value: { bigLeagues: bigLeagues.checked, underdogBoost: underdog.checked, firstSeat: first } },
        });
      case GameKind.VOLTA:
        return create(GameConfigSchema, {
          kind,
          options: {
            case: "volta",
            value: {
              dents: voltaSeats.map((choice) => (choice.dent.value === "small" ? DentSize.SMALL : DentSize.LARGE)),
              riderMassesKg: voltaSeats.map((choice) => Number(choice.mass.value) / 1000),
              swapEvery: swap.checked ? 5 : 0,
              firstSeat: first,
            },
          },
        });
      default:
        return create(GameConfigSchema, { kind });
    }
  }

  /** The seats asked for; yours is reserved for you (`playerId`). */
  function seatConfigs(playerId: string): { seats: SeatConfig[]; you: number | null } {
    let you: number | null = null;
    const chosen = [...seats.querySelectorAll<HTMLSelectElement>("select")].map((chooser, index) => {
      const value = chooser.value;
      if (value === "you") {
        if (you !== null) throw new Error("choose You for one seat at most (invite others with the link)");
        you = index;
      }
      if (value === "you") return create(SeatConfigSchema, { kind: SeatKind.HUMAN, playerId });
      if (value === "open") return create(SeatConfigSchema, { kind: SeatKind.HUMAN });
      const spec = value === "custom" ? form.querySelector<HTMLInputElement>(`[name=spec-${index}]`)!.value.trim() : value.slice(4);
      return create(SeatConfigSchema, { kind: SeatKind.BOT, botSpec: spec });
    });
    return { seats: chosen, you };
  }

  game.addEventListener("change", layout);
  players.addEventListener("change", layout);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void (async () => {
      alertError(null);
      submit.disabled = true;
      try {
        const me = identity();
        if (me === null) {
          alertError("Could not create the match: choose your name first (Your name, on this page).");
          focusNameField();
          return;
        }
        let chosen: ReturnType<typeof seatConfigs>;
        try {
          chosen = seatConfigs(me.playerId);
        } catch (error) {
          alertError(String((error as Error).message));
          return;
        }
        const seconds = Math.round(Number(base.value) * 60);
        const request = {
          config: config(),
          seats: chosen.seats,
          timeControl: {
            base: { seconds: BigInt(seconds) },
            increment: { seconds: BigInt(Math.round(Number(increment.value))) },
          },
        };
        const created = await asPlayer((options) => matches.createMatch(request, options));
        const matchId = created.match!.matchId;
        holdOwnerToken(matchId, created.ownerToken);
        if (chosen.you === null) {
          location.hash = `#/watch/${matchId}`;
          return;
        }
        const seat = chosen.you;
        const joined = await asPlayer((options) => matches.joinMatch({ matchId, seat }, options), asOwner(created.ownerToken));
        holdSeat(matchId, { seat: joined.seat, token: joined.seatToken });
        location.hash = `#/play/${matchId}`;
      } catch (error) {
        alertError(describeError("create the match", error));
      } finally {
        submit.disabled = false;
      }
    })();
  });
  layout();
  return form;
}
