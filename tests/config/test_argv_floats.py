"""A float in a command's argv or env is refused at its line: it reached the program as Python
writes it (``1.10`` -> ``1.1``, ``1e3`` -> ``1000.0``), not as the author wrote it. YAML and
TOML alike (TOML keeps no source text to pass instead); quoting it passes the text."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.cli import main

YAML = "toolhost: 1\nservers:\n  s:\n    tools:\n      t:\n        description: d\n"
TOML = "toolhost = 1\n[servers.s.tools.t]\ndescription = \"d\"\n"
CASES = [
    ("c.yaml", YAML + "        command: [nvm, use, 1.10]\n", 7, "command[2]: a float (1.1)"),
    ("c.yaml", YAML + "        command: [echo, 1e3]\n", 7, "command[1]: a float (1000.0)"),
    ("c.yaml", YAML + "        command:\n          argv: [echo, {each: p, argv: [-n, 2.50]}]\n"
     "        params: {p: {type: array, items: {type: string}}}\n", 8,
     "command.argv[1].argv[1]: a float (2.5)"),
    ("c.yaml", YAML + "        command: {argv: [env], env: {V: 1.0}}\n", 7,
     "command.env.V: a float (1.0)"),
    ("c.toml", TOML + "command = [\"nvm\", \"use\", 1.10]\n", 4, "command[2]: a float (1.1)"),
    ("c.toml", TOML + "command = {argv = [\"env\"], env = {V = 3e2}}\n", 4,
     "command.env.V: a float (300.0)"),
]


@pytest.mark.parametrize(("name", "text", "line", "said"), CASES)
def test_a_float_in_argv_or_env_is_refused_at_its_line(
        tmp_path: Path, name: str, text: str, line: int, said: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / name
    config.write_text(text)
    code = main(["validate", "--no-layers", str(config)])
    err = capsys.readouterr().err
    assert code == 1 and f"{name}:{line}:" in err and said in err and "quote it" in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("argv", ["[nvm, use, '1.10']", "[echo, 7, -3, '1e3']"])
def test_quoted_floats_and_ints_are_kept(tmp_path: Path, argv: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(YAML + f"        command: {argv}\n")
    assert main(["validate", "--no-layers", str(config)]) == 0, capsys.readouterr().err
