"""Two replicas behind a real haproxy (round robin per request), when haproxy is installed:
both client eras answered; and examples/deploy/haproxy.cfg passes haproxy's own check."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.serve.test_replicas import add_twenty, replicas

pytestmark = [pytest.mark.anyio,
              pytest.mark.skipif(shutil.which("haproxy") is None,
                                 reason="haproxy is not installed (apt-get install haproxy)")]

DEPLOY = Path(__file__).resolve().parents[2] / "examples" / "deploy"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


@contextmanager
def haproxy(tmp_path: Path, bases: list[str], checked: bool = False) -> Iterator[str]:
    """``checked``: the replicas' /readyz is checked (every 0.2 s; out of rotation at the
    first 503), and a request whose replica refuses the connection goes to the other."""
    port = _free_port()
    check = " check inter 200ms fall 2 rise 1" if checked else ""
    servers = "\n".join(f"    server r{i} {b.split('//', 1)[1]}{check}"
                        for i, b in enumerate(bases))
    if checked:
        servers = ("    option httpchk GET /readyz\n    option redispatch\n"
                   "    retry-on conn-failure empty-response\n    timeout check 5s\n" + servers)
    config = tmp_path / "haproxy.cfg"
    config.write_text(f"""\
defaults
    mode http
    timeout connect 5s
    timeout client 60s
    timeout server 60s
    option http-server-close
frontend mcp
    bind 127.0.0.1:{port}
    default_backend replicas
backend replicas
    balance roundrobin
{servers}
""")
    proc = subprocess.Popen(["haproxy", "-db", "-f", str(config)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert time.monotonic() < deadline and proc.poll() is None, "haproxy did not start"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(10)


async def test_haproxy_really_spreads_one_session_over_both_replicas(tmp_path: Path) -> None:
    # replicas that do not share a key refuse each other's sessions: the legacy client fails,
    # which it only can if haproxy sent its requests to both
    with replicas(tmp_path, ["one", "two"]) as (_, bases), haproxy(tmp_path, bases) as front, \
            pytest.raises(Exception):  # noqa: B017 - the client's error type varies
        await add_twenty(f"{front}/mcp", "legacy")


def test_the_example_haproxy_config_is_valid(tmp_path: Path) -> None:
    text = (DEPLOY / "haproxy.cfg").read_text()
    local = text.replace("replica1:8765", "127.0.0.1:18765").replace("replica2:8765",
                                                                     "127.0.0.1:18766")
    config = tmp_path / "haproxy.cfg"
    config.write_text(local)
    done = subprocess.run(["haproxy", "-c", "-f", str(config)], capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 0, done.stdout + done.stderr
