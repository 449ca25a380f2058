"""The audit log file is inert to a terminal: a `cat` or `tail -f` of it acts on nothing a
tool input holds (DEL, C1 controls, bidi controls, line and paragraph separators are written
as JSON escapes), and every line still reads back as the same record, other text raw."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolhost import jsonfast
from toolhost.config.model import Origin
from toolhost.permissions.audit import AuditLog
from toolhost.permissions.decision import Decision

# what a terminal (or a viewer) acts on, spelled as UTF-8 would write it raw
ACTIVE = ["\x7f", "\x80", "\x85", "\x9b", "\x9d", "\x9f", "\u061c", "\u200e", "\u200f",
          "\u2028", "\u2029", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066",
          "\u2067", "\u2068", "\u2069"]
# readable text that stays as it is (no escape): accents, CJK, an emoji sequence with a
# zero-width joiner, characters next to the active ones in UTF-8
KEPT = ["é", "日本", "\U0001F468\u200d\U0001F469", "\xa0", "\u2010", "\u2030", "\u2065",
        "\u206a", "\u0600", "\u061b"]
ORIGIN = Origin("team.yaml", 3, 5, "permissions.deny[0]")


def _records(log: AuditLog, char: str) -> None:
    text = f"rm -rf ~ {char}[31m # {char}"
    log.record("Bash", {"command": text}, Decision("allow", rule="Bash", origin=ORIGIN))
    log.record(f"mcp__s__t{char}", {f"k{char}": [{"deep": text}], "n": 1},
               Decision("deny", f"Denied {char}.", rule="mcp__s__t", origin=ORIGIN),
               tool_use_id=f"toolu_{char}")
    log.record("Write", {"file_path": f"/tmp/{char}", "content": text},
               Decision("allow", updated_input={"content": text}, rule="Write",
                        origin=ORIGIN))
    log.record_stopped("Bash", {"command": text}, f"stopped {char}", tool_use_id="t")


@pytest.fixture(params=["fast", "standard"])
def encoder(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "standard":  # the standard library's path (no orjson, or refused)
        monkeypatch.setattr(jsonfast, "dumps", lambda *a, **k: jsonfast.NOT_FAST)
    return str(request.param)


@pytest.mark.parametrize("char", ACTIVE, ids=[f"U+{ord(c):04X}" for c in ACTIVE])
def test_what_a_terminal_acts_on_is_escaped_in_the_file(tmp_path: Path, char: str,
                                                         encoder: str) -> None:
    path = tmp_path / "audit.jsonl"
    log = AuditLog(str(path))
    _records(log, char)
    log.close()
    raw = path.read_bytes()
    assert char.encode() not in raw
    escape = f"\\u{ord(char):04x}".encode()
    assert escape in raw
    lines = raw.decode("utf-8").split("\n")
    assert lines[-1] == "" and len(lines) == 5  # one line a record, nothing split
    entries: list[dict[str, Any]] = [json.loads(line) for line in lines[:-1]]
    assert entries[0]["arguments"]["command"] == f"rm -rf ~ {char}[31m # {char}"
    assert entries[1]["tool"] == f"mcp__s__t{char}"
    assert entries[1]["arguments"][f"k{char}"][0]["deep"].endswith(char)
    assert entries[1]["message"] == f"Denied {char}."
    assert entries[1]["tool_use_id"] == f"toolu_{char}"
    assert entries[2]["updatedInput"]["content"].startswith("rm -rf ~ " + char)
    assert entries[3]["message"] == f"stopped {char}"


def test_the_same_escapes_with_a_redaction_that_hides_a_secret(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    log = AuditLog(str(path), lambda text: text.replace("hunter2", "***"), plain=lambda: False)
    log.record("Bash", {"command": "echo hunter2 \u202e\x9b2J"},
               Decision("allow", rule="Bash", origin=ORIGIN))
    log.close()
    raw = path.read_bytes()
    assert b"\\u202e" in raw and b"\\u009b" in raw and b"hunter2" not in raw
    assert json.loads(raw)["arguments"]["command"] == "echo *** \u202e\x9b2J"


@pytest.mark.parametrize("text", KEPT, ids=[f"U+{ord(c[0]):04X}" for c in KEPT])
def test_readable_text_stays_raw(tmp_path: Path, text: str, encoder: str) -> None:
    path = tmp_path / "audit.jsonl"
    log = AuditLog(str(path))
    log.record("Bash", {"command": f"echo {text}"}, Decision("allow", rule="Bash",
                                                             origin=ORIGIN))
    log.close()
    raw = path.read_bytes()
    assert f"echo {text}".encode() in raw
    assert json.loads(raw)["arguments"]["command"] == f"echo {text}"


def test_a_lone_surrogate_beside_an_active_character(tmp_path: Path, encoder: str) -> None:
    path = tmp_path / "audit.jsonl"
    log = AuditLog(str(path))
    log.record("Bash", {"command": "\ud800 \u202e é"}, Decision("deny", "no"))
    log.close()
    raw = path.read_bytes()
    assert "\u202e".encode() not in raw
    assert json.loads(raw)["arguments"]["command"] == "\ud800 \u202e é"
