"""Media players open their operands as URLs, like ffmpeg: mpv's ``av://lavfi:GRAPH``,
``lavf://concat:``, ``edl://``, ``ytdl://``; mplayer's ``ffmpeg://`` and ``mf://``; vlc's
``screen://`` and ``:option`` item options. A value that writes such a start is refused at
the call (through wrappers and links); a value in an option that runs a script or a filter
graph (``--script``, ``--lavfi-complex``, ``-vf``, ``--sout``) is a load error. Plain
names, ``file:``, times and ``C:/`` paths still run. The players need not be installed: a
recorder of that name prints its argv."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolhost.compile import compile_tools
from toolhost.errors import CompileError

from .test_command_backend import Config, cmd, run
from .test_ffmpeg_values import _recorder

V = "{{ v }}"
PLAYERS = ["mpv", "mplayer", "vlc", "cvlc", "mencoder"]


@pytest.mark.parametrize("name", PLAYERS)
@pytest.mark.parametrize("value", [
    "av://lavfi:movie=/etc/passwd", "lavfi://sine", "lavf://concat:/etc/passwd|/etc/hosts",
    "edl://a.mkv,0,10", "memory://text", "ytdl://x", "HTTP://127.0.0.1:9/x", "fd://3",
    "ffmpeg://concat:a|b", "mf://*.png", "screen://", " dvd://1"])
@pytest.mark.anyio
async def test_a_value_never_chooses_a_players_protocol(config: Config, tmp_path: Path,
                                                        name: str, value: str) -> None:
    program = _recorder(tmp_path, name)
    link = tmp_path / "bin" / "watch-it"
    link.symlink_to(program)
    for argv in ([program, V], [program, "--no-video", V], ["timeout", "5", program, V],
                 [str(link), V]):
        cfg = config({"t": cmd(argv, options={"cwd": str(tmp_path)})})
        result = await run(cfg, "t", {"v": value})
        assert result.is_error and "more than a file name" in result.text_content, result
        assert f"{'vlc' if 'vlc' in name else name} opens it through" in result.text_content


@pytest.mark.parametrize("name", ["vlc", "cvlc"])
@pytest.mark.anyio
async def test_a_value_is_never_a_vlc_item_option(config: Config, tmp_path: Path,
                                                  name: str) -> None:
    cfg = config({"t": cmd([_recorder(tmp_path, name), "a.mkv", V])})
    result = await run(cfg, "t", {"v": ":sout=#file{dst=/tmp/x}"})
    assert result.is_error and "option of the item before it" in result.text_content, result


@pytest.mark.parametrize("name", PLAYERS)
@pytest.mark.parametrize("value", ["song.mp3", "00:01:02", "file:///tmp/a.mp3", "C:/x.mp3",
                                   "a b: c.mkv"])
@pytest.mark.anyio
async def test_plain_names_still_play(config: Config, tmp_path: Path, name: str,
                                      value: str) -> None:
    cfg = config({"t": cmd([_recorder(tmp_path, name), V])})
    result = await run(cfg, "t", {"v": value})
    assert not result.is_error and json.loads(result.text_content) == [value], result


@pytest.mark.parametrize(("name", "argv"), [
    ("mpv", ["--script=" + V, "a.mkv"]), ("mpv", ["--scripts", V, "a.mkv"]),
    ("mpv", ["--lavfi-complex", V]), ("mpv", ["--vf", V, "a.mkv"]), ("mpv", ["-vf", V]),
    ("mpv", ["--af=" + V, "a.mkv"]), ("mpv", ["--include=" + V]),
    ("mpv", ["--input-conf", V]), ("mpv", ["--input-ipc-server=" + V]),
    ("mpv", ["--ytdl-raw-options", V]), ("mplayer", ["-vf", V, "a.mkv"]),
    ("mencoder", ["-af", V, "a.mkv"]), ("mplayer", ["-include", V]),
    ("vlc", ["--sout", V, "a.mkv"]), ("cvlc", ["--sout=" + V, "a.mkv"]),
    ("vlc", ["-I", V]), ("vlc", ["--extraintf=" + V]), ("vlc", ["--lua-intf", V]),
])
def test_a_value_in_a_players_code_option_is_a_load_error(config: Config, name: str,
                                                          argv: list[str]) -> None:
    with pytest.raises(CompileError) as caught:
        compile_tools(config({"t": cmd([name, *argv])}))
    assert "a value is an option's argument that" in str(caught.value)


@pytest.mark.parametrize("argv", [["--volume", V, "./a.mkv"], ["--start=" + V, "a.mkv"],
                                  ["-I", "dummy", "./" + V]])
def test_a_value_in_a_players_data_option_loads(config: Config, argv: list[str]) -> None:
    compile_tools(config({"t": cmd(["mpv" if argv[0] != "-I" else "vlc", *argv])}))
