"""GNU tar reads an archive name with a ':' before any '/' as another host's file and runs
its remote shell there: a value may not make the archive name remote."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from toolhost.backends.remote_operands import remote_archive

from .test_command_backend import Config, cmd, run

pytestmark = pytest.mark.anyio


@pytest.mark.skipif(shutil.which("tar") is None, reason="needs tar")
@pytest.mark.parametrize("argv", [
    ["-cf", "{{ out }}"], ["--create", "--file={{ out }}"], ["-cvf{{ out }}"],
])
async def test_a_value_never_makes_tars_archive_remote(config: Config, tmp_path: Path,
                                                       argv: list[str]) -> None:
    marker = tmp_path / "rsh-ran"
    rsh = tmp_path / "rsh.sh"
    rsh.write_text(f"#!/bin/sh\ntouch {marker}\n")
    rsh.chmod(0o755)
    (tmp_path / "d").mkdir()
    full = ["tar", f"--rsh-command={rsh}", *argv, "-C", str(tmp_path / "d"), "."]
    cfg = config({"t": cmd(full, options={"cwd": str(tmp_path)})})
    result = await run(cfg, "t", {"out": "127.0.0.1:stolen.tar"})
    assert result.is_error
    assert "another host" in result.text_content, result.text_content
    assert not marker.exists()
    local = await run(cfg, "t", {"out": "ok.tar"})
    assert not local.is_error, local.text_content
    assert (tmp_path / "ok.tar").exists()


@pytest.mark.parametrize(("out", "valued", "remote"), [
    (["tar", "-cf", "h:x"], [(2, 0)], "h:x"),
    (["tar", "cf", "h:x"], [(2, 0)], "h:x"),  # old-style bundled options
    (["tar", "-c", "-f", "h:x"], [(3, 0)], "h:x"),
    (["tar", "-c", "--file", "h:x"], [(3, 0)], "h:x"),
    (["tar", "-c", "--file=h:x"], [(2, 7)], "h:x"),
    (["tar", "-cvfh:x"], [(1, 4)], "h:x"),
    (["/bin/gtar", "-xf", "./h:x"], [(2, 0)], None),  # a '/' before the ':' is local
    (["tar", "-cf", "h:x", "--force-local"], [(2, 0)], None),
    (["tar", "-cf", "h:x"], [], None),  # the config's own literal
    (["tar", "-cf", "bk:x"], [(2, 3)], None),  # the ':' is the config's ("bk:{{ n }}")
    (["tar", "-cf", "/tmp/{{x}}"], [(2, 5)], None),
    (["bsdtar", "-cf", "h:x"], [(2, 0)], None),  # bsdtar has no remote archives
    (["tar", "-C", "h:x", "-cf", "a"], [(2, 0)], None),  # not the archive name
])
def test_which_archive_names_are_remote(out: list[str], valued: list[tuple[int, int]],
                                        remote: Any) -> None:
    assert remote_archive(out, valued) == remote
