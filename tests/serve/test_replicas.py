"""Two ``toolhost serve`` replicas behind a round-robin proxy: sessions of the 2025
revisions work on any replica when the replicas share TOOLHOST_SESSION_SECRET (and only
then); modern (stateless) calls always do. Probes: /healthz and /readyz."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest
from mcp.client.client import Client

from tests.serve.conftest import HERE, http_servers

pytestmark = pytest.mark.anyio

CONFIG = """\
toolhost: 1
servers:
  calc:
    tools:
      echo:
        python: "blackbox_tools:echo"
permissions: {default: allow}
"""


@contextmanager
def proxy(upstreams: list[str]) -> Iterator[str]:
    proc = subprocess.Popen([sys.executable, str(HERE / "rr_proxy.py"), *upstreams],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().strip()
    finally:
        proc.terminate()
        proc.wait(10)
        if proc.stdout is not None:
            proc.stdout.close()


@contextmanager
def replicas(tmp_path: Path, secrets: list[str | None], configs: tuple[str, ...] = (CONFIG,)
             ) -> Iterator[tuple[str, list[str]]]:
    """Replica i serves configs[i] (the last one when there are fewer)."""
    started: list[tuple[list[str], Path, dict[str, str] | None]] = []
    for i, secret in enumerate(secrets):
        config = tmp_path / f"calc{min(i, len(configs) - 1)}.yaml"
        config.write_text(configs[min(i, len(configs) - 1)])
        env = {k: v for k, v in os.environ.items() if k != "TOOLHOST_SESSION_SECRET"}
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(HERE), str(HERE.parent.parent),
                                                        env.get("PYTHONPATH")) if p)
        if secret is not None:
            env["TOOLHOST_SESSION_SECRET"] = secret
        started.append(([sys.executable, "-m", "toolhost", "serve", str(config), "--transport",
                         "http", "--port", "0"], tmp_path / f"replica{i}.log", env))
    with ExitStack() as stack:
        urls = stack.enter_context(http_servers(started))
        bases = [u.rsplit("/mcp", 1)[0] for u in urls]
        front = stack.enter_context(proxy(bases))
        yield front, bases


def hits(front: str) -> list[int]:
    with urllib.request.urlopen(f"{front}/__hits", timeout=10) as answer:
        result: list[int] = json.loads(answer.read())
    return result


async def add_twenty(url: str, mode: str) -> list[str]:
    async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
        return [(await client.call_tool("echo", {"text": f"n{i}"})).content[0].text
                for i in range(20)]


async def test_a_legacy_session_works_on_every_replica_with_a_shared_secret(
        tmp_path: Path) -> None:
    with replicas(tmp_path, ["s3cret-shared", "s3cret-shared"]) as (front, _):
        assert await add_twenty(f"{front}/mcp", "legacy") == [f"n{i}" for i in range(20)]
        assert min(hits(front)) >= 10  # both replicas answered a share of the session


# the next version of CONFIG, one replica serving each (a rolling deploy)
CONFIG_NEXT = CONFIG.replace("permissions:", """      shout:
        python: "blackbox_tools:echo"
permissions:""")


async def test_replicas_agree_without_any_secret_also_mid_rollout(tmp_path: Path) -> None:
    """Legacy sessions and modern calls both, and the probes: one pair of replicas, one of
    them already serving the next version of the config (a rolling deploy): a session
    started on either works on both (with a key derived from the config, every other call
    of a legacy client was 404 until the rollout ended)."""
    with replicas(tmp_path, [None, None], (CONFIG, CONFIG_NEXT)) as (front, bases):
        assert await add_twenty(f"{front}/mcp", "legacy") == [f"n{i}" for i in range(20)]
        assert min(hits(front)) >= 10
        before = hits(front)
        # modern calls need no secret
        assert await add_twenty(f"{front}/mcp", "auto") == [f"n{i}" for i in range(20)]
        assert min(b - a for a, b in zip(before, hits(front), strict=True)) >= 10
        # the probes answer without the token or host checks
        for probe, status in (("healthz", "ok"), ("readyz", "ready")):
            request = urllib.request.Request(f"{bases[0]}/{probe}",
                                             headers={"Host": "10.1.2.3:8765"})
            with urllib.request.urlopen(request, timeout=10) as answer:
                assert json.loads(answer.read()) == {"status": status}


async def test_with_different_secrets_a_replica_refuses_another_ones_session(
        tmp_path: Path) -> None:
    with replicas(tmp_path, ["one secret", "another secret"]) as (front, _), \
            pytest.raises(Exception):  # noqa: B017 - the client's error type varies
        await add_twenty(f"{front}/mcp", "legacy")
