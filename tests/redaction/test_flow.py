"""A secret cut between the messages of one flow is hidden from the message where it is known
(``toolhost.redaction.flow``): a tool's log lines and its progress messages to the client,
each sent as it comes (secrets17: three pieces of a secret, each too short to be known by,
were sent as they were and the client joined them)."""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

import pytest

from toolhost.mcp.calls import progress_sender
from toolhost.mcp.client_log import ClientLog
from toolhost.redaction import MASK, remember
from toolhost.redaction.flow import KEEP, Continued

SECRET = "sk-live-9f8e7d6c5b4a3921"
PIECES = {
    "three pieces": ["sk-live-", "9f8e7d6c", "5b4a3921"],
    "a character a message": list(SECRET),
    "pieces with words around": ["token: sk-li", "ve-9f8e7d", "6c5b4a39", "21 (ok)"],
}


@pytest.fixture(autouse=True)
def _secret() -> None:
    remember({SECRET})  # (the conftest restores the process's secrets after each test)


def _shown(pieces: list[str]) -> list[str]:
    flow = Continued()
    return [flow(piece) for piece in pieces]


@pytest.mark.parametrize("pieces", PIECES.values(), ids=PIECES.keys())
def test_a_secret_in_pieces_shows_less_than_a_piece_of_it(pieces: list[str]) -> None:
    shown = _shown(pieces)
    joined = "".join(part for part in shown if part != MASK).replace(MASK, "")
    kept = "".join(c for c in joined if c.isalnum())
    secret = "".join(c for c in SECRET if c.isalnum())
    # fewer than 10 of its letters and digits in a row (what one message may show of it)
    assert not any(secret[i:i + 10] in kept for i in range(len(secret) - 9)), shown
    assert MASK in shown[-1] or MASK in shown[-2]


def test_messages_without_a_secret_are_as_they_were() -> None:
    lines = ["fetched 10 rows", "sk-live is the prefix", "9f8e", "done", "x" * (KEEP * 2)]
    assert _shown(lines) == lines
    assert _shown(["a", SECRET, "b"]) == ["a", MASK, "b"]


def test_a_commands_stderr_lines_sent_as_they_come_are_one_flow() -> None:
    sent: list[str] = []

    async def notify(note: dict[str, Any]) -> None:
        sent.append(note["params"]["data"])

    async def call() -> None:
        log = ClientLog(logging.getLogger("toolhost.test"), notify, "debug")
        for line in ("sk-live-9f", "8e7d6c5b", "4a3921"):  # (``fold -w 8``, live)
            await log.send_now("info", line)

    asyncio.run(call())
    assert sent == ["sk-live-9f", MASK, MASK]


def test_log_lines_and_progress_messages_are_one_flow_each() -> None:
    sent: list[dict[str, Any]] = []

    async def notify(note: dict[str, Any]) -> None:
        sent.append(note["params"])

    async def call() -> None:
        log = ClientLog(logging.getLogger("toolhost.test"), notify, "debug")
        progress = progress_sender(notify, "t")
        for n, piece in enumerate(PIECES["three pieces"]):
            log("info", piece)
            await progress(n + 1, 3, piece)
        # a sync tool's thread logs too (delivered now, not queued)
        worker = threading.Thread(target=log, args=("info", "tail sk-live-9f8e7d"))
        worker.start()
        worker.join()
        await log.flush()

    asyncio.run(call())
    logged = [params["data"] for params in sent if "data" in params]
    said = [params["message"] for params in sent if "message" in params]
    assert said == ["sk-live-", MASK, MASK]
    assert logged[:3] == ["sk-live-", MASK, MASK] and MASK in logged[3]
