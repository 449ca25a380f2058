"""A program that is a symbolic link under another name (``myredis -> redis-cli``,
``./bin/tar -> /usr/bin/tar``) reads its arguments as the program it ends at: the load-time
checks see the link's target too (when it exists at load), and every call looks again (a
link made or moved after the load). A multi-call program (``ls -> busybox``) keeps the
link's name; a value in a data place still runs."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools
from toolhost.errors import CompileError

from .test_command_backend import Config, cmd, run


def _program(where: Path, name: str) -> Path:
    """An executable named ``name`` (a stand-in: only its name matters to the checks)."""
    where.mkdir(parents=True, exist_ok=True)
    path = where / name
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


def _link(at: Path, target: Path) -> Path:
    at.parent.mkdir(parents=True, exist_ok=True)
    if at.is_symlink():
        at.unlink()
    at.symlink_to(target)
    return at


# (the real program's name, argv after the program, the key of the value found)
CODE = [
    ("tar", ["--to-command={{ v }}", "-xf", "a.tar"], ".argv[1]"),
    ("tar", ["-x", "-f", "a.tar", "--use-compress-program", "{{ v }}"], ".argv[5]"),
    ("redis-cli", ["EVAL", "{{ v }}", "0"], ".argv[2]"),
    ("redis-cli", ["{{ v }}"], ".argv[1]"),
    ("bash", ["-c", "echo {{ v }}"], ".argv[2]"),
    ("git", ["-c", "core.pager={{ v }}", "log"], ".argv[2]"),
    ("rsync", ["-e", "{{ v }}", "a", "b"], ".argv[2]"),
    ("find", [".", "-exec", "{{ v }}", ";"], ".argv[3]"),
    ("awk", ["{{ v }}"], ".argv[1]"),
]


@pytest.mark.parametrize("shape", ["relative", "absolute", "on-path", "wrapped", "chain",
                                   "find-exec"])
@pytest.mark.parametrize(("real", "rest", "key"), CODE)
def test_a_link_is_checked_as_its_target_at_load(config: Config, tmp_path: Path, shape: str,
                                                 real: str, rest: list[str], key: str) -> None:
    target = _program(tmp_path / "real", real)
    bin_dir = tmp_path / "bin"
    options: dict[str, Any] = {"cwd": str(tmp_path)}
    if shape == "chain":  # a link to a link: the end of the chain names the program
        _link(bin_dir / "middle", target)
        target = bin_dir / "middle"
    program = str(_link(bin_dir / "mytool", target))
    if shape == "relative":
        program = "bin/mytool"
    if shape == "on-path":
        program = "mytool"
        options["env"] = {"PATH": f"{bin_dir}:/usr/bin:/bin"}
    argv = [program, *rest]
    if shape == "wrapped":
        argv, key = ["nice", "-n", "5", *argv], f".argv[{int(key[6:-1]) + 3}]"
    if shape == "find-exec":
        if real == "find":
            pytest.skip("find inside find -exec: the first ';' ends both")
        argv, key = ["find", ".", "-exec", *argv, ";"], f".argv[{int(key[6:-1]) + 3}]"
    cfg = config({"t": cmd(argv, options=options)})
    with pytest.raises(CompileError) as caught:
        compile_tools(cfg)
    text = str(caught.value)
    assert f"command{key}" in text and f"is a link to {real}" in text, text


@pytest.mark.anyio
async def test_a_link_to_a_data_place_still_runs(config: Config, tmp_path: Path) -> None:
    tar = shutil.which("tar")
    if tar is None:
        pytest.skip("tar is not installed")
    (tmp_path / "in.txt").write_text("kept\n")
    work = tmp_path / "work"
    work.mkdir()
    _link(tmp_path / "bin" / "mytar", Path(tar))
    subprocess.run([tar, "-cf", "work/a.tar", "in.txt"], cwd=tmp_path, check=True)
    cfg = config({"t": cmd([str(tmp_path / "bin" / "mytar"), "-tf", "./{{ v }}"],
                           options={"cwd": str(work)})})
    result = await run(cfg, "t", {"v": "a.tar"})
    assert not result.is_error and result.text_content.strip() == "in.txt", result


@pytest.mark.parametrize("multi", ["busybox", "toybox"])
def test_a_link_to_a_multi_call_program_keeps_its_name(config: Config, tmp_path: Path,
                                                       multi: str) -> None:
    target = _program(tmp_path / "real", multi)
    link = _link(tmp_path / "bin" / "ls", target)
    compile_tools(config({"t": cmd([str(link), "-l", "./{{ v }}"])}))  # loads


@pytest.mark.anyio
@pytest.mark.parametrize("later", ["made", "moved"])
async def test_a_link_made_or_moved_after_the_load_is_looked_through_at_the_call(
        config: Config, tmp_path: Path, later: str) -> None:
    marker = tmp_path / "ran"
    harmless = tmp_path / "real" / "harmless"
    harmless.parent.mkdir()
    harmless.write_text(f"#!/bin/sh\ntouch {marker}\n")
    harmless.chmod(0o755)
    shell = _program(tmp_path / "real2", "bash")
    link = tmp_path / "bin" / "tool"
    if later == "moved":
        _link(link, harmless)
    cfg = config({"t": cmd([str(link), "-c", "{{ v }}"])})
    compiled = compile_tools(cfg)  # loads: no such program yet, or a harmless one
    try:
        _link(link, shell)
        result = await compiled.tool("demo", "t").call({"v": "echo hi"}, CallContext())
        assert result.is_error, result
        assert result.text_content.startswith("Refused to run the command: argv[2]: a "
                                              "placeholder inside code that bash runs"), result
        assert "is a link to bash" in result.text_content
        _link(link, harmless)  # back as it was: runs again
        ok = await compiled.tool("demo", "t").call({"v": "echo hi"}, CallContext())
        assert not ok.is_error and marker.exists(), ok
    finally:
        await compiled.aclose()
