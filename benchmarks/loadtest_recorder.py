"""The load generator's hot path: one latency sample recorded by
``meeple loadtest``'s Recorder (into the run's, the game's and the
interval's histograms), against the baseline of one bare HDR histogram
``record_value`` measured in the same run. The ratio is what the time
series and the per-game figures cost per sample."""

from __future__ import annotations

import itertools

from timing import rate

from services.loadtest.recorder import Recorder, histogram, microseconds

SECONDS = 1.0


def main() -> None:
    bare = histogram()
    values = itertools.cycle([microseconds(ms / 1000) for ms in range(1, 200)])

    def baseline(n: int) -> None:
        for _ in range(n):
            bare.record_value(next(values))

    recorder = Recorder()
    recorder.start()
    games = itertools.cycle(["rolit", "othello", "volleyball", "volta"])
    seconds = itertools.cycle([ms / 1000 for ms in range(1, 200)])

    def recorded(n: int) -> None:
        for _ in range(n):
            recorder.record("SubmitAction", next(seconds), next(games))

    base = rate(baseline, SECONDS)
    ours = rate(recorded, SECONDS)
    print(f"bare HdrHistogram.record_value: {base:,.0f} samples/s")
    print(f"Recorder.record (run, game, interval): {ours:,.0f} samples/s")
    cost = base / ours
    print(f"ratio: {ours / base:.2f}x the bare histogram (a sample costs {cost:.1f} records)")


if __name__ == "__main__":
    main()
