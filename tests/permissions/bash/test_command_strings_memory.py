"""A long quoted string in a Bash command (the model writes it) is read for its literals in
memory of its size: the literal patterns kept a regex frame per character (1 MB of code took
155 MB; a 32 MB request, gigabytes)."""

from __future__ import annotations

import tracemalloc

import pytest

from toolhost.permissions.bash.command_strings import fed_code_strings

BODY = "a" * 500_000


@pytest.mark.parametrize(("command", "forms"), [
    (f"python -c 'x=\"{BODY}\"'", [("python", "-c", f'x="{BODY}"')]),
    (f"echo \"{BODY}\" | sh", [("echo", BODY), ("sh",)]),
    (f"echo '{BODY}' | perl", [("echo", BODY), ("perl",)]),
    (f"awk \"{BODY}\" | sh", [("awk", BODY), ("sh",)]),
])
def test_a_long_literal_is_read_in_memory_of_its_size(command: str,
                                                      forms: list[tuple[str, ...]]) -> None:
    tracemalloc.start()
    try:
        found = fed_code_strings(command, forms)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 12 * len(command), peak
    if forms[-1] != ("python", "-c", f'x="{BODY}"'):
        assert BODY in found
