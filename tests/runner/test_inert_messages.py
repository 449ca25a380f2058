"""Every message the Claude CLI sends that ``toolhost run`` shows reaches a real terminal
inert: model text, tool calls (names, arguments), results, a permission question's name and
input, the session line, progress and retry lines, the turn's end line and its hint, and
the CLI's stderr. Read from the pseudo-terminal's master end, toolhost's own colours aside."""

from __future__ import annotations

import os
import re
from pathlib import Path

from tests.runner.cli_harness import ECHO_CONFIG, FAKE_CLI_HEAD, at_terminal, read_until
from tests.runner.test_inert_terminal import OWN, _rest

# OSC 52 (the clipboard), OSC 8 (a link), DCS, clear screen, cursor up, an 8-bit CSI, a bidi
# override, a zero-width space, a backspace, a carriage return, NEL, a line separator, a
# string terminator (C1), an APC, a Unicode tag character
HOSTILE = (r"\x1b]52;c;ZXZpbA==\x07\x1b]8;;http://e.vil/\x1b\\L\x1b]8;;\x1b\\"
           r"\x1bPq#0\x1b\\\x1b[2J\x1b[1A\u009b31m\u202eevil\u202c\u200bzw\x08B\rCR"
           r"\u0085\u2028\u009c\x1b_apc\x1b\\\U000e0041")

CLI = FAKE_CLI_HEAD + f'''
    elif m.get("type") == "control_response" and m["response"]["request_id"] == "q":
        send({{{{"type": "user", "message": {{{{"role": "user", "content": [{{{{
              "type": "tool_result", "tool_use_id": "t1{HOSTILE}",
              "content": "RES{HOSTILE}", "is_error": True}}}}]}}}}}}}})
        send({{{{"type": "tool_progress", "heartbeat": True, "tool_name": "P{HOSTILE}",
              "elapsed_time_seconds": "E{HOSTILE}"}}}})
        send({{{{"type": "system", "subtype": "api_retry", "attempt": "A{HOSTILE}",
              "max_retries": "M{HOSTILE}", "retry_delay_ms": "D{HOSTILE}",
              "error_status": "S{HOSTILE}"}}}})
        send({{{{"type": "result", "subtype": "error_max_turns{HOSTILE}", "is_error": True,
              "result": "R{HOSTILE}", "errors": ["ERR{HOSTILE}"], "num_turns": "N{HOSTILE}",
              "terminal_reason": "T{HOSTILE}", "duration_ms": "d{HOSTILE}", "uuid": "u"}}}})
        send({{{{"type": "result", "subtype": "error_max_turns", "is_error": True,
              "result": "R{HOSTILE}", "errors": ["ERR{HOSTILE}"], "uuid": "u"}}}})
        sys.stderr.write("STDERR{HOSTILE}END\\n")
        sys.stderr.flush()
        sys.exit(3)
    elif m.get("type") == "user":
        send({{{{"type": "system", "subtype": "init", "model": "MODEL{HOSTILE}",
              "permissionMode": "default", "claude_code_version": "9.9.9{HOSTILE}",
              "mcp_servers": [{{{{"name": "SRV{HOSTILE}", "status": "ST{HOSTILE}"}}}}],
              "tools": ["mcp__s__echo{HOSTILE}"]}}}})
        send({{{{"type": "assistant", "message": {{{{"id": "m{HOSTILE}", "content": [
              {{{{"type": "thinking", "thinking": "TH{HOSTILE}"}}}},
              {{{{"type": "text", "text": "TXT{HOSTILE}"}}}},
              {{{{"type": "tool_use", "id": "t1{HOSTILE}", "name": "mcp__s__echo{HOSTILE}",
                "input": {{{{"text{HOSTILE}": "ARG{HOSTILE}", "n": [1, "L{HOSTILE}"]}}}}}}}}]}}}},
              "error": "authentication_failed{HOSTILE}"}}}})
        send({{{{"type": "control_request", "request_id": "q", "request": {{{{
              "subtype": "can_use_tool", "tool_name": "mcp__s__echo{HOSTILE}",
              "input": {{{{"text{HOSTILE}": "Q{HOSTILE}"}}}}, "tool_use_id": "t1{HOSTILE}",
              "decision_reason": "DR{HOSTILE}", "title": "TI{HOSTILE}",
              "description": "DE{HOSTILE}"}}}}}}}})
'''

CONFIG = ECHO_CONFIG + "permissions:\n  default: ask\n"


def test_every_message_the_cli_sends_reaches_the_terminal_inert(tmp_path: Path) -> None:
    with at_terminal(tmp_path, CONFIG, CLI) as (process, master):
        before = read_until(master, "> ").encode()
        os.write(master, b"go\n")
        question = read_until(master, "Allow?")
        os.write(master, b"y\r")
        data = before + question.encode() + _rest(master, process)
    text = OWN.sub(b"", data).decode()
    assert "TXT" in text and "RES" in text and "STDERR" in text, text
    controls = [c for c in text if c not in "\r\n" and not c.isprintable()]
    assert not controls, (controls, text)
    assert not re.search(r"\r(?!\n)", text.replace("\r\r\n", "\r\n")), text
