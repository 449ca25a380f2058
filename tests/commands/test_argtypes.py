"""Numeric flags of every command: a bad value is refused by argparse, up front, in one line."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from toolhost.commands import _argtypes as types
from toolhost.limits import MAX_SIZE, parse_size

ROOT = Path(__file__).parent.parent.parent
DEMO = str(ROOT / "examples" / "configs" / "demo.yaml")
HUGE = "9" * 400


@pytest.mark.parametrize("text", [HUGE, HUGE + "GiB", "9" * 5000, "99999999999999GiB",
                                  "1" + "0" * 30 + ".5k", "2TiB", "1025GiB", "0", "0.1",
                                  "0.0000001k", "-5", "nan", "inf", "1e9", "", "12 parsecs",
                                  "0." + "5" * 5000])
def test_a_size_out_of_range_or_malformed_is_a_value_error(text: str) -> None:
    with pytest.raises(ValueError) as err:
        parse_size(text)
    assert len(str(err.value)) < 120  # one short line, whatever the input


@pytest.mark.parametrize(("text", "size"), [("4096", 4096), ("512KiB", 512 * 1024),
                                            ("0.5k", 512), ("1TiB", MAX_SIZE),
                                            ("1024GiB", MAX_SIZE),
                                            ("00000000000000000000000032MiB", 32 << 20),
                                            ("1." + "0" * 5000 + "k", 1024)])
def test_a_size_in_range_is_read(text: str, size: int) -> None:
    assert parse_size(text) == size  # 1TiB too: the unit the limit's message is written in


@pytest.mark.parametrize("text", ["nan", "inf", "-inf", "-1", "0", "0.01", HUGE, "1e400",
                                  "31536000", "x", ""])
def test_a_bad_interval_is_refused(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        types.interval(text)


@pytest.mark.parametrize("text", ["nan", "inf", "-1", "0", HUGE, "1e400", "x"])
def test_bad_seconds_are_refused(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        types.seconds(text)


@pytest.mark.parametrize("text", ["0", "-1", "1.5", HUGE, "9" * 5000, "2147483648", "x", "nan"])
def test_a_bad_count_is_refused(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError) as err:
        types.positive_int(text)
    assert len(str(err.value)) < 120


@pytest.mark.parametrize("text", ["-1", "-5", "65536", "99999", HUGE, "9" * 5000, "x", "1.0",
                                  "0x50", "８０"])
def test_a_bad_port_is_refused(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        types.port(text)


def test_good_values_pass() -> None:
    assert types.port("0") == 0 and types.port("65535") == 65535
    assert types.interval("0.05") == 0.05 and types.interval("2") == 2.0
    assert types.seconds("0.5") == 0.5
    assert types.positive_int(" 7 ") == 7 and types.positive_int("1_000") == 1000


def _toolhost(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolhost", *args], capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("flags", [
    ["serve", DEMO, "--all", "--max-message", HUGE],
    ["serve", DEMO, "--all", "--max-argument", HUGE + "GiB"],
    ["serve", DEMO, "--all", "--max-depth", "9" * 5000],
    ["serve", DEMO, "--all", "--watch", "--watch-interval", "nan"],
    ["serve", DEMO, "--all", "--watch", "--watch-interval", "-1"],
    ["serve", DEMO, "--all", "--watch", "--watch-interval", "0"],
    ["serve", DEMO, "--all", "--transport", "http", "--port", "99999"],
    ["serve", DEMO, "--all", "--transport", "http", "--port", "-5"],
    ["run", DEMO, "-p", "hi", "--max-turns", "0"],
    ["run", DEMO, "-p", "hi", "--max-turns", HUGE],
    ["run", DEMO, "-p", "hi", "--watch", "--watch-interval", "inf"],
])
def test_the_command_line_refuses_bad_numbers_with_usage_exit_2(flags: list[str]) -> None:
    proc = _toolhost(*flags)
    assert proc.returncode == 2, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert "error: argument --" in last and len(last) < 200, last
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    assert "serving" not in proc.stderr
