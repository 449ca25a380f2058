"""The values cap is one budget for the whole load: fragments each under the cap but over it
together (``extends``, nested ``extends``, layers, YAML and TOML) end the load with one located
line naming the load, not a swollen process; a load under the cap in total still loads."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TOOLHOST = str(Path(sys.executable).parent / "toolhost")
LIMIT = 2000
PER_FILE = 600  # values in each fragment: under the cap alone, over it four together


def _fragment(path: Path, count: int) -> None:
    if path.suffix == ".toml":
        path.write_text("[permissions]\nallow = [" + ", ".join(['"Read"'] * count) + "]\n")
    else:
        path.write_text("permissions:\n  allow: [" + ", ".join(["Read"] * count) + "]\n")


def _run(config: Path, *args: str, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TOOLHOST_MAX_CONFIG_VALUES": str(LIMIT), "TOOLHOST_DEBUG": "",
           "XDG_CONFIG_HOME": str(home or config.parent / "xdg")}
    return subprocess.run([TOOLHOST, *args, str(config)], capture_output=True, text=True,
                          env=env, timeout=120, cwd=config.parent)


def _flat(tmp: Path, ext: str, count: int) -> Path:
    names = [f"f{i}{ext}" for i in range(count)]
    for name in names:
        _fragment(tmp / name, PER_FILE)
    main = tmp / "main.yaml"
    main.write_text("toolhost: 1\nextends: [" + ", ".join(names) + "]\n")
    return main


def _nested(tmp: Path, ext: str, count: int) -> Path:
    """main -> f0 -> f1 -> ...: each fragment extends the next."""
    for i in range(count):
        path = tmp / f"f{i}{ext}"
        _fragment(path, PER_FILE)
        if i + 1 < count:
            nxt = f"f{i + 1}{ext}"
            head = f'extends = ["{nxt}"]\n' if ext == ".toml" else f"extends: [{nxt}]\n"
            path.write_text(head + path.read_text())
    main = tmp / "main.yaml"
    main.write_text(f"toolhost: 1\nextends: [f0{ext}]\n")
    return main


SHAPES = {"flat": _flat, "nested": _nested}


@pytest.mark.parametrize("command", [("validate", "--no-layers"), ("tools", "--no-layers")])
@pytest.mark.parametrize("ext", [".yaml", ".toml"])
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_fragments_over_the_cap_together_are_one_located_line(
        tmp_path: Path, shape: str, ext: str, command: tuple[str, ...]) -> None:
    main = SHAPES[shape](tmp_path, ext, 5)
    done = _run(main, *command)
    assert done.returncode == 1, done
    out = done.stdout + done.stderr
    assert f"more than {LIMIT:,} values" in out and "in this load" in out, out
    assert "Traceback" not in out and "internal error" not in out
    line = next(x for x in out.splitlines() if "in this load" in x)
    file, line_no = line.split(":")[:2]
    assert Path(file).name.startswith("f") and line_no.isdigit(), line  # in the fragment


@pytest.mark.parametrize("ext", [".yaml", ".toml"])
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_fragments_under_the_cap_together_load(tmp_path: Path, shape: str, ext: str) -> None:
    main = SHAPES[shape](tmp_path, ext, 3)
    done = _run(main, "validate", "--no-layers")
    assert "values" not in done.stdout + done.stderr, done
    assert done.returncode == 0, done


def test_the_user_layer_draws_on_the_same_budget(tmp_path: Path) -> None:
    home = tmp_path / "xdg"
    (home / "toolhost").mkdir(parents=True)
    _fragment(home / "toolhost" / "config.yaml", PER_FILE * 2)
    main = tmp_path / "main.yaml"
    _fragment(main, PER_FILE * 2)
    main.write_text("toolhost: 1\n" + main.read_text())
    alone = _run(main, "validate", "--no-layers", home=home)
    assert alone.returncode == 0, alone
    layered = _run(main, "validate", home=home)
    assert "in this load" in layered.stdout + layered.stderr, layered


def test_the_budget_is_per_load_and_gone_after_it() -> None:
    from toolhost.config.load_budget import spend_values, values_budget, values_left

    full = values_left()
    with values_budget():
        spend_values(10)
        assert values_left() == full - 10
        with values_budget():  # a load inside a load (a nested config) starts afresh
            assert values_left() == full
    assert values_left() == full
    spend_values(10)  # outside a load: nothing to charge
    assert values_left() == full
