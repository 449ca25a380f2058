"""A command call searches the PATH once for each program (backends33): the link look
(``link_names``) and the render's checks (``#!`` lines, names: pipe operands, media URLs,
operands read past '--') each searched it again. A link made between two calls is still
seen (the memo lives for one call)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolhost.backends import shebang
from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools

from .test_command_backend import Config, cmd, run

pytestmark = pytest.mark.anyio


async def test_one_search_a_program_a_call(config: Config, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "mytool").write_text("#!/bin/sh\necho ran \"$@\"\n")
    (bin_dir / "mytool").chmod(0o755)
    tool = cmd(["mytool", "--", "{{ v }}"],
               options={"env": {"PATH": f"{bin_dir}{os.pathsep}/usr/bin:/bin"}})
    searched: list[str] = []
    access = os.access

    def counting(path: object, mode: int, **kw: object) -> bool:
        if str(path).endswith(os.sep + "mytool"):
            searched.append(str(path))
        return access(path, mode, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(shebang.os, "access", counting)
    result = await run(config({"t": tool}), "t", {"v": "x"})
    assert not result.is_error and "ran -- x" in result.text_content, result.text_content
    searched.clear()
    result = await run(config({"t": tool}), "t", {"v": "y"})
    assert not result.is_error, result.text_content
    # compile (load) looks once; the call once more, not once per check
    assert len(searched) <= 2, (len(searched), searched)


async def test_a_link_made_between_calls_is_seen(config: Config, tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "find").write_text("#!/bin/sh\necho ran\n")
    (tmp_path / "real" / "find").chmod(0o755)
    (tmp_path / "other").write_text("#!/bin/sh\necho ran\n")
    (tmp_path / "other").chmod(0o755)
    (tmp_path / "prog").symlink_to(tmp_path / "other")
    tool = cmd(["./prog", "--", "{{ v }}"], options={"cwd": str(tmp_path)})
    compiled = compile_tools(config({"t": tool}))
    try:
        call = compiled.tool("demo", "t").call
        assert not (await call({"v": "-delete"}, CallContext())).is_error
        (tmp_path / "prog").unlink()
        (tmp_path / "prog").symlink_to(tmp_path / "real" / "find")
        result = await call({"v": "-delete"}, CallContext())
        assert result.is_error and "'find' reads" in result.text_content, result.text_content
    finally:
        await compiled.aclose()
