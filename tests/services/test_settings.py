"""Settings: read from MEEPLE_* environment variables, checked, and listed
in the README with their true defaults."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

import pytest

from services.settings import Settings

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_environment_overrides_the_defaults() -> None:
    settings = Settings.from_env(
        {"MEEPLE_WAITING_TTL": "12.5", "MEEPLE_BOT_ATTEMPTS": "5", "MEEPLE_RATE_PER_SECOND": "off"}
    )
    assert (settings.waiting_ttl, settings.bot_attempts) == (12.5, 5)
    assert settings.rate_per_second is None
    assert Settings.from_env({}) == Settings()


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"MEEPLE_BOT_ATTEMPTS": "three"}, "MEEPLE_BOT_ATTEMPTS must be a whole number"),
        ({"MEEPLE_WAITING_TTL": "soon"}, "MEEPLE_WAITING_TTL must be a number"),
        ({"MEEPLE_WATCH_STREAMS": "0"}, "watch_streams must be >= 1"),
        ({"MEEPLE_SWEEP_INTERVAL": "-1"}, "sweep_interval must be > 0"),
        ({"MEEPLE_CLOCK_BASE": "100000"}, "clock_base must be at most clock_base_max"),
    ],
)
def test_bad_settings_say_which(environ: dict[str, str], expected: str) -> None:
    with pytest.raises(ValueError, match=expected):
        Settings.from_env(environ)


def test_the_readme_lists_every_setting_with_its_default() -> None:
    rows = dict(re.findall(r"^\| `(MEEPLE_\w+)` \| ([^|]+) \|", README.read_text(), re.MULTILINE))
    defaults = Settings()
    expected = {}
    for field in fields(Settings):
        value = getattr(defaults, field.name)
        if value is None:
            shown = "off"  # the table says "off" or "none"
        elif isinstance(value, str):
            shown = value
        elif float(value).is_integer():
            shown = str(int(value))
        else:
            shown = f"{value:g}"
        expected[f"MEEPLE_{field.name.upper()}"] = shown
    # The table also lists the command line's variables (MEEPLE_HOST, ...):
    # tests/deploy/test_environment.py checks those.
    listed = {
        name: "off" if value.strip() == "none" else value.strip()
        for name, value in rows.items()
        if name in expected
    }
    assert listed == expected
