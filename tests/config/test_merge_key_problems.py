"""A YAML merge key (``<<``) given what is not a mapping is one located line at the ``<<``,
whatever the value: an alias of a list of plain values, a list written in place, a plain or
empty value. It was one line per item, each at the item's own line (the anchor's, for an
alias), so the ``<<`` the author wrote was never named."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.config import load_config
from toolhost.errors import ConfigError

HEAD = "toolhost: 1\nx: &x\n  - a\n  - b\n  - c\ny: &y hello\nservers:\n  s:\n"


@pytest.mark.parametrize(("merge", "got"), [
    ("<<: *x", "its list holds a plain value"),
    ("<<: [a, b, c]", "its list holds a plain value"),
    ("<<: [*y, *y, *y, *y]", "its list holds a plain value"),
    ("<<: [[1], a, {tools: {}}]", "its list holds a list and a plain value"),
    ("<<: 5", "not a plain value"),
    ("<<: *y", "not a plain value"),
    ("<<:", "not an empty value"),
])
def test_a_merge_of_what_is_no_mapping_is_one_line_at_the_merge_key(
        merge: str, got: str, tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(HEAD + f"    {merge}\n    tools: {{}}\n")
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    lines = str(raised.value).splitlines()
    merged = [line for line in lines if "YAML merge" in line]
    assert merged == [f"{path}:9:5: servers.s: invalid YAML merge: '<<' takes a mapping or a "
                      f"list of mappings, {got} (anchor a mapping (x: &x {{...}}) and merge "
                      "it: <<: *x)"], lines


def test_a_merge_of_mappings_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("toolhost: 1\nbase: &b {tools: {t: {command: [echo]}}}\nservers:\n"
                    "  s:\n    <<: [*b]\n")
    with pytest.raises(ConfigError) as raised:  # `base` is no key of toolhost's
        load_config(path)
    assert "base: unknown key" in str(raised.value)
    assert "YAML merge" not in str(raised.value)
