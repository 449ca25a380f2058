"""A corpus of hostile values through argv templates of every shape, run as real processes.

The programs are recorders named like option-reading programs (git, tar, curl, find, rsync,
sort, grep, ssh): each prints the argv it received, NUL-separated. For every template and
value the call is either refused (a value that would start an argument with '-', '+' or '@'
-- vi's '+cmd', gcc's '@file' -- where the program reads options) or the program received
exactly the expected argv: every supplied value once, at its position, nothing dropped,
shifted or added.
"""

from __future__ import annotations

import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools

from .test_command_backend import Config, cmd

HOSTILE = [
    "", " ", "a b", "x\ny", "\t", "*", "~", "$HOME", "$(id)", "`id`", "; id", "| id", "&& id",
    "'", '"', "\\", "{{ 7*7 }}", "{% raw %}", "é", "\u202e", "a" * 5000, "-", "--", "-5",
    "-rf", "-e", "-K/etc/passwd", "--output=/tmp/pwned", "--use-compress-program=id",
    "-oProxyCommand=id", "--upload-pack=id", "-exec", "-delete", "--exclude=*", "-o/tmp/x",
    "--", "-n", "--help", "-\n", " -x", "x-", "=", "--=", "-0", "-1e9", "+x", "@file",
    "/etc/passwd", "../../etc/passwd", "C:\\x", "\x1b[31m", "+", "@", "+1", "+call system('id')",
    "@/tmp/opts", "+-x", "@-", "x+", "x@y", "evil.example:/etc/passwd", "rsync://h/m",
]

Expect = Callable[[dict[str, Any]], "list[str] | None"]  # None: must be refused


def dash(*values: Any) -> bool:
    """A value some program reads as an option: '-x', '+cmd' (vi, sort, tail), '@file'."""
    return any(isinstance(v, str) and v.startswith(("-", "+", "@")) for v in values)


def remote(value: str) -> bool:
    """A value scp, rsync or tar reads as another host's file ('host:path')."""
    colon = value.find(":")
    return colon >= 0 and "/" not in value[:colon]


def other_scheme(value: str) -> bool:
    """A URL of a scheme other than http(s) (curl would read a file, or use ssh)."""
    scheme, sep, _ = value.partition("://")
    return bool(sep and re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*", scheme)
                and scheme.lower() not in ("http", "https"))


def templates() -> dict[str, tuple[list[Any], dict[str, Any], Expect]]:
    """name -> (argv after the program name, extra tool fields, expected argv for a value)."""
    return {
        "git": (["log", "-n", "{{ n }}", "--", "{{ path }}"],
                {"params": {"n": {"type": "integer"}, "path": {"type": "string"}}},
                lambda a: ["log", "-n", "3", "--", a["path"]]),
        "tar": (["-tf", "{{ archive }}", "{{ member }}"], {},
                lambda a: None if dash(a["archive"], a["member"])
                else ["-tf", a["archive"], a["member"]]),
        "curl": (["-sS", "--max-time", "5", "{{ url }}"], {},
                 # a line break would reach the request head (curl refuses it in a URL)
                 lambda a: None if dash(a["url"]) or other_scheme(a["url"])
                 or "\r" in a["url"] or "\n" in a["url"]
                 else ["-sS", "--max-time", "5", a["url"]]),
        "find": (["{{ dir }}", "-name", "{{ pattern }}", "-type", "f"], {},
                 lambda a: None if dash(a["dir"], a["pattern"])
                 else [a["dir"], "-name", a["pattern"], "-type", "f"]),
        "rsync": (["-a", {"if": "exclude", "argv": ["--exclude={{ exclude }}"]}, "--",
                   "{{ src }}", "{{ dst }}"],
                  {"params": {"exclude": {"type": "string"}, "src": {"type": "string"},
                              "dst": {"type": "string"}}, "required": ("src", "dst")},
                  lambda a: None if remote(a["src"])
                  else ["-a", f"--exclude={a['exclude']}", "--", a["src"], a["dst"]]),
        "sort": ([{"if": "out", "argv": ["-o", "{{ out }}"]}, "{{ files }}"],
                 {"params": {"out": {"type": "string"},
                             "files": {"type": "array", "items": {"type": "string"}}},
                  "required": ("files",)},
                 lambda a: None if dash(a["out"], *a["files"])
                 else ["-o", a["out"], *a["files"]]),
        "grep": (["-n", "-e", "{{ pattern }}", "--", "{{ files }}"],
                 {"params": {"pattern": {"type": "string"},
                             "files": {"type": "array", "items": {"type": "string"}}},
                  "options": {"allow_dash": ["pattern"]}},
                 lambda a: ["-n", "-e", a["pattern"], "--", *a["files"]]),
        "ssh": (["-o", "BatchMode=yes", "{{ host }}", "uptime"], {},
                lambda a: None if dash(a["host"]) else ["-o", "BatchMode=yes", a["host"],
                                                        "uptime"]),
        "gitgrep": (["grep", {"each": "pats", "argv": ["-e", "{{ item }}"]}, "--",
                     "{{ path }}.txt"],
                    {"params": {"pats": {"type": "array", "items": {"type": "string"}},
                                "path": {"type": "string"}},
                     "options": {"allow_dash": ["pats"]}},
                    lambda a: ["grep", *[x for p in a["pats"] for x in ("-e", p)], "--",
                               f"{a['path']}.txt"]),
        "glued": (["--output={{ out }}", "-o{{ out }}", "{{ out }}.log"], {},
                  lambda a: None if dash(a["out"])
                  else [f"--output={a['out']}", f"-o{a['out']}", f"{a['out']}.log"]),
    }


def arguments(name: str, value: str) -> dict[str, Any]:
    return {"git": {"n": 3, "path": value}, "tar": {"archive": "a.tar", "member": value},
            "curl": {"url": value}, "find": {"dir": ".", "pattern": value},
            "rsync": {"exclude": value, "src": value, "dst": "d"},
            "sort": {"out": value, "files": ["a", value, ""]},
            "grep": {"pattern": value, "files": [value, "b"]},
            "ssh": {"host": value}, "gitgrep": {"pats": [value, "x"], "path": value},
            "glued": {"out": value}}[name]


@pytest.fixture
def recorders(tmp_path: Path) -> Path:
    for name in ("git", "tar", "curl", "find", "rsync", "sort", "grep", "ssh", "glued"):
        path = tmp_path / name
        path.write_text("#!/bin/sh\nprintf '%s\\0' \"$@\"\n")
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return tmp_path


def build(config: Config, recorders: Path) -> Any:
    tools = {}
    for name, (argv, extra, _) in templates().items():
        program = str(recorders / ("git" if name == "gitgrep" else name))
        extra = dict(extra)
        options = extra.pop("options", {})
        tools[name] = cmd([program, *argv], options=options, **extra)
    return compile_tools(config(tools))


async def check(compiled: Any, name: str, value: str) -> None:
    args = arguments(name, value)
    expected = templates()[name][2](args)
    result = await compiled.tool("demo", name).call(args, CallContext())
    if expected is None:
        assert result.is_error, (name, value, result)
        assert result.text_content.startswith("Refused to run the command: the value ")
        return
    assert not result.is_error, (name, value, result)
    received = result.text_content.split("\0")
    assert received[-1] == "" and received[:-1] == expected, (name, value)


@pytest.mark.anyio
@pytest.mark.parametrize("name", list(templates()))
async def test_hostile_corpus(config: Config, recorders: Path, name: str) -> None:
    compiled = build(config, recorders)
    try:
        for value in HOSTILE:
            await check(compiled, name, value)
    finally:
        await compiled.aclose()


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=st.tuples(st.sampled_from(["", "-", "+", "@", "--", " "]),
                      st.text(st.characters(codec="utf-8", exclude_characters="\x00"),
                              max_size=30)).map("".join),
       name=st.sampled_from(["tar", "sort", "grep", "rsync", "gitgrep", "glued"]))
def test_property_values_arrive_once_in_place_never_as_options(
        config: Config, recorders: Path, value: str, name: str) -> None:
    async def one() -> None:
        compiled = build(config, recorders)
        try:
            await check(compiled, name, value)
        finally:
            await compiled.aclose()

    anyio.run(one)
