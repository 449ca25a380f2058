"""vim's netrw opens a file operand ``scp://host//f`` (``sftp://``, ``rsync://``, ``ftp://``,
``http://``) on another host, with the user's ssh keys; emacs's TRAMP opens ``/ssh:host:f``
and ``/sudo::f`` (as root). A value that writes such a start is refused at the call
(by name, through wrappers); plain paths, ``file://`` and ``a:b`` names still open."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .test_command_backend import Config, cmd, run
from .test_ffmpeg_values import _recorder

pytestmark = pytest.mark.anyio
F = "{{ f }}"


@pytest.mark.parametrize("name", ["vim", "vi", "nvim", "view", "vimdiff", "gvim"])
@pytest.mark.parametrize("value", ["scp://evil//etc/passwd", "sftp://u@evil/x",
                                   "rsync://evil/m/x", "ftp://evil/x", "HTTP://evil/x",
                                   "dav://evil/x"])
async def test_vim_never_opens_a_value_on_another_host(config: Config, tmp_path: Path,
                                                       name: str, value: str) -> None:
    program = _recorder(tmp_path, name)
    for argv in ([program, "-es", F], ["timeout", "5", program, "-R", "--", F]):
        result = await run(config({"t": cmd(argv)}), "t", {"f": value})
        assert result.is_error and "vim's netrw opens it" in result.text_content, result


@pytest.mark.parametrize("name", ["emacs", "emacsclient"])
@pytest.mark.parametrize(("argv", "value"), [
    ([F], "/ssh:evil:/etc/x"), ([F], "/sudo::/etc/shadow"), ([F], "/evil:/x"),
    (["/" + F], "sudo::/etc/shadow"), (["--batch", F], "/scp:u@evil#22:/x"),
])
async def test_emacs_never_opens_a_value_through_tramp(config: Config, tmp_path: Path,
                                                       name: str, argv: list[str],
                                                       value: str) -> None:
    program = _recorder(tmp_path, name)
    result = await run(config({"t": cmd([program, *argv])}), "t", {"f": value})
    assert result.is_error and "emacs's TRAMP opens it" in result.text_content, result


@pytest.mark.parametrize("name", ["vim", "emacs"])
@pytest.mark.parametrize("value", ["notes.txt", "/etc/hostname", "a:b.txt",
                                   "file:///tmp/x", "dir/x:y"])
async def test_plain_paths_still_open(config: Config, tmp_path: Path, name: str,
                                      value: str) -> None:
    cfg = config({"t": cmd([_recorder(tmp_path, name), F])})
    result = await run(cfg, "t", {"f": value})
    assert not result.is_error and json.loads(result.text_content) == [value], result
