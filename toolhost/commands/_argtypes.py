"""argparse ``type=`` functions for the numeric flags of every command.

Each refuses a bad value up front with one line and argparse's exit status 2, so nothing
downstream meets a value it cannot use (``nan``, a negative or zero interval, a number too
large to convert, a port outside 0..65535).
"""

from __future__ import annotations

import argparse
import math
import re

from toolhost.limits import parse_size

__all__ = ["MAX_SECONDS", "MIN_INTERVAL", "Once", "interval", "non_empty", "port",
           "positive_int", "seconds", "server_key", "server_key_problem", "size"]

MAX_SECONDS = 86400 * 365
MIN_INTERVAL = 0.05  # a shorter poll interval is a busy loop of stat calls
MAX_COUNT = 2**31 - 1
_DIGITS = 20  # more digits than any count or size here needs; int() of 5,000 digits raises


_SERVER_KEY = re.compile(r"^[a-z][a-z0-9-]{0,39}\Z")


def server_key_problem(name: str) -> str:
    """Why ``name`` cannot be the server's name or key in a client's config ("" if it can):
    it becomes part of every tool's wire name (``mcp__<name>__<tool>``), so it is lowercase
    letters, digits and single dashes, starting with a letter, at most 40 characters (the
    wire name has 64). ``init --name``, ``install --name`` and ``mcp-config --name``."""
    if _SERVER_KEY.match(name) and "--" not in name:
        return ""
    near = key_like(name)
    return (f"--name {name[:60]!r}: use lowercase letters, digits and single dashes, starting "
            "with a letter (at most 40)" + (f"; e.g. --name {near}" if near else ""))


def key_like(name: str) -> str:
    """The valid server key closest to ``name`` ("My Shop!" -> "my-shop"); "" if it has
    no letter to start with."""
    import unicodedata

    # accents dropped, not the letters they sit on: "Ünïcode" -> "unicode" (was "n-code")
    plain = "".join(c for c in unicodedata.normalize("NFKD", name[:1000])
                    if not unicodedata.combining(c))
    words = re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-")
    words = re.sub(r"^[^a-z]+", "", words)[:40].rstrip("-")
    return words if _SERVER_KEY.match(words) else ""


def server_key(text: str) -> str:
    """The ``--name`` flag of ``install`` and ``mcp-config``: see :func:`server_key_problem`."""
    problem = server_key_problem(text)
    if problem:
        said, _, near = problem.removeprefix(f"--name {text[:60]!r}: ").partition("; ")
        raise argparse.ArgumentTypeError(f"{said}, got {text[:60]!r}"
                                         + (f" ({near})" if near else ""))
    return text


def size(text: str) -> int:
    """A size flag: ``4096``, ``512KiB``, ``32MiB``."""
    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def positive_int(text: str) -> int:
    """A count flag: a whole number from 1 to 2,147,483,647."""
    stripped = text.strip()
    try:
        # a bound on the length first: int() of thousands of digits is slow, then refused
        value = int(stripped) if len(stripped) <= _DIGITS else MAX_COUNT + 1
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text[:40]!r}") from None
    if value > MAX_COUNT:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_COUNT:,}, got {text[:40]}")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _number(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of {what}: {text[:40]!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number of {what}, got {text[:40]}")
    return value


def seconds(text: str) -> float:
    """A timeout flag: a number of seconds above 0 and below a year."""
    value = _number(text, "seconds")
    if not 0 < value < MAX_SECONDS:
        raise argparse.ArgumentTypeError(
            f"must be a positive number of seconds below {MAX_SECONDS:,}, got {text[:40]}")
    return value


def interval(text: str) -> float:
    """A poll interval flag: at least ``MIN_INTERVAL`` seconds, below a year."""
    value = _number(text, "seconds")
    if not MIN_INTERVAL <= value < MAX_SECONDS:
        raise argparse.ArgumentTypeError(
            f"must be from {MIN_INTERVAL:g} to {MAX_SECONDS:,} seconds, got {text[:40]}")
    return value


def port(text: str) -> int:
    """A TCP port flag: 0..65535 (0 picks a free port)."""
    stripped = text.strip()
    if not stripped.isascii() or not stripped.lstrip("+-").isdigit() or len(stripped) > 12:
        raise argparse.ArgumentTypeError(f"not a port number: {text[:40]!r}")
    value = int(stripped)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535, got {value}")
    return value


class Once(argparse.Action):
    """A flag that holds one value and is given at most once: a second one is a usage error
    (exit 2) instead of silently replacing the first, for flags whose value is the thing
    decided or run (``permissions check --input``, ``run -p``), where the one dropped is
    as likely the one meant."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        given: set[str] = namespace.__dict__.setdefault("_given_once", set())
        if self.dest in given:
            parser.error(f"argument {'/'.join(self.option_strings)}: given twice; give it "
                         "once (the second would silently replace the first)")
        given.add(self.dest)
        setattr(namespace, self.dest, values)


def non_empty(text: str) -> str:
    """A name argument that may not be empty (``''`` from an unset shell variable)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"empty: {text!r} names nothing (an unset shell "
                                         "variable?)")
    return text
