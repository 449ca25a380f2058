"""A config's secrets are bounded, in number and in characters all together: past either
limit the load is refused with one line at the value that passed it, before the redactor sets
any of them up (5,000 secrets were an internal error, 100,000 took minutes and 13 GB)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.config import layers
from toolhost.config.loader import load_config
from toolhost.errors import ConfigError

SERVER = "toolhost: 1\nservers:\n  s:\n    tools: {t: {command: [echo], description: d}}\n"


@pytest.mark.parametrize(("body", "environ", "where", "says"), [
    # four declared secrets, the fourth past a limit of three
    ("    secrets: [A, B, C, D]\n    env: {A: aaaa, B: bbbb, C: cccc, D: dddd}\n", {},
     (6, 38, "servers.s.env.D"), "more than 3 secret values in one config"),
    # one credential longer than all may be together
    ("    auth: {type: bearer, token: '" + "t" * 60 + "'}\n", {},
     (5, 26, "servers.s.auth.token"), "add up to more than 50 characters (this one has 60)"),
    # a ${VAR} substituted under headers: its value is the secret, found inside the string
    ("    headers: {X-Key: 'Bearer ${KEY}'}\n", {"KEY": "k" * 51},
     (5, 15, "servers.s.headers.X-Key"), "(this one has 51)"),
])
def test_too_many_or_too_long_secrets_are_one_located_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str, environ: dict[str, str],
        where: tuple[int, int, str], says: str) -> None:
    monkeypatch.setenv("TOOLHOST_MAX_SECRETS", "3")
    monkeypatch.setenv("TOOLHOST_MAX_SECRET_CHARS", "50")
    monkeypatch.setattr(layers, "remember", _never)  # refused before any set-up
    config = tmp_path / "c.yaml"
    config.write_text(SERVER + body)
    with pytest.raises(ConfigError) as caught:
        load_config(config, layers=False, environ=environ)
    (problem,) = caught.value.problems
    assert (problem.line, problem.column, problem.key_path) == where
    assert says in problem.message
    assert "TOOLHOST_MAX_SECRET" in problem.hint


def test_secrets_within_the_limits_load(tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLHOST_MAX_SECRETS", "3")
    monkeypatch.setenv("TOOLHOST_MAX_SECRET_CHARS", "50")
    config = tmp_path / "c.toml"  # one value written twice is one secret
    config.write_text('toolhost = 1\n[servers.s]\nsecrets = ["A", "B", "C"]\n'
                      'env = {A = "aaaa", B = "bbbb", C = "cccc", D = "aaaa"}\n'
                      '[servers.s.tools.t]\ncommand = ["echo"]\n')
    assert "cccc" in load_config(config, layers=False, environ={}).secrets


def _never(secrets: object) -> None:
    raise AssertionError("the redactor was set up for a config past the secrets' limits")
