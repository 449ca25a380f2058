"""A password written literally in a shared repository's URL (``extends: [{repo:
http://alice:PASSWORD@host/team.git}]``) is a secret: git gets it, nothing else does.

A real team repository behind a real HTTP server that demands Basic auth (so a clone only
works when git was given the credentials), and real ``toolhost`` processes: every command
that touches the URL, and every error it can end in, is checked for the password, raw,
percent-decoded and inside ``Basic base64(user:password)``, in stdout, stderr, the lock file
and every file under the cache.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest

from ..plugins.conftest import _make_repo, git

BASE = "servers:\n  s:\n    tools:\n      e: {command: [echo, hi]}\n"

# (userinfo as written in the URL, what the server expects as user:password)
USERINFOS = [
    ("alice:ghp_literalpass99", "alice:ghp_literalpass99"),
    ("alice:ghp%40pass%2F99", "alice:ghp@pass/99"),
]


class _Auth(SimpleHTTPRequestHandler):
    expected = ""

    def do_GET(self) -> None:
        if self.headers.get("Authorization") != self.expected:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="team"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        super().do_GET()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    """A bare copy of a team repository (tags v1, v3) over dumb HTTP with Basic auth."""
    team = tmp_path / "team"
    _make_repo(team, {"base.yaml": BASE}, tag="v1")
    _make_repo(team, {"other.yaml": BASE}, tag="v3")
    www = tmp_path / "www"
    www.mkdir()
    git(www, "clone", "-q", "--bare", str(team), "team.git")
    git(www / "team.git", "update-server-info")
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Auth, directory=str(www)))
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield tmp_path, server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def _toolhost(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TOOLHOST_CACHE": str(root / "cache"),
           "XDG_CONFIG_HOME": str(root / "xdg")}
    return subprocess.run([sys.executable, "-m", "toolhost", *args], cwd=root, text=True,
                          capture_output=True, timeout=120, env=env, check=False)


def _forms(info: str, expected: str) -> set[str]:
    secret = info.partition(":")[2] or info
    return {secret, unquote(secret), base64.b64encode(expected.encode()).decode()}


def _leaks(root: Path, forms: set[str], *outputs: str) -> list[str]:
    found = [f"output: {form}" for text in outputs for form in forms if form in text]
    for place in (root / "cache", root / "p"):
        for file in place.rglob("*") if place.exists() else ():
            if file.is_file() and file.name != "toolhost.yaml":
                data = file.read_bytes()
                found += [f"{file}: {f}" for f in forms if f.encode() in data]
    return found


def _config(root: Path, url: str, rev: str = "v1", path: str = "base.yaml") -> Path:
    config = root / "p" / "toolhost.yaml"
    config.parent.mkdir(exist_ok=True)
    config.write_text(f"toolhost: 1\nextends:\n  - repo: {url}\n    rev: {rev}\n"
                      f"    path: {path}\n")
    return config


@pytest.mark.parametrize(("info", "expected"), USERINFOS)
def test_no_command_shows_or_stores_the_password(served: tuple[Path, int], info: str,
                                                 expected: str) -> None:
    root, port = served
    _Auth.expected = "Basic " + base64.b64encode(expected.encode()).decode()
    url = f"http://{info}@127.0.0.1:{port}/team.git"
    forms = _forms(info, expected)
    config = _config(root, url)
    runs = [("lock", "p/toolhost.yaml"), ("lock", "--check", "p/toolhost.yaml"),
            ("lock", "--dry-run", "p/toolhost.yaml"), ("--debug", "validate", "p/toolhost.yaml"),
            ("-v", "tools", "p/toolhost.yaml"), ("update", "--dry-run", "p/toolhost.yaml"),
            ("update", "p/toolhost.yaml", "--repo", url + "x"),
            ("update", "p/toolhost.yaml", "--rev", "nosuch"),
            ("update", "p/toolhost.yaml")]
    for args in runs:
        done = _toolhost(root, *args)
        assert not _leaks(root, forms, done.stdout, done.stderr), (args, done.stderr)
    assert "rev: v3" in config.read_text()  # the update did reach the server
    lock = json.loads((root / "p" / "toolhost.lock").read_text())
    assert list(lock["sources"]) == [f"repo:http://127.0.0.1:{port}/team.git@v3"]
    # and every way a load can fail names the URL without its userinfo
    for bad in (_config(root, url, rev="nosuch"), _config(root, url, path="missing.yaml"),
                _config(root, url.replace(str(port), "1")),
                _config(root, url.replace(info, info[:-1] + "X"), rev="v9"),
                _config(root, url.replace(info, "ghp_tokenonly12345"), rev="v9")):
        (root / "p" / "toolhost.lock").unlink(missing_ok=True)
        done = _toolhost(root, "--debug", "validate", str(bad))
        assert done.returncode != 0
        assert f"127.0.0.1:{port}" in done.stderr or "127.0.0.1:1/" in done.stderr
        assert not _leaks(root, {*forms, "ghp_tokenonly12345"}, done.stdout, done.stderr), \
            done.stderr


def test_an_old_lock_and_cache_holding_the_password_are_rewritten(
        served: tuple[Path, int]) -> None:
    root, port = served
    info, expected = USERINFOS[0]
    _Auth.expected = "Basic " + base64.b64encode(expected.encode()).decode()
    url = f"http://{info}@127.0.0.1:{port}/team.git"
    config = _config(root, url)
    assert _toolhost(root, "lock", str(config)).returncode == 0
    lock_file = root / "p" / "toolhost.lock"
    plain = f"repo:http://127.0.0.1:{port}/team.git@v1"
    lock_file.write_text(lock_file.read_text().replace(plain, f"repo:{url}@v1"))
    legacy = root / "cache" / "repos" / hashlib.sha256(f"{url}\0v1".encode()).hexdigest()[:24]
    legacy.mkdir(parents=True)
    (legacy / ".toolhost-checkout.json").write_text(json.dumps({"url": url}))
    assert _toolhost(root, "validate", str(config)).returncode == 0  # the old lock reads
    assert not legacy.exists()
    check = _toolhost(root, "lock", "--check", str(config))
    assert check.returncode == 1 and "user name or password" in check.stderr
    assert not any(f in check.stdout + check.stderr for f in _forms(info, expected))
    assert _toolhost(root, "lock", str(config)).returncode == 0
    assert plain in lock_file.read_text()
    assert not _leaks(root, _forms(info, expected))
    assert _toolhost(root, "lock", "--check", str(config)).returncode == 0


@pytest.mark.parametrize("authority", ["alice:pw 1@127.0.0.1:9", "a@b@127.0.0.1:9",
                                       "127.0.0.1:9\\uff20evil.example", "127.0.0.1\\t:9"])
def test_an_ambiguous_repo_url_is_refused_before_git_runs(tmp_path: Path,
                                                          authority: str) -> None:
    config = tmp_path / "p" / "toolhost.yaml"
    config.parent.mkdir()
    config.write_text(f'toolhost: 1\nextends:\n  - repo: "http://{authority}/team.git"\n'
                      "    rev: v1\n", encoding="utf-8")
    done = _toolhost(tmp_path, "validate", str(config))
    assert done.returncode != 0 and "toolhost.yaml:3:5: extends[0]: `repo`: " in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not (tmp_path / "cache" / "repos").exists() or not any(
        (tmp_path / "cache" / "repos").iterdir())
