"""Round 10: a deny or ask rule whose ``when`` tests a built-in tool's path or URL as written
(``glob``, ``regex``, ``equals``, a plain value) is named by ``validate`` at its line: other
spellings of the same file (``/etc//passwd``, ``/tmp/../etc/passwd``, a symlink) or host
(``HTTPS://EXAMPLE.COM``) escape it. ``path_under``/``path_glob``/``host`` (which compare
normalised values) and allow rules are not named."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.config.loader import load_config
from toolhost.permissions.authoring.mistakes import review_rules

NAMED = [
    ("Read", "{file_path: {glob: \"/etc/*\"}}", "tests the path as written"),
    ("Read", "{file_path: \"/etc/passwd\"}", "tests the path as written"),
    ("Read", "{file_path: {regex: \"\\\\.env$\"}}", "tests the path as written"),
    ("Edit", "{file_path: {equals: \"/etc/hosts\"}}", "tests the path as written"),
    ("Grep", "{path: {glob: \"/home/*/.ssh\"}}", "tests the path as written"),
    ("NotebookEdit", "{notebook_path: {glob: \"/x/*\"}}", "tests the path as written"),
    ("WebFetch", "{url: {glob: \"*example.com*\"}}", "tests the URL as written"),
    ("WebFetch", "{url: {regex: \"example\\\\.com\"}}", "tests the URL as written"),
    ("WebFetch", "{url: \"https://example.com/\"}", "tests the URL as written"),
]
QUIET = [("Read", "{file_path: {path_under: \"/etc\"}}"),
         ("Read", "{file_path: {path_glob: \"/etc/**\"}}"),
         ("WebFetch", "{url: {host: \"example.com\"}}"),
         ("Bash", "{run_in_background: true}")]


def _review(tmp_path: Path, rules: list[tuple[str, str]], effect: str) -> list[str]:
    body = "".join(f"    - tool: {tool}\n      when: {when}\n" for tool, when in rules)
    config = tmp_path / "toolhost.yaml"
    config.write_text(f"toolhost: 1\npermissions:\n  {effect}:\n{body}")
    return [f"{f.level} {f.problem}" for f in review_rules(load_config(str(config),
                                                                        layers=False))]


@pytest.mark.parametrize("effect", ["deny", "ask"])
def test_each_is_named_at_its_when_line_in_one_run(tmp_path: Path, effect: str) -> None:
    found = _review(tmp_path, [(t, w) for t, w, _ in NAMED] + QUIET, effect)
    for k, (_, _, words) in enumerate(NAMED):
        assert any(f"toolhost.yaml:{5 + 2 * k}:" in f and words in f for f in found), (k, found)
    assert not [f for f in found if "as written" in f and any(
        f"toolhost.yaml:{5 + 2 * (len(NAMED) + k)}:" in f for k in range(len(QUIET)))], found


def test_an_allow_is_not_named(tmp_path: Path) -> None:
    found = _review(tmp_path, [(t, w) for t, w, _ in NAMED], "allow")
    assert not [f for f in found if "as written" in f], found


# round 15: an expr reading the command, path or URL reads the text as written too
EXPRS = [("Bash", "'rm' in args.command", "expr reads args.command as written"),
         ("Bash", "args.command.startswith('rm')", "expr reads args.command as written"),
         ("Read", "args.file_path.startswith('/etc')", "expr reads args.file_path: it tests"),
         ("WebFetch", "'evil.com' in args.url", "expr reads args.url: it tests")]
QUIET_EXPRS = [("Bash", "args.timeout > 100"), ("Read", "args.limit > 10")]


def test_a_deny_expr_reading_the_text_is_named_at_its_line(tmp_path: Path) -> None:
    rules = EXPRS + [(t, e, "") for t, e in QUIET_EXPRS]
    body = "".join(f"    - tool: {tool}\n      expr: \"{expr}\"\n" for tool, expr, _ in rules)
    config = tmp_path / "toolhost.yaml"
    config.write_text(f"toolhost: 1\npermissions:\n  deny:\n{body}")
    found = [f"{f.level} {f.problem}" for f in review_rules(load_config(str(config),
                                                                         layers=False))]
    for k, (_, _, words) in enumerate(EXPRS):
        assert any(f"toolhost.yaml:{5 + 2 * k}:" in f and words in f for f in found), (k, found)
    assert len([f for f in found if "expr reads" in f]) == len(EXPRS), found
    config.write_text(f"toolhost: 1\npermissions:\n  allow:\n{body}")
    assert not [p for f in review_rules(load_config(str(config), layers=False))
                if "expr reads" in (p := f.problem)]
