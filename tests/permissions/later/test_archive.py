"""Round 17: an archive unpacked by ``tar -x`` or ``unzip`` is listed when the command is
decided: one holding a file a later command runs (``.husky/pre-commit``, ``.git/hooks/*``,
``.envrc``, a link to ``.git/hooks``) is not provable, and so is one that cannot be listed
whole (a FIFO, not an archive, a compressed bomb) or that a command before it may make. A
plain ``tar xf x.tar`` of an archive holding none is decided as before."""

from __future__ import annotations

import io
import os
import tarfile
import zipfile
from pathlib import Path

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy


def _tar(path: Path, members: dict[str, bytes], mode: str = "w",
         link: tuple[str, str] | None = None) -> None:
    with tarfile.open(path, mode) as tar:  # type: ignore[call-overload]
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        if link is not None:
            info = tarfile.TarInfo(link[0])
            info.type, info.linkname = tarfile.SYMTYPE, link[1]
            tar.addfile(info)


def _zip(path: Path, members: dict[str, bytes], link: tuple[str, str] | None = None) -> None:
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
        if link is not None:  # a symlink entry: its mode in the high bits, its target as data
            info = zipfile.ZipInfo(link[0])
            info.external_attr = (0o120777 << 16)
            z.writestr(info, link[1])


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("project")
    evil = {"src/a.py": b"x = 1\n", "./.husky/pre-commit": b"rm -rf y\n"}
    honest = {"src/a.py": b"x = 1\n", "README.md": b"hi\n"}
    _tar(root / "evil.tar", evil)
    _tar(root / "evil.tgz", {".envrc": b"rm -rf y\n"}, "w:gz")
    _tar(root / "evil.txz", {"p/.git/hooks/post-merge": b"x\n"}, "w:xz")
    _tar(root / "link.tar", honest, link=("h", ".git/hooks"))
    _zip(root / "evil.zip", {"pkg/.bashrc": b"rm -rf y\n"})
    _tar(root / "ok.tar", honest)
    _tar(root / "ok.tbz", honest, "w:bz2")
    _zip(root / "ok.zip", honest)
    _zip(root / "link.zip", {"a/x.desktop": b"[Desktop Entry]\n"},
         link=("a", "/root/.config/autostart"))
    with tarfile.open(root / "bomb.tgz", "w:gz") as tar:  # 70 MiB of zeros, then a hook
        info = tarfile.TarInfo("big")
        info.size = 70 * 1024 * 1024
        tar.addfile(info, io.BytesIO(bytes(info.size)))
        tar.addfile(tarfile.TarInfo(".git/hooks/pre-commit"))
    (root / "notes.tar").write_text("not an archive")
    (root / "sub").mkdir()
    _tar(root / "sub" / "x.tar", evil)
    _tar(root / "sub" / "ok.tar", honest)
    os.mkfifo(root / "fifo.tar")  # no writer: a blocking read would hang
    return root


def decide(root: Path, command: str, rules: list[tuple[str, str]]) -> str:
    policy = compile_policy(PermissionsConfig(
        rules=[RuleConfig(effect=e, tool=t) for e, t in rules], default="ask"), cwd=str(root))
    return policy.decide("Bash", {"command": command}).behavior


GUARDED = [("deny", "Bash(rm:*)"), ("allow", "Bash")]
OPEN = [("allow", "Bash")]

NOT_PROVABLE = [
    "tar xf evil.tar", "tar -xzf evil.tgz", "tar xJf evil.txz", "tar --extract --file=evil.tar",
    "tar -x -f evil.tar -C sub", "tar -xfevil.tar", "unzip evil.zip", "unzip -o evil.zip",
    "sudo tar xf evil.tar", "tar xf link.tar", "tar xzf bomb.tgz", "tar xf notes.tar",
    "tar xf fifo.tar", "cat ok.tar | tar x", "curl -sO http://x/a.tar && tar xf a.tar",
    "unzip -q evil.zip -d out", "unzip link.zip", "cd sub && tar xf x.tar",
    "cd $D && tar xf ok.tar",
    "mkdir -p sub && cd sub && tar xf ../evil.tar",
]


@pytest.mark.parametrize("command", NOT_PROVABLE)
def test_an_archive_holding_a_run_later_file_is_not_provable(project: Path,
                                                             command: str) -> None:
    assert decide(project, command, GUARDED) == "deny"
    assert decide(project, command, OPEN) == "ask"


HONEST = [
    "tar xf ok.tar", "tar xjf ok.tbz", "unzip ok.zip", "unzip -o ok.zip -d out",
    "tar czf out.tgz src", "tar tf evil.tar", "unzip -l evil.zip", "unzip -p evil.zip x",
    "tar xf missing.tar",  # (it fails: nothing before it can make it)
    "tar -xf ok.tar -C build", "mkdir -p out && tar xf missing.tar -C out",
    "cd sub && tar xf ok.tar", "git pull && tar xf ok.tar",
]


@pytest.mark.parametrize("command", HONEST)
def test_an_honest_unpack_is_decided_as_before(project: Path, command: str) -> None:
    assert decide(project, command, GUARDED) == "allow"
