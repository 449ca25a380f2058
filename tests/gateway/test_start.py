"""Imported servers are started at once: upstreams that never answer ``initialize`` cost the
start their ``connect_timeout`` (the slowest one's), not its sum, and a connection that never
became ready is not waited for any longer; each is a located error and nothing is left
running."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

SILENT = ("import os, sys, time; "
          "open(sys.argv[1], 'w').write(f'{os.getpid()} {time.monotonic()}'); "
          "sys.stdin.readline(); time.sleep(300)")


def silent_config(tmp_path: Path, count: int, connect_timeout: str = "2s") -> Path:
    blocks = "".join(f"""\
  s{i}:
    mcp:
      command: [{sys.executable}, -c, "{SILENT}", {tmp_path / f's{i}.pid'}]
      connect_timeout: {connect_timeout}
""" for i in range(count))
    config = tmp_path / "silent.yaml"
    config.write_text(f"toolhost: 1\nservers:\n{blocks}permissions:\n  default: allow\n")
    return config


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_upstreams_that_never_answer_initialize_cost_one_connect_timeout(
        tmp_path: Path) -> None:
    """Four of them (what one alone is checked for, each of the four is). Started at once:
    each upstream notes when it started (the system's monotonic clock, shared by processes);
    one at a time, the last would start at least three connect_timeouts (6 s) after the
    first; at once, the spread is the spawning's, well under that at any load. (The host's
    own start-up, which dominates the run's wall time on a loaded machine, is not measured:
    a run that hangs fails by its subprocess timeout.)"""
    count = 4
    config = silent_config(tmp_path, count)
    done = subprocess.run([sys.executable, "-m", "toolhost", "tools", str(config)],
                          capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert done.returncode == 1
    for i in range(count):  # every one named, in the config's order
        assert (f"silent.yaml:{4 + 4 * i}:5: servers.s{i}.mcp: cannot start upstream server "
                f"'s{i}': TimeoutError: no answer within 2s") in done.stderr
    assert [line.split(": ")[1] for line in done.stderr.splitlines()
            if "still waiting" not in line] == [f"servers.s{i}.mcp" for i in range(count)]
    assert "Traceback" not in done.stderr
    noted = [(tmp_path / f"s{i}.pid").read_text().split() for i in range(count)]
    starts = [float(when) for _pid, when in noted]
    assert max(starts) - min(starts) < 4.0, starts  # one at a time: 6 s or more
    pids = [int(pid) for pid, _when in noted]
    assert not [pid for pid in pids if alive(pid)]


READER = """\
from mcp.server.mcpserver import MCPServer

app = MCPServer("fs")


@app.tool(description="Read a file")
def read(path: str) -> str:
    return open(path).read()


app.run()
"""


@pytest.mark.parametrize("how", ["run.cwd", "--cwd", "mcp.cwd"])
def test_a_stdio_upstream_runs_where_the_rules_judge_relative_paths(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """A rule judges a relative path argument against the CLI's directory (``run.cwd``,
    ``toolhost run --cwd``); the upstream reads it against its own working directory. Before,
    it ran where toolhost was started: ``path: secret.txt`` was allowed as
    ``proj/secret.txt`` by ``path_under: proj`` and the upstream read ``./secret.txt``. An
    ``mcp.cwd`` of its own is kept (there, ``other/secret.txt``)."""
    from toolhost.host import load_host

    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "secret.txt").write_text("project notes")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "secret.txt").write_text("other notes")
    (tmp_path / "secret.txt").write_text("TOP SECRET")
    (tmp_path / "fs.py").write_text(READER)
    own = "cwd: other, " if how == "mcp.cwd" else ""
    config = tmp_path / "th.yaml"
    config.write_text(
        "toolhost: 1\n" + ("" if how == "--cwd" else "run: {cwd: proj}\n") +
        f"servers:\n  fs:\n    mcp: {{{own}command: [{sys.executable}, {tmp_path / 'fs.py'}]}}\n"
        "permissions:\n  default: deny\n"
        "  allow: [{tool: mcp__fs__read, when: {path: {path_under: proj}}}]\n")
    monkeypatch.chdir(tmp_path)  # toolhost itself runs beside the secret

    async def main() -> str:
        host = load_host(config, cwd=str(tmp_path / "proj") if how == "--cwd" else None)
        try:
            # round 19: an mcp.cwd elsewhere reads it there: not provable (an absolute path is)
            assert host.policy.decide("mcp__fs__read", {"path": "secret.txt"}).behavior == \
                ("deny" if how == "mcp.cwd" else "allow")
            assert host.policy.decide("mcp__fs__read", {
                "path": str(tmp_path / "proj" / "secret.txt")}).behavior == "allow"
            answer = await host.servers["fs"].handle({
                "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "read", "arguments": {"path": "secret.txt"}}})
        finally:
            await host.compiled.aclose()
        assert answer is not None
        return str(answer["result"]["content"][0]["text"])

    assert anyio.run(main) == ("other notes" if how == "mcp.cwd" else "project notes")
