"""A value naming a file a program reads and sends (curl -T, wget --post-file ...): the
config meant the model to choose it, so it loads, and validate notes who chooses what
leaves the machine (backends24, the "file slot" decision)."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.backends.code_args import Token
from toolhost.backends.command_checks import option_notes
from toolhost.backends.file_slots import sent_file_slots
from toolhost.compile import compile_tools

from .test_command_backend import Config, cmd

V = "{{ v }}"


@pytest.mark.parametrize(("argv", "found"), [
    (["curl", "-T", V, "https://x/"], [(2, "-T")]),
    (["curl", "-T" + V, "https://x/"], [(1, "-T")]),
    (["timeout", "9", "curl", "--etag-compare", V, "https://x/"], [(4, "--etag-compare")]),
    (["wget", "--post-file=" + V, "https://x/"], [(1, "--post-file")]),
    (["wget", "-i", V], [(2, "-i")]),
    (["rsync", "--password-file", V, "rsync://h/m", "d/"], [(2, "--password-file")]),
    (["curl", "-T", "report.pdf", "-H", V, "https://x/"], []),  # the config's file
    (["curl", "-o", V, "https://x/"], []),  # a file curl writes
    (["echo", "curl", "-T", V], []),  # curl is no program here
])
def test_which_positions_send_a_file(argv: list[str], found: list[tuple[int, str]]) -> None:
    tokens = [Token(f".argv[{k}]", text, "{{" in text) for k, text in enumerate(argv)]
    assert [(key, option) for key, _, option in sent_file_slots(tokens)] == \
        [(f".argv[{k}]", option) for k, option in found]


def test_validate_notes_a_file_the_model_chooses_to_send(config: Config) -> None:
    argv: list[Any] = ["curl", "-sS", "-T", V, "https://upload.example/"]
    cfg = config({"t": cmd(argv)})
    compile_tools(cfg)  # it loads: an upload tool is what the config meant
    notes = [n for n in option_notes(cfg) if "leaves the machine" in n.message]
    assert len(notes) == 1, notes
    assert notes[0].key_path.endswith(".argv[3]")
    assert "path_under" in (notes[0].hint or "")
