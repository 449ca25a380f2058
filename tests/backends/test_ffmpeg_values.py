"""ffmpeg's file names are URLs and its filter graphs are code. A value that writes a
protocol prefix (``concat:``, ``subfile,``, ``pipe:``, ``http:``, ``tee:``) or chooses the
``lavfi`` demuxer is refused at call time; a value in a filter graph however the option is
spelled (``-filter:v:0``, ``-/vf FILE``, ``-f lavfi -i GRAPH``, ffprobe's operand) is a load
error. Plain paths, ``file:`` and times with colons still run. ffmpeg need not be installed:
a recorder of that name prints its argv, and the refused values never reach it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from toolhost.compile import compile_tools
from toolhost.errors import CompileError

from .test_command_backend import Config, cmd, run

V = "{{ v }}"


def _recorder(tmp_path: Path, name: str) -> str:
    path = tmp_path / "bin" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(f"#!{sys.executable}\nimport json, sys\nprint(json.dumps(sys.argv[1:]))\n")
    path.chmod(0o755)
    return str(path)


@pytest.mark.parametrize(("name", "argv", "value"), [
    ("ffmpeg", ["-i", V, "-f", "null", "out"], "concat:/etc/passwd|/etc/hosts"),
    ("ffmpeg", ["-i", V, "out"], "subfile,,start,0,end,10,,:/etc/passwd"),
    ("ffmpeg", ["-i", V, "out"], "  pipe:0"),
    ("ffmpeg", ["-i", V, "out"], "fd:3"),
    ("ffmpeg", ["-i", V, "out"], "HTTP://127.0.0.1:9/x"),
    ("ffmpeg", ["-i", V, "out"], "crypto+http://127.0.0.1/x"),
    ("ffmpeg", ["-i", V, "out"], "data:text/plain,x"),
    ("ffmpeg", ["-i", "in.mp4", V], "tee:a.mp4|http://127.0.0.1/x"),
    ("ffmpeg", ["-i", "in.mp4", "-c", "copy", V], "rtmp://127.0.0.1/live"),
    ("ffmpeg", ["-i", "in" + V, "out"], "c:x"),  # the value completes "inc:"
    ("ffmpeg", ["-f", V, "-i", "in.txt", "out"], "lavfi"),
    ("ffmpeg", ["-f", V, "-i", "in.txt", "out"], " LAVFI "),
    ("ffprobe", [V], "concat:a.mp4|b.mp4"),
    ("ffprobe", ["-v", "error", "-i", V], "http://127.0.0.1/x"),
    ("ffplay", [V], "tcp://127.0.0.1:9"),
    ("ffmpeg-7.1", ["-i", V, "out"], "concat:a|b"),
])
@pytest.mark.anyio
async def test_a_value_never_chooses_ffmpegs_protocol_or_a_graph_input(
        config: Config, tmp_path: Path, name: str, argv: list[str], value: str) -> None:
    program = _recorder(tmp_path, name)
    for wrapped in ([program, *argv], ["env", program, *argv], ["timeout", "5", program, *argv]):
        cfg = config({"t": cmd(wrapped, options={"cwd": str(tmp_path)})})
        result = await run(cfg, "t", {"v": value})
        assert result.is_error and "more than a file name" in result.text_content, result
        assert "\n" not in result.text_content.strip()


@pytest.mark.anyio
async def test_a_link_to_ffmpeg_is_ffmpeg(config: Config, tmp_path: Path) -> None:
    link = tmp_path / "bin" / "transcode"
    link.symlink_to(_recorder(tmp_path, "ffmpeg"))
    cfg = config({"t": cmd([str(link), "-i", V, "out"], options={"cwd": str(tmp_path)})})
    result = await run(cfg, "t", {"v": "concat:a|b"})
    assert result.is_error and "more than a file name" in result.text_content, result
    ok = await run(cfg, "t", {"v": "a.mp4"})
    assert not ok.is_error, ok


@pytest.mark.parametrize(("argv", "value"), [
    (["-i", V, "out"], "a.mp4"),
    (["-i", V, "out"], "file:a.mp4"),
    (["-i", V, "out"], "C:/media/a.mp4"),  # a drive letter is no protocol
    (["-i", "./" + V, "out"], "concat:a|b"),  # the config wrote the start: a path
    (["-i", "file:" + V, "out"], "http://x"),
    (["-ss", V, "-i", "in.mp4", "out"], "00:01:02.5"),
    (["-i", "in.mp4", "-metadata", "title=" + V, "out"], "part:1"),
    (["-f", V, "-i", "in.mp4", "out"], "mp4"),
    (["-i", "in.mp4", V], "out,final.mp4"),
])
@pytest.mark.anyio
async def test_plain_paths_times_and_data_still_run(
        config: Config, tmp_path: Path, argv: list[str], value: str) -> None:
    cfg = config({"t": cmd([_recorder(tmp_path, "ffmpeg"), *argv],
                           options={"cwd": str(tmp_path)})})
    result = await run(cfg, "t", {"v": value})
    assert not result.is_error, result
    assert any(value in a for a in json.loads(result.text_content))


@pytest.mark.parametrize(("argv", "index"), [
    (["ffmpeg", "-i", "a", "-filter:v:0", V, "o"], 4),
    (["ffmpeg", "-i", "a", "-filter:a:1", V, "o"], 4),
    (["ffmpeg", "-i", "a", "-af:0", V, "o"], 4),
    (["ffmpeg", "-i", "a", "-/vf", V, "o"], 4),
    (["ffmpeg", "-i", "a", "-/filter_complex", V, "o"], 4),
    (["ffmpeg", "-i", "a", "-/filter:v", V, "o"], 4),
    (["ffmpeg", "-/i", V, "o"], 2),
    (["ffmpeg", "-f", "lavfi", "-i", V, "o"], 4),
    (["ffmpeg", "-f", "LAVFI", "-i", "movie=" + V, "o"], 4),
    (["ffmpeg", "-re", "-f", "lavfi", "-t", "1", "-i", V, "o"], 7),
    (["ffplay", "-f", "lavfi", "-i", V], 4),
    (["ffprobe", "-f", "lavfi", V], 3),
    (["ffprobe", "-f", "lavfi", "-hide_banner", V], 4),
    (["env", "ffmpeg", "-f", "lavfi", "-i", V, "o"], 5),
])
def test_a_value_in_a_filter_graph_however_spelled_is_a_load_error(
        config: Config, argv: list[Any], index: int) -> None:
    with pytest.raises(CompileError) as info:
        compile_tools(config({"t": cmd(argv)}))
    problem = next(p for p in info.value.problems if "option's argument" in p.message)
    assert problem.key_path == f"servers.demo.tools.t.command.argv[{index}]", problem
    compile_tools(config({"t": cmd(argv, options={"unsafe_code_placeholders": True})}))


@pytest.mark.parametrize("argv", [
    ["ffmpeg", "-f", "lavfi", "-i", "testsrc", "-i", V, "o"],  # the graph is the config's
    ["ffmpeg", "-f", "mp4", "-i", V, "o"],
    ["ffmpeg", "-i", "a", "-filter_threads", V, "o"],
    ["ffmpeg", "-i", "a", "-ss", V, "-vframes", V, "o"],
    ["ffprobe", V],
])
def test_data_in_ffmpegs_options_loads(config: Config, argv: list[Any]) -> None:
    compile_tools(config({"t": cmd(argv)}))
