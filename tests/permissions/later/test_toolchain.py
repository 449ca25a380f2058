"""Round 25: rustup's proxies run the toolchain a rust-toolchain file (or ``+PATH``,
``RUSTUP_TOOLCHAIN``) names by a path, even for ``cargo --version``: not provable under a
deny or ask Bash rule. rustup is the judge of a real case where it is installed."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.permissions.later.test_archive import GUARDED, OPEN, decide

ASKED = [("ask", "Bash(rm:*)"), ("allow", "Bash")]
BY_PATH = {"rust-toolchain.toml": '[toolchain]\npath = "/tmp/t"\n',
           "rust-toolchain": "/tmp/t\n"}
RUNS = ["cargo --version", "cargo fmt", "rustc --version", "rustfmt x.rs",
        "cargo-clippy --help", "sudo -u u cargo tree", "/usr/bin/rustdoc --help",
        "rustup show", "ls && cargo fmt"]


@pytest.mark.parametrize("name", sorted(BY_PATH))
@pytest.mark.parametrize("command", RUNS)
@pytest.mark.parametrize("in_parent", [False, True])
def test_a_toolchain_file_naming_a_path_is_not_provable(
        tmp_path: Path, name: str, command: str, in_parent: bool) -> None:
    (tmp_path / name).write_text(BY_PATH[name])
    here = tmp_path / "crate" if in_parent else tmp_path
    here.mkdir(exist_ok=True)
    assert decide(here, command, GUARDED) == "deny"
    assert decide(here, command, ASKED) == "ask"
    assert decide(here, command, OPEN) == "allow"


@pytest.mark.parametrize("command", [
    "cargo +/tmp/t --version", "RUSTUP_TOOLCHAIN=/tmp/t cargo fmt",
    "cd sub && cargo fmt", "env RUSTUP_TOOLCHAIN=/tmp/t rustc --version"])
def test_a_toolchain_named_on_the_line_by_a_path_is_not_provable(tmp_path: Path,
                                                                  command: str) -> None:
    assert decide(tmp_path, command, GUARDED) == "deny"


@pytest.mark.parametrize("command", ["cargo --version", "cargo fmt", "rustup --version",
                                     "cargo +nightly --version", "ls rust-toolchain.toml"])
def test_a_toolchain_file_naming_a_channel_stays_allowed(tmp_path: Path, command: str) -> None:
    (tmp_path / "rust-toolchain.toml").write_text('[toolchain]\nchannel = "1.80"\n')
    assert decide(tmp_path, command, GUARDED) == "allow"
    (tmp_path / "rust-toolchain.toml").unlink()
    assert decide(tmp_path, command, GUARDED) == "allow"


@pytest.mark.skipif(shutil.which("rustup") is None or shutil.which("cargo") is None,
                    reason="rustup is the judge")
def test_rustup_really_runs_the_toolchain_the_file_names(tmp_path: Path) -> None:
    fake = tmp_path / "fake" / "bin"
    fake.mkdir(parents=True)
    for tool in ("cargo", "rustc"):
        (fake / tool).write_text(f"#!/bin/sh\ntouch {tmp_path}/ran\n")
        (fake / tool).chmod(0o755)
    (tmp_path / "rust-toolchain.toml").write_text(f'[toolchain]\npath = "{fake.parent}"\n')
    env = {k: v for k, v in os.environ.items() if k != "RUSTUP_TOOLCHAIN"}
    subprocess.run(["cargo", "--version"], cwd=tmp_path, env=env, capture_output=True,
                   timeout=60)
    assert (tmp_path / "ran").exists()
    assert decide(tmp_path, "cargo --version", GUARDED) == "deny"
