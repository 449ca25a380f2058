"""A python prompt answers whatever its size: within the output cut as messages; past it a
plain string is cut with the note, and messages that no longer fit are a one-line error
saying so (not the head of their JSON as the error message). A real ``toolhost serve``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .stdio_peer import StdioPeer, stdio_peer

CONFIG = """\
toolhost: 1
servers:
  kb:
    prompts:
      sized:
        python: "content_tools:sized_prompt"
      listed:
        python: "content_tools:sized_messages"
permissions: {default: allow}
"""


@pytest.fixture(scope="module")
def peer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StdioPeer]:
    root = tmp_path_factory.mktemp("psizes")
    (root / "c.yaml").write_text(CONFIG)
    with stdio_peer(root / "c.yaml") as the_peer:
        yield the_peer


@pytest.mark.parametrize("shape", ["string", "strings", "messages"])
@pytest.mark.parametrize("size", [10, 15_000, 50_000, 2_000_000])
def test_a_python_prompt_of_any_size_answers_in_one_line(peer: StdioPeer, shape: str,
                                                         size: int) -> None:
    answer = peer.ask(f"{shape}-{size}", "prompts/get",
                      {"name": "sized", "arguments": {"shape": shape, "size": str(size)}},
                      timeout=60)
    if "result" in answer:
        texts = [m["content"]["text"] for m in answer["result"]["messages"]]
        assert sum(map(len, texts)) < 41_000
        if size * (1 if shape == "string" else 2) < 39_000:
            assert sum(map(len, texts)) >= size  # nothing cut
        else:
            assert "[toolhost: output cut" in texts[-1]
    else:
        message = answer["error"]["message"]
        assert shape != "string", answer
        assert "returned more than 40,000 characters of messages" in message, message
        assert len(message) < 300


@pytest.mark.parametrize(("size", "fits"), [(10, True), (15_000, True), (25_000, False),
                                            (2_000_000, False)])
def test_listed_messages_past_the_cut_are_a_one_line_error(peer: StdioPeer, size: int,
                                                           fits: bool) -> None:
    answer = peer.ask(f"listed-{size}", "prompts/get",
                      {"name": "listed", "arguments": {"size": str(size)}}, timeout=60)
    if fits:
        assert [m["role"] for m in answer["result"]["messages"]] == ["user", "assistant"]
    else:
        message = answer["error"]["message"]
        assert message == ("prompt 'listed' returned more than 40,000 characters of messages "
                           "(a python prompt's answer is cut like a tool's: max_output_chars)")
