"""gawk opens a file operand ``/inet/tcp/LPORT/HOST/RPORT`` (``/inet4/``, ``/inet6/``,
``udp``) as a network connection: a value that writes that start would reach a host the
config never named. Refused at the call for gawk and awk (which may be gawk), by name,
through wrappers, links and ``#!`` scripts; checked for real with gawk and a listener that
records any connection. A plain path, and ``./inet/...``, still run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from .test_command_backend import Config, cmd, run
from .test_ffmpeg_values import _recorder

pytestmark = pytest.mark.anyio


def _gawk() -> str:
    path = shutil.which("gawk")
    if path is None:
        pytest.skip("gawk is not installed")
    return path



@pytest.mark.parametrize("shape", ["gawk", "awk-link", "wrapped", "script", "slash-glued"])
@pytest.mark.parametrize("special", ["/inet/tcp/0/127.0.0.1/{port}",
                                     "/inet4/tcp/0/127.0.0.1/{port}"])
async def test_a_value_never_makes_gawk_connect(config: Config, tmp_path: Path,
                                                listener: tuple[int, list[bytes]],
                                                shape: str, special: str) -> None:
    gawk = _gawk()
    port, got = listener
    value = special.format(port=port)
    program, rest = gawk, ["{print}"]
    if shape == "awk-link":
        (tmp_path / "bin").mkdir()
        (tmp_path / "bin" / "awk").symlink_to(gawk)
        program = str(tmp_path / "bin" / "awk")
    if shape == "script":
        script = tmp_path / "show"
        script.write_text(f"#!{gawk} -f\n{{print}}\n")
        script.chmod(0o755)
        program, rest = str(script), []
    argv = [program, *rest, "{{ f }}"]
    if shape == "wrapped":
        argv = ["timeout", "5", *argv]
    if shape == "slash-glued":  # the config writes the '/', the value the rest
        argv, value = [program, *rest, "/{{ f }}"], value[1:]
    cfg = config({"t": cmd(argv, options={"cwd": str(tmp_path)})})
    result = await run(cfg, "t", {"f": value})
    assert result.is_error and "as a network connection" in result.text_content, result
    assert got == []


async def test_plain_paths_still_run(config: Config, tmp_path: Path) -> None:
    gawk = _gawk()
    (tmp_path / "inet" / "tcp").mkdir(parents=True)
    (tmp_path / "inet" / "tcp" / "x").write_text("local\n")
    cfg = config({"t": cmd([gawk, "{print}", "{{ f }}"], options={"cwd": str(tmp_path)}),
                  "u": cmd([gawk, "{print}", "./{{ f }}"], options={"cwd": str(tmp_path)})})
    for tool, value in (("t", "inet/tcp/x"), ("u", "inet/tcp/x"), ("t", str(tmp_path / "inet"
                                                                              / "tcp" / "x"))):
        result = await run(cfg, tool, {"f": value})
        assert not result.is_error and result.text_content == "local\n", result


@pytest.mark.parametrize("name", ["gawk", "awk", "nawk"])
@pytest.mark.parametrize("value", ["/inet/tcp/0/127.0.0.1/9", "/inet6/udp/0/::1/9"])
async def test_by_name_without_gawk_installed(config: Config, tmp_path: Path, name: str,
                                              value: str) -> None:
    program = _recorder(tmp_path, name)  # prints its argv: never reached here
    cfg = config({"t": cmd([program, "-v", "x=1", "{print}", "{{ f }}"])})
    result = await run(cfg, "t", {"f": value})
    assert result.is_error and "as a network connection" in result.text_content, result
    ok = await run(cfg, "t", {"f": "inet/tcp/0/127.0.0.1/9"})
    assert not ok.is_error and json.loads(ok.text_content)[-1] == "inet/tcp/0/127.0.0.1/9"
