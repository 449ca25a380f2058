"""``toolhost serve`` over stdio against a corpus of hostile lines (a real process).

After every fault an honest call must still be answered; no line on stdout may be anything
but one JSON message; stderr must hold no traceback; the process must stay alive and small.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from .hostile_corpus import FAULTS, MIB, SERVE_LIMITS, call, honest, write_config

HERE = Path(__file__).parent
ROOT = HERE.parent.parent


def env() -> dict[str, str]:
    paths = [str(HERE), str(ROOT), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p),
            "TOOLHOST_DEBUG": ""}


class Peer:
    """A serve process: write lines, collect its answers in a thread."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.answers: queue.Queue[dict[str, Any]] = queue.Queue()
        self.bad_lines: list[bytes] = []
        self.early: dict[str, dict[str, Any]] = {}
        self.reader = threading.Thread(target=self._read, args=(proc.stdout,), daemon=True)
        self.reader.start()

    def _read(self, out: IO[bytes]) -> None:
        for line in out:
            try:
                message = json.loads(line)
            except ValueError:
                self.bad_lines.append(line[:300])
                continue
            if not isinstance(message, dict):
                self.bad_lines.append(line[:300])
                continue
            self.answers.put(message)

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def wait_for(self, request_id: Any, timeout: float = 10.0) -> tuple[dict[str, Any],
                                                                         list[dict[str, Any]]]:
        """The answer to ``request_id``, and every other message that came before it (calls
        run concurrently: an answer read while waiting for another is kept for later)."""
        if request_id in self.early:
            return self.early.pop(request_id), []
        others = []
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no answer to {request_id!r} within {timeout}s")
            try:
                message = self.answers.get(timeout=left)
            except queue.Empty:
                continue
            if message.get("id") == request_id:
                return message, others
            if isinstance(message.get("id"), str) and message["id"].startswith("honest-"):
                self.early[message["id"]] = message
            others.append(message)

    def peak_rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return 0.0


@pytest.fixture(scope="module")
def peer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Peer]:
    tmp = tmp_path_factory.mktemp("stdio")
    config = write_config(tmp / "bb.yaml")
    stderr = open(tmp / "stderr.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen([sys.executable, "-m", "toolhost", "serve", str(config),
                             *SERVE_LIMITS], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=stderr, env=env())
    the_peer = Peer(proc)
    the_peer.log = tmp / "stderr.log"  # type: ignore[attr-defined]
    try:
        yield the_peer
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        the_peer.reader.join(10)
        if proc.stdout is not None:
            proc.stdout.close()
        stderr.close()


def assert_healthy(peer: Peer) -> None:
    assert peer.proc.poll() is None, "the server exited"
    assert not peer.bad_lines, peer.bad_lines
    log = peer.log.read_text(errors="replace")  # type: ignore[attr-defined]
    assert "Traceback" not in log, log[-3000:]


@pytest.mark.parametrize("name,fault", FAULTS, ids=[n for n, _ in FAULTS])
def test_fault_then_an_honest_call(peer: Peer, name: str, fault: bytes) -> None:
    n = FAULTS.index((name, fault))
    peer.send(fault)
    peer.send(honest(n))
    answer, others = peer.wait_for(f"honest-{n}")
    assert answer["result"]["content"][0]["text"] == f"honest-{n}"
    for other in others:
        assert len(json.dumps(other)) < 150_000, name
        if "error" in other:
            assert len(other["error"]["message"]) < 1000, other["error"]["message"][:300]
            assert "Traceback" not in other["error"]["message"]
    assert_healthy(peer)


def test_ids_of_the_wrong_type_are_answered_with_id_null(peer: Peer) -> None:
    for i, bad in enumerate(['{"a": 1}', "[1]", "true", "null"]):
        peer.send(f'{{"jsonrpc": "2.0", "id": {bad}, "method": "ping"}}'.encode())
        peer.send(honest(1000 + i))
        _, others = peer.wait_for(f"honest-{1000 + i}")
        # (an earlier test's fault with an id of its own may be answered after its honest
        # call, calls run concurrently: here only what has no id is this line's answer)
        mine = [o for o in others if o.get("id") is None]
        assert [(o["id"], o["error"]["code"]) for o in mine] == [(None, -32600)]
        assert all(isinstance(o.get("id"), (int, str)) for o in others if o not in mine)


def test_a_deep_line_is_one_error_answer(peer: Peer) -> None:
    peer.send(b"[" * 100_000 + b"]" * 100_000)
    peer.send(honest(2000))
    _, others = peer.wait_for("honest-2000")
    assert len(others) == 1 and others[0]["id"] is None
    assert "100,000 levels deep; the limit is 256" in others[0]["error"]["message"]


def test_an_over_long_line_is_refused_and_the_next_is_read(peer: Peer) -> None:
    peer.send(call("echo", {"text": "z" * (6 * MIB)}, request_id="long"))
    peer.send(honest(3000))
    _, others = peer.wait_for("honest-3000")
    assert len(others) == 1 and others[0]["id"] is None
    assert "the limit is 4,194,304" in others[0]["error"]["message"]


def test_a_huge_wrong_argument_is_not_echoed(peer: Peer) -> None:
    peer.send(call("echo", {"text": ["q" * 900_000]}, request_id="wrong"))
    answer, _ = peer.wait_for("wrong")
    text = answer["result"]["content"][0]["text"]
    assert answer["result"]["isError"] and "more characters" in text and len(text) < 1000


def test_honest_calls_go_on_beside_a_hanging_one(peer: Peer) -> None:
    peer.send(call("hang", {}, request_id="hanging"))
    for i in range(20):
        peer.send(honest(4000 + i))
    for i in range(20):
        peer.wait_for(f"honest-{4000 + i}")
    peer.send(b'{"jsonrpc":"2.0","method":"notifications/cancelled",'
              b'"params":{"requestId":"hanging"}}')
    peer.send(honest(4100))
    peer.wait_for("honest-4100")


def test_the_process_stays_small_and_quiet(peer: Peer) -> None:
    peer.send(honest(5000))
    peer.wait_for("honest-5000")
    assert_healthy(peer)
    assert peer.peak_rss_mb() < 500
