// Volta: the arena on a canvas. The viewer aims a flick by dragging on their
// steed (press on the side to push, drag the way to push it, farther for a
// harder flick) or with the form beside it, which the drag fills in; the
// Flick button plays it. Flicks play back from the server's frames. A hint is
// drawn as a dashed arrow over the canvas (an SVG overlay: where on the steed
// the finger pushes, which way, its length the impulse), with its words.
// The form sits beside the canvas on a wide screen and just under it on a
// phone, so the arena and the Flick button are in one view.
import { create } from "@bufbuild/protobuf";
import {
  type Action,
  ActionSchema,
  type ArenaPosition,
  type FlickOutcome,
  type GameView,
  RiderState,
  type SteedPose,
} from "../gen/meeple/v1/game_pb";
import type { FlickBounds } from "../gen/meeple/v1/rules_service_pb";
import { button, el, field, replace } from "../dom";
import { seatLook } from "../games";
import { flickText, sideName } from "../notation";
import type { Board, LastAction, Turn } from "./board";

const SIZE = 480; // canvas pixels
const SHOWN_RADII = 1.3; // the view reaches past the rim, to see steeds fall
const MARBLE_RADIUS_M = 0.008;
const FRAME_SECONDS = 0.02; // the server's frames: 50 a second
const DEGREE = Math.PI / 180;
// Side k's outward normal in the steed's own frame: +x, +y, -x, -y.
const NORMALS: readonly (readonly [number, number])[] = [[1, 0], [0, 1], [-1, 0], [0, -1]];
const DIRECTIONS = ["right", "up-right", "up", "up-left", "left", "down-left", "down", "down-right"];
const FALLBACK_BOUNDS = {
  offsetMin: -1, offsetMax: 1, angleMinRad: -0.675, angleMaxRad: 0.675, impulseMinNs: 0.012, impulseMaxNs: 0.1,
};

interface Aim {
  side: number;
  offset: number;
  angle: number; // radians from the side's inward normal
  impulse: number; // N s
}

type Bounds = Pick<FlickBounds, keyof typeof FALLBACK_BOUNDS>;

const rotate = (x: number, y: number, angle: number): [number, number] => [
  x * Math.cos(angle) - y * Math.sin(angle),
  x * Math.sin(angle) + y * Math.cos(angle),
];
const clamp = (value: number, low: number, high: number): number => Math.min(high, Math.max(low, value));

export function arenaBoard(): Board {
  const canvas = el("canvas", { width: SIZE, height: SIZE, class: "arena", role: "img" });
  const description = el("p", { class: "arena-description" });
  const playback = el("p", { class: "playback", role: "status" });
  const side = el("select", { name: "side" });
  const offset = el("input", { type: "range", name: "offset", step: 0.05 });
  const angle = el("input", { type: "range", name: "angle", step: 1 });
  const impulse = el("input", { type: "range", name: "impulse", step: 0.001 });
  const readout = el("output", { class: "aim-readout" });
  const flick = el("button", { type: "submit" }, "Flick");
  const form = el(
    "form",
    { class: "aim" },
    el(
      "fieldset",
      {},
      el("legend", {}, "Aim your flick (or drag on your steed)"),
      field("Side to push", side),
      field("Where along the side (-1 and 1 are its corners)", offset),
      field("Angle from straight in (degrees)", angle),
      field("Strength (N s)", impulse, "Too hard unseats your own rider."),
      readout,
      flick,
    ),
  );
  const skip = button("Skip playback", () => skipping?.abort(), { hidden: true });
  const overlay = svg("svg", { class: "arena-overlay", viewBox: `0 0 ${SIZE} ${SIZE}`, "aria-hidden": "true", focusable: "false" });
  const hintText = el("p", { class: "arena-hint" });
  const lastText = el("p", { class: "arena-last" });
  const element = el(
    "div",
    { class: "board arena-board" },
    el("div", { class: "arena-view" }, canvas, overlay),
    el(
      "div",
      { class: "arena-panel" },
      form,
      el("div", { class: "playback-row" }, playback, skip),
      hintText,
      lastText,
      description,
    ),
  );
  const context = canvas.getContext("2d")!;
  const hatch = stripes(context);
  let last: LastAction | null = null;
  let refocus = false;

  let view: GameView | null = null;
  let turn: Turn | null = null;
  let bounds: Bounds = FALLBACK_BOUNDS;
  let aim: Aim = { side: 2, offset: 0, angle: 0, impulse: 0.02 };
  let skipping: AbortController | null = null;
  let drag: { x: number; y: number } | null = null;

  const arena = (): ArenaPosition | null => (view?.position.case === "arena" ? view.position.value : null);
  const mover = (): number => turn?.legal.view?.seatToAct ?? view?.seatToAct ?? 0;
  const scale = (): number => SIZE / 2 / ((arena()?.arenaRadiusM ?? 0.12) * SHOWN_RADII);
  const toCanvas = (x: number, y: number): [number, number] => [SIZE / 2 + x * scale(), SIZE / 2 - y * scale()];
  const toWorld = (px: number, py: number): [number, number] => [(px - SIZE / 2) / scale(), (SIZE / 2 - py) / scale()];

  function setAim(next: Aim): void {
    aim = {
      side: next.side,
      offset: clamp(next.offset, bounds.offsetMin, bounds.offsetMax),
      angle: clamp(next.angle, bounds.angleMinRad, bounds.angleMaxRad),
      impulse: clamp(next.impulse, bounds.impulseMinNs, bounds.impulseMaxNs),
    };
    side.value = String(aim.side);
    offset.value = String(aim.offset);
    angle.value = String(Math.round(aim.angle / DEGREE));
    impulse.value = String(aim.impulse);
    readout.value = `side ${aim.side}, offset ${aim.offset.toFixed(2)}, angle ${(aim.angle / DEGREE).toFixed(0)}°, ${aim.impulse.toFixed(3)} N s`;
    draw(arena()?.steeds ?? []);
  }

  function fromForm(): void {
    setAim({
      side: Number(side.value),
      offset: Number(offset.value),
      angle: Number(angle.value) * DEGREE,
      impulse: Number(impulse.value),
    });
  }
  for (const input of [side, offset, angle, impulse]) input.addEventListener("input", fromForm);

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (!turn) return;
    const action: Action = create(ActionSchema, {
      kind: { case: "flick", value: { side: aim.side, offset: aim.offset, angleRad: aim.angle, impulseNs: aim.impulse } },
    });
    // The keyboard's place comes back to Flick on the next turn (the
    // fieldset is disabled meanwhile), without scrolling the page.
    refocus = document.activeElement === flick;
    turn.choose(action);
  });

  // Dragging: the press picks the side and the point on it, the drag the
  // direction and (by its length) the strength.
  const pointer = (event: PointerEvent): [number, number] => {
    const box = canvas.getBoundingClientRect();
    return toWorld(((event.clientX - box.left) * SIZE) / box.width, ((event.clientY - box.top) * SIZE) / box.height);
  };
  canvas.addEventListener("pointerdown", (event) => {
    const steed = arena()?.steeds[mover()];
    const half = (arena()?.steedSideM ?? 0.05) / 2;
    if (!turn || !steed) return;
    const [x, y] = pointer(event);
    const [lx, ly] = rotate(x - steed.xM, y - steed.yM, -steed.angleRad);
    if (Math.max(Math.abs(lx), Math.abs(ly)) > half * 1.4) return;
    const chosen = Math.abs(lx) >= Math.abs(ly) ? (lx >= 0 ? 0 : 2) : ly >= 0 ? 1 : 3;
    const [nx, ny] = NORMALS[chosen]!;
    const along = (-ny * lx + nx * ly) / half; // on the counter-clockwise tangent
    drag = { x, y };
    canvas.setPointerCapture(event.pointerId);
    setAim({ ...aim, side: chosen, offset: along, angle: 0 });
  });
  canvas.addEventListener("pointermove", (event) => {
    const steed = arena()?.steeds[mover()];
    if (!drag || !steed) return;
    const [x, y] = pointer(event);
    const [dx, dy] = rotate(x - drag.x, y - drag.y, -steed.angleRad);
    const length = Math.hypot(dx, dy);
    if (length < 0.002) return;
    const [nx, ny] = NORMALS[aim.side]!;
    const turned = Math.atan2(-nx * dy + ny * dx, -nx * dx - ny * dy); // from the inward normal
    const strength = clamp(length / (arena()!.arenaRadiusM * 0.6), 0, 1);
    setAim({ ...aim, angle: turned, impulse: bounds.impulseMinNs + strength * (bounds.impulseMaxNs - bounds.impulseMinNs) });
  });
  const release = (): void => {
    drag = null;
  };
  canvas.addEventListener("pointerup", release);
  canvas.addEventListener("pointercancel", release);

  function draw(steeds: readonly SteedPose[], showAim = turn !== null): void {
    const position = arena();
    if (!position) return;
    const s = scale();
    context.clearRect(0, 0, SIZE, SIZE);
    context.fillStyle = "#d9b382";
    context.beginPath();
    context.arc(SIZE / 2, SIZE / 2, position.arenaRadiusM * s, 0, 2 * Math.PI);
    context.fill();
    context.strokeStyle = "#7a5230";
    context.lineWidth = 3;
    context.stroke();
    steeds.forEach((steed, seat) => drawSteed(steed, seat, position, s));
    if (steeds === position.steeds) drawLast(position);
    if (showAim) drawAim(position);
  }

  function drawSteed(steed: SteedPose, seat: number, position: ArenaPosition, s: number): void {
    const half = position.steedSideM / 2;
    const [cx, cy] = toCanvas(steed.xM, steed.yM);
    context.save();
    context.globalAlpha = steed.onArena ? 1 : 0.45;
    context.translate(cx, cy);
    context.rotate(-steed.angleRad);
    context.fillStyle = seat === 0 ? "#2b6cb0" : "#dd6b20";
    context.fillRect(-half * s, -half * s, 2 * half * s, 2 * half * s);
    if (seat === 1) {
      context.fillStyle = hatch;
      context.fillRect(-half * s, -half * s, 2 * half * s, 2 * half * s);
    }
    context.strokeStyle = "#1a202c";
    context.lineWidth = 2;
    context.strokeRect(-half * s, -half * s, 2 * half * s, 2 * half * s);
    context.fillStyle = "#fff";
    context.font = `bold ${Math.round(half * s * 0.7)}px sans-serif`;
    context.textAlign = "center";
    context.textBaseline = "middle";
    context.fillText(String(seat + 1), -half * s * 0.55, -half * s * 0.55);
    context.restore();
    const [rx, ry] = toCanvas(steed.riderXM, steed.riderYM);
    context.beginPath();
    context.arc(rx, ry, MARBLE_RADIUS_M * s, 0, 2 * Math.PI);
    context.lineWidth = 2;
    context.strokeStyle = "#1a202c";
    if (steed.rider === RiderState.FALLEN) {
      context.stroke();
      context.beginPath();
      const r = MARBLE_RADIUS_M * s * 0.7;
      context.moveTo(rx - r, ry - r);
      context.lineTo(rx + r, ry + r);
      context.moveTo(rx + r, ry - r);
      context.lineTo(rx - r, ry + r);
      context.stroke();
    } else {
      context.fillStyle = steed.rider === RiderState.ROLLING ? "#faf089" : "#e2e8f0";
      context.fill();
      context.stroke();
    }
  }

  /** A flick's arrow on the canvas, tail to head: the head on the point of
   * the side pushed, pointing the way of the push, longer for a harder one. */
  function arrow(position: ArenaPosition, steed: SteedPose, flick: Aim): [number, number, number, number] {
    const half = position.steedSideM / 2;
    const [nx, ny] = NORMALS[flick.side] ?? NORMALS[0]!;
    const [tx, ty] = [-ny, nx];
    const [px, py] = rotate(half * nx + flick.offset * half * tx, half * ny + flick.offset * half * ty, steed.angleRad);
    const [dx, dy] = rotate(
      -nx * Math.cos(flick.angle) - tx * Math.sin(flick.angle),
      -ny * Math.cos(flick.angle) - ty * Math.sin(flick.angle),
      steed.angleRad,
    );
    const length = (flick.impulse / bounds.impulseMaxNs) * position.arenaRadiusM * 0.6;
    const [x0, y0] = toCanvas(steed.xM + px - dx * length, steed.yM + py - dy * length);
    const [x1, y1] = toCanvas(steed.xM + px, steed.yM + py);
    return [x0, y0, x1, y1];
  }

  function drawAim(position: ArenaPosition): void {
    const steed = position.steeds[mover()];
    if (!steed) return;
    const [x0, y0, x1, y1] = arrow(position, steed, aim);
    context.strokeStyle = "#c53030";
    context.fillStyle = "#c53030";
    context.lineWidth = 3;
    context.beginPath();
    context.moveTo(x0, y0);
    context.lineTo(x1, y1);
    context.stroke();
    context.beginPath();
    for (const [x, y] of arrowHead(x0, y0, x1, y1)) context.lineTo(x, y);
    context.closePath();
    context.fill();
  }

  /** The hint's arrow over the canvas (or none). */
  function drawHint(position: ArenaPosition | null, hinted: Aim | null): void {
    const steed = position?.steeds[mover()];
    if (!position || !steed || !hinted) {
      overlay.replaceChildren();
      return;
    }
    const [x0, y0, x1, y1] = arrow(position, steed, hinted);
    const head = arrowHead(x0, y0, x1, y1, 16)
      .map(([x, y], index) => `${index ? "L" : "M"}${x.toFixed(1)} ${y.toFixed(1)}`)
      .join("");
    overlay.replaceChildren(
      svg(
        "g",
        { class: "hint-arrow" },
        svg("path", { class: "hint-arrow-shaft", d: `M${x0.toFixed(1)} ${y0.toFixed(1)}L${x1.toFixed(1)} ${y1.toFixed(1)}` }),
        svg("path", { class: "hint-arrow-head", d: `${head}Z` }),
        svg("circle", { class: "hint-arrow-point", cx: x1.toFixed(1), cy: y1.toFixed(1), r: 5 }),
      ),
    );
  }

  /** A dashed ring around the steed flicked last, while its position shows. */
  function drawLast(position: ArenaPosition): void {
    const steed = last && last.seat !== undefined && view && last.ply + 1 === view.ply ? position.steeds[last.seat] : undefined;
    if (!steed || !steed.onArena) return;
    const [cx, cy] = toCanvas(steed.xM, steed.yM);
    context.save();
    context.setLineDash([6, 4]);
    context.strokeStyle = "#1a202c";
    context.lineWidth = 2;
    context.beginPath();
    context.arc(cx, cy, position.steedSideM * 0.85 * scale(), 0, 2 * Math.PI);
    context.stroke();
    context.restore();
  }

  function describeArena(current: GameView, position: ArenaPosition, hinted: Aim | null): void {
    const parts = position.steeds.map((steed, seat) => {
      const rider = steed.rider === RiderState.FALLEN ? "rider fallen" : "rider on";
      const place = steed.onArena ? `at ${(steed.xM * 100).toFixed(1)}, ${(steed.yM * 100).toFixed(1)} cm` : "off the arena";
      return `${seatLook(current, seat).name}'s steed (${seat === 0 ? "solid blue" : "striped orange"}) ${place}, turned ${Math.round(steed.angleRad / DEGREE)}°, ${rider}`;
    });
    const text = `${parts.join("; ")}. The arena's radius is ${(position.arenaRadiusM * 100).toFixed(0)} cm.`;
    const hint = hinted
      ? ` Hint drawn: push the ${flickText({ side: hinted.side, offset: hinted.offset, angleRad: hinted.angle, impulseNs: hinted.impulse })}.`
      : "";
    canvas.setAttribute("aria-label", text + hint);
    replace(description, text);
  }

  function sideOptions(position: ArenaPosition): void {
    const steed = position.steeds[mover()];
    const options = NORMALS.map(([nx, ny], index) => {
      const [wx, wy] = rotate(nx, ny, steed?.angleRad ?? 0);
      const compass = DIRECTIONS[(Math.round(Math.atan2(wy, wx) / (Math.PI / 4)) + 8) % 8];
      return el("option", { value: index, selected: index === aim.side }, `${sideName(index)} (side ${index}): faces ${compass}`);
    });
    side.replaceChildren(...options);
  }

  return {
    element,
    show(shown: GameView, shownTurn: Turn | null) {
      view = shown;
      turn = shownTurn;
      const position = arena();
      if (!position) return;
      const given = shownTurn?.legal.flickBounds;
      if (given) bounds = given;
      offset.min = String(bounds.offsetMin);
      offset.max = String(bounds.offsetMax);
      angle.min = String(Math.ceil(bounds.angleMinRad / DEGREE));
      angle.max = String(Math.floor(bounds.angleMaxRad / DEGREE));
      impulse.min = String(bounds.impulseMinNs);
      impulse.max = String(bounds.impulseMaxNs);
      form.querySelector("fieldset")!.disabled = shownTurn === null;
      if (shownTurn && refocus && (document.activeElement === document.body || document.activeElement === null)) {
        refocus = false;
        flick.focus({ preventScroll: true });
      }
      const hinted = shownTurn?.hint?.kind;
      sideOptions(position);
      const suggested =
        hinted?.case === "flick"
          ? { side: hinted.value.side, offset: hinted.value.offset, angle: hinted.value.angleRad, impulse: hinted.value.impulseNs }
          : null;
      setAim(drag ? aim : (suggested ?? aim)); // a drag under way keeps its aim
      drawHint(position, suggested);
      replace(
        hintText,
        suggested &&
          `Hint: push the ${flickText({ side: suggested.side, offset: suggested.offset, angleRad: suggested.angle, impulseNs: suggested.impulse })} (the dashed arrow; the aim is set to it).`,
      );
      describeArena(shown, position, suggested);
    },
    markLast(next: LastAction | null) {
      last = next;
      const flicked = next?.action.kind.case === "flick" ? next.action.kind.value : null;
      replace(
        lastText,
        flicked && `${seatLook(view ?? undefined, next!.seat ?? 0).name} flicked the ${flickText(flicked)}.`,
      );
    },
    async playBack(outcome: FlickOutcome, speed: number, signal: AbortSignal) {
      if (speed <= 0 || outcome.frames.length === 0) return;
      skipping = new AbortController();
      const stop = skipping.signal;
      overlay.replaceChildren();
      skip.hidden = false;
      const started = performance.now();
      const total = outcome.durationS;
      try {
        for (;;) {
          if (stop.aborted || signal.aborted) break;
          const elapsed = ((performance.now() - started) / 1000) * speed;
          const index = Math.min(outcome.frames.length - 1, Math.floor(elapsed / FRAME_SECONDS));
          draw(outcome.frames[index]!.steeds, false);
          replace(playback, `Playing the flick back: ${Math.min(elapsed, total).toFixed(2)} s of ${total.toFixed(2)} s`);
          if (index === outcome.frames.length - 1) break;
          await new Promise((resolve) => requestAnimationFrame(resolve));
        }
      } finally {
        skip.hidden = true;
        skipping = null;
        replace(playback, `Last flick: ${total.toFixed(2)} s${flickEvents(outcome, view)}`);
      }
    },
  };
}

function flickEvents(outcome: FlickOutcome, view: GameView | null): string {
  const names = outcome.events
    .map((event) => {
      const who = event.seat === undefined ? "" : `${seatLook(view ?? undefined, event.seat).name}'s `;
      return ["", "collision", `${who}rider fell`, `${who}steed fell off`][event.kind] ?? "";
    })
    .filter(Boolean);
  const point = outcome.pointTo === undefined ? "" : `; point to ${seatLook(view ?? undefined, outcome.pointTo).name}`;
  return `${names.length ? `: ${names.join(", ")}` : ""}${point}.`;
}

/** An arrowhead's three corners, its tip at (x1, y1). */
function arrowHead(x0: number, y0: number, x1: number, y1: number, size = 12): [number, number][] {
  const head = Math.atan2(y1 - y0, x1 - x0);
  return [
    [x1, y1],
    [x1 - size * Math.cos(head - 0.4), y1 - size * Math.sin(head - 0.4)],
    [x1 - size * Math.cos(head + 0.4), y1 - size * Math.sin(head + 0.4)],
  ];
}

/** An SVG element with attributes and children (the overlay's arrow). */
function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | number>,
  ...children: SVGElement[]
): SVGElementTagNameMap[K] {
  const element = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  element.append(...children);
  return element;
}

/** Diagonal stripes, so the second steed differs by more than its colour. */
function stripes(context: CanvasRenderingContext2D): CanvasPattern {
  const tile = document.createElement("canvas");
  tile.width = tile.height = 10;
  const pen = tile.getContext("2d")!;
  pen.strokeStyle = "rgba(255,255,255,0.55)";
  pen.lineWidth = 3;
  pen.beginPath();
  pen.moveTo(0, 10);
  pen.lineTo(10, 0);
  pen.stroke();
  return context.createPattern(tile, "repeat")!;
}
