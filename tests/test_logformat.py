"""TOOLHOST_LOG_FORMAT=json: every log line on stderr is one JSON object, secrets scrubbed."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from toolhost.logformat import line_level


def test_json_log_lines_are_objects_and_scrubbed(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nservers:\n  s:\n    tools:\n"
                      "      t: {command: [echo, '${TOKEN}']}\n")
    env = {**os.environ, "TOOLHOST_LOG_FORMAT": "json", "TOKEN": "sekrit-value-123"}
    init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}}) + "\n"
    done = subprocess.run([sys.executable, "-m", "toolhost", "-v", "serve", str(config)],
                          input=init, capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    logged = [line for line in done.stderr.splitlines() if line.startswith("{")]
    assert logged, done.stderr
    for line in logged:
        entry = json.loads(line)
        assert set(entry) >= {"time", "level", "logger", "message"}
    assert "sekrit-value-123" not in done.stderr


def test_the_default_stays_text() -> None:
    from toolhost.logformat import JsonFormatter, log_format

    assert not isinstance(log_format({}), JsonFormatter)
    assert isinstance(log_format({"TOOLHOST_LOG_FORMAT": " JSON "}), JsonFormatter)


@pytest.mark.parametrize(("line", "level"), [
    ("error: disk full", logging.ERROR), ("FATAL boom", logging.ERROR),
    ("Traceback (most recent call last):", logging.ERROR), ("  warning: slow", logging.WARNING),
    ("WARN cache cold", logging.WARNING), ("debug: x=1", logging.DEBUG),
    ("errors are counted", logging.INFO), ("compiling", logging.INFO), ("", logging.INFO)])
def test_the_first_word_of_another_program_s_line_names_its_level(line: str, level: int) -> None:
    assert line_level(line) == level


def test_a_multiline_records_lines_are_shown_under_it_indented_and_escaped() -> None:
    from toolhost.logformat import MULTILINE, JsonFormatter, TextFormatter

    detail = "diff --git a/x b/x\n-old\n+new \x1b[2J\rfake: error\n" + "+more\n" * 300
    record = logging.LogRecord("toolhost.config", logging.WARNING, __file__, 1,
                               "f.yaml:3:5: changed\n%s", (detail,), None)
    setattr(record, MULTILINE, True)
    lines = TextFormatter().format(record).split("\n")
    assert lines[0] == "toolhost: WARNING: f.yaml:3:5: changed"
    assert lines[1:4] == ["    diff --git a/x b/x", "    -old", "    +new \\x1b[2J\\rfake: error"]
    assert all(line.startswith("    ") for line in lines[1:])
    assert len(lines) == 1 + 200 + 1 and lines[-1] == "    ...103 more lines"
    # JSON and an embedding program's formatter get the message as it is
    assert json.loads(JsonFormatter().format(record))["message"].endswith(detail.rstrip("\n")
                                                                          + "\n")
    plain = logging.LogRecord("t", logging.INFO, __file__, 1, "m\nforged", None, None)
    assert TextFormatter().format(plain) == "toolhost: INFO: m\\nforged"  # no mark: one line


def test_a_text_log_line_and_its_traceback_cannot_act_on_a_terminal() -> None:
    from toolhost.logformat import TextFormatter

    hostile = "\x1b]52;c;ZXZpbA==\x07\x1b[2J\u009b31m\u202eevil\u202c\u200b\rfake"
    try:
        raise ValueError(hostile)
    except ValueError:
        record = logging.LogRecord("evil", logging.ERROR, __file__, 1, "said %s", (hostile,),
                                   sys.exc_info(), sinfo="Stack (most recent call last):\n"
                                   + hostile)
    shown = TextFormatter().format(record)
    assert "\\x1b]52;c;ZXZpbA==\\x07\\x1b[2J\\x9b31m\\u202eevil\\u202c\\u200b\\rfake" in shown
    assert shown.count("ValueError: \\x1b]52") == 1
    assert not [c for c in shown if c != "\n" and not c.isprintable()], shown
    assert "\ttab" in TextFormatter().format(logging.LogRecord(
        "t", logging.INFO, __file__, 1, "a\ttab", (), None))


HOSTILE = ("\x1b]52;c;ZXZpbA==\x07\x1b[2J\u009b31m\u0085\u202eevil\u202c\u2066\u200b\u2028"
           "\u2029\x7f\ud800\U000e0041\u3164\u034f\rfake")


def test_a_json_log_line_holds_nothing_a_terminal_acts_on_and_says_the_same() -> None:
    # It wrote C1 controls (8-bit CSI U+009B, NEL), DEL, bidi overrides, line separators,
    # zero-width and tag characters and lone surrogates as they were: a log collector's reader
    # (``tail -f``) is a terminal too. Now each is JSON's \uXXXX, the same value once parsed.
    from toolhost.logformat import JsonFormatter

    try:
        raise ValueError(HOSTILE)
    except ValueError:
        record = logging.LogRecord("evil", logging.ERROR, __file__, 1, "said %s \u65e5 \u200d",
                                   (HOSTILE,), sys.exc_info())
    line = JsonFormatter().format(record)
    assert line.replace("\u200d", "").isprintable(), line  # (the emoji joiner stays)
    assert "\\u009b" in line and "\\u202e" in line
    assert "\\udb40\\udc41" in line and "\\ud800" in line and "\u65e5" in line  # text stays
    entry = json.loads(line)
    assert entry["message"] == f"said {HOSTILE} \u65e5 \u200d"
    assert entry["exception"].endswith(f"ValueError: {HOSTILE}")
