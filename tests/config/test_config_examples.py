"""Every config in examples/configs/ loads with the real backend kinds and fits schema.json.

Top-level files are complete configs (every engineer's examples live there); files in
subdirectories are fragments that the top-level ones extend. YAML/TOML twins (same stem)
must load to the same model.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator

from toolhost.config import load_config
from toolhost.config.schema import shipped_schema

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

EXAMPLES = Path(__file__).parents[2] / "examples" / "configs"
SUFFIXES = (".yaml", ".yml", ".toml")
CONFIGS = sorted(p for p in EXAMPLES.iterdir() if p.suffix in SUFFIXES)
FRAGMENTS = sorted(p for p in EXAMPLES.rglob("*")
                   if p.suffix in SUFFIXES and p.parent != EXAMPLES
                   and "openapi-data" not in p.parts)  # OpenAPI documents, not configs
TWINS = sorted(p.with_suffix("") for p in CONFIGS
               if p.suffix == ".toml" and p.with_suffix(".yaml").exists())


def _raw(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    return tomllib.loads(text) if path.suffix == ".toml" else yaml.safe_load(text)


def _environ(tmp_path: Path) -> dict[str, str]:
    import os
    return {**os.environ, "HOME": str(tmp_path)}  # no user layer


def test_there_are_examples() -> None:
    assert len([p for p in CONFIGS if p.name.startswith("config-")]) >= 10
    assert len(TWINS) >= 5


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_example_loads(path: Path, tmp_path: Path) -> None:
    config = load_config(path, environ=_environ(tmp_path), layers=False)
    assert config.files[0] == str(path)
    # the permission rules compile too: `run` and `validate` refuse a rule that does not
    from toolhost.permissions import compile_policy
    compile_policy(config.permissions, cwd=str(tmp_path))


@pytest.mark.parametrize("path", [*CONFIGS, *FRAGMENTS], ids=lambda p: p.name)
def test_example_fits_the_schema(path: Path) -> None:
    validator = Draft202012Validator(shipped_schema())
    errors = [f"{'.'.join(map(str, e.absolute_path))}: {e.message}"
              for e in validator.iter_errors(_raw(path) or {})]
    assert errors == []


def _model(config: Any) -> Any:
    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items()
                    if k not in ("origin", "origins", "files")}
        if isinstance(value, (list, tuple)):
            return [strip(v) for v in value]
        return value
    return json.dumps(strip(asdict(config)), sort_keys=True, default=sorted)


@pytest.mark.parametrize("stem", TWINS, ids=lambda p: p.name)
def test_twins_load_to_the_same_model(stem: Path, tmp_path: Path) -> None:
    env = _environ(tmp_path)
    from_yaml = load_config(stem.with_suffix(".yaml"), environ=env, layers=False)
    from_toml = load_config(stem.with_suffix(".toml"), environ=env, layers=False)
    assert _model(from_yaml) == _model(from_toml)
