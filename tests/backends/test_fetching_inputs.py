"""pandoc, xmllint and xsltproc fetch an input named by a URL: a value that writes
``http://169.254.169.254/...`` would reach a host the config never named (and show its
answer to the model). Refused at the call; paths, ``file://`` and names with a colon run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .test_command_backend import Config, cmd, run
from .test_ffmpeg_values import _recorder

pytestmark = pytest.mark.anyio
F = "{{ f }}"


@pytest.mark.parametrize("name", ["pandoc", "xmllint", "xsltproc"])
@pytest.mark.parametrize("value", ["http://169.254.169.254/latest/meta-data/",
                                   "HTTPS://evil/x", "ftp://evil/x"])
async def test_a_value_is_never_a_url_they_fetch(config: Config, tmp_path: Path, name: str,
                                                 value: str) -> None:
    program = _recorder(tmp_path, name)
    style = ["style.xsl"] if name == "xsltproc" else []  # its first operand is the code
    for argv in ([program, *style, F], ["timeout", "5", program, *style, F]):
        result = await run(config({"t": cmd(argv)}), "t", {"f": value})
        assert result.is_error and f"{name} fetches it over the network" in \
            result.text_content, result


@pytest.mark.parametrize("name", ["pandoc", "xmllint", "xsltproc"])
@pytest.mark.parametrize("value", ["doc.md", "/tmp/x.xml", "file:///tmp/x.xml", "a:b.md"])
async def test_paths_still_run(config: Config, tmp_path: Path, name: str, value: str) -> None:
    style = ["style.xsl"] if name == "xsltproc" else []
    result = await run(config({"t": cmd([_recorder(tmp_path, name), *style, F])}), "t",
                       {"f": value})
    assert not result.is_error and json.loads(result.text_content) == [*style, value], result
