// An optional sound when the viewer's turn begins: a short beep made with
// WebAudio (no audio file), off unless the "Sound on my turn" box is ticked,
// which this browser remembers.
import { el, field } from "./dom";

export const SOUND_KEY = "meeple:sound-on-turn";

let context: AudioContext | null = null;

export function soundOn(): boolean {
  return localStorage.getItem(SOUND_KEY) === "1";
}

function audio(): AudioContext | null {
  if (context === null && typeof AudioContext !== "undefined") {
    try {
      context = new AudioContext();
    } catch {
      return null;
    }
  }
  return context;
}

/** The "Sound on my turn" checkbox, with its label. */
export function soundToggle(): HTMLElement {
  const box = el("input", { type: "checkbox", name: "sound-on-turn", checked: soundOn() });
  box.addEventListener("change", () => {
    localStorage.setItem(SOUND_KEY, box.checked ? "1" : "0");
    // A click may start audio: ready it now, for the turn to come.
    if (box.checked) void audio()?.resume().catch(() => undefined);
  });
  return field("Sound on my turn", box);
}

/** Beeps once (about 0.15 s), when the viewer asked for it. */
export function turnBeep(): void {
  if (!soundOn()) return;
  const sound = audio();
  if (!sound) return;
  void sound.resume().catch(() => undefined);
  const tone = sound.createOscillator();
  const gain = sound.createGain();
  tone.type = "sine";
  tone.frequency.value = 880;
  const now = sound.currentTime;
  gain.gain.setValueAtTime(0.0001, now);
  gain.gain.exponentialRampToValueAtTime(0.2, now + 0.01);
  gain.gain.exponentialRampToValueAtTime(0.0001, now + 0.15);
  tone.connect(gain).connect(sound.destination);
  tone.start(now);
  tone.stop(now + 0.16);
}
