"""A secret in packed data is hidden (``toolhost.redaction.packed``): a zip archive's members
(deflated, stored, streamed by ``zip -``), a tar archive (binary around the text) gzipped, raw
deflate without a header, ``.lzma`` (``xz --format=lzma``), in base64 or hex. The archives are
made by the real programs where a command would make them."""

from __future__ import annotations

import base64
import io
import os
import shutil
import subprocess
import zipfile
import zlib
from pathlib import Path

import pytest

from toolhost.redaction import MASK, Redactor
from toolhost.redaction.packed import MAX_MEMBERS, strings, unpacked

SECRET = "sk-live-9f8e7d6c5b4a3921"
R = Redactor(frozenset({SECRET}))
FILE = f"# settings\nendpoint = https://api.example.com\ntoken = {SECRET}\nretries = 3\n"


def run(command: str, where: Path) -> bytes:
    """``command`` run by ``sh`` in ``where`` (holding ``conf.txt``): its output."""
    if not all(shutil.which(word) for word in ("zip", "tar", "gzip", "xz")):
        pytest.skip("needs zip, tar, gzip and xz")
    (where / "conf.txt").write_text(FILE)
    return subprocess.run(["sh", "-c", command], cwd=where, capture_output=True, check=True,
                          env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                               "LC_ALL": "C"}).stdout


def raw_deflate(data: bytes) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush()


def in_memory_zip(data: bytes, method: int = zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", method) as archive:
        archive.writestr("docs/readme.txt", b"nothing here\n" * 20)
        archive.writestr("conf.txt", data)
    return out.getvalue()


COMMANDS = {
    "zip -q - conf.txt | base64": "zip -q - conf.txt",
    "printf | zip -q - - (sizes after the data) | base64": "cat conf.txt | zip -q - -",
    "tar czf - conf.txt | base64": "tar czf - conf.txt",
    "tar cJf - conf.txt | base64": "tar cJf - conf.txt",
    "xz --format=lzma | base64": "xz --format=lzma -c conf.txt",
}


@pytest.mark.parametrize("command", COMMANDS.values(), ids=COMMANDS.keys())
def test_an_archive_a_command_made_is_read(command: str, tmp_path: Path) -> None:
    packed = run(command, tmp_path)
    for shown in (base64.b64encode(packed).decode(), base64.encodebytes(packed).decode(),
                  packed.hex()):
        hidden = R.redact(f"archive: {shown} end")
        # (a wrapped block's last line, an archive's directory, may show: no data of it)
        assert hidden.startswith(f"archive: {MASK}") and hidden.endswith(" end")
        assert len(hidden) <= len(f"archive: {MASK} end") + 100


@pytest.mark.parametrize("packed", [
    raw_deflate(FILE.encode()),  # PHP's gzdeflate, SAML's redirect binding
    in_memory_zip(FILE.encode()),  # a zip built in a script (a .docx is one)
    in_memory_zip(FILE.encode(), zipfile.ZIP_BZIP2),
    zlib.compress(in_memory_zip(FILE.encode())),
], ids=["raw deflate", "zip, deflated", "zip, bzip2", "zlib of a zip"])
def test_packed_data_a_script_made_is_read(packed: bytes) -> None:
    for shown in (base64.b64encode(packed).decode(),
                  base64.urlsafe_b64encode(packed).decode().rstrip("=")):
        assert R.redact(f"data={shown}") == f"data={MASK}"


def test_packed_data_without_a_secret_is_left(tmp_path: Path) -> None:
    clean = FILE.replace(SECRET, "(none)")
    (tmp_path / "conf.txt").write_text(clean)
    for packed in (raw_deflate(clean.encode()), in_memory_zip(clean.encode()),
                   zlib.compress(os.urandom(3000)), raw_deflate(os.urandom(3000)),
                   in_memory_zip(os.urandom(3000))):
        shown = base64.b64encode(packed).decode()
        assert R.redact(shown) == shown
    assert unpacked(b"\x89PNG\r\n\x1a\n" + os.urandom(200), 1 << 20, raw=True) == []


def test_an_archive_of_too_many_members_is_hidden_unread() -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        for n in range(MAX_MEMBERS + 1):
            archive.writestr(f"{n}.txt", b"x")
    shown = base64.b64encode(out.getvalue()).decode()
    assert R.redact(f"zip: {shown}") == f"zip: {MASK}"
    assert unpacked(out.getvalue(), 1 << 20) is None


def test_a_zip_bomb_is_unread() -> None:
    bomb = in_memory_zip(b"\0" * (4 << 20))
    assert unpacked(bomb, 1 << 20) is None
    assert R.redact(base64.b64encode(bomb).decode()) == MASK


def test_binary_is_looked_at_by_its_printable_runs() -> None:
    assert strings(b"\0\0name\0\x01" + SECRET.encode() + b"\0\xff") == (
        f"\n\nname\n\n{SECRET}\n\ufffd")
