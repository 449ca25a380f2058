"""A YAML file without aliases is walked once: the walk lets go of PyYAML's nodes as it builds
the data, so a file just under the value limit is not held twice (367 MB -> ~235 MB for
499,000 values). The data, marks and problems must be what the walk that keeps every node
(a file with an alias, or a ``*`` anywhere) builds."""

from __future__ import annotations

import gc
import tracemalloc
import weakref
from pathlib import Path
from typing import Any

import pytest
from yaml.nodes import ScalarNode
from yaml.resolver import BaseResolver

from toolhost.cli import main
from toolhost.commands import validate
from toolhost.config.yaml_source import _Loader, parse_yaml
from toolhost.errors import Problem

N = 30_000
FLOODS = {
    "flow list": "toolhost: 1\nx: [" + ",".join(str(i) for i in range(N)) + "]\n",
    "block maps": "toolhost: 1\nx:\n" + "".join(f"  - {{a: {i}}}\n" for i in range(N // 3)),
    # an anchor with no alias anywhere (no '*' in the text): its events are not kept
    "anchored list": "toolhost: 1\nx: &a [" + ",".join(str(i) for i in range(N)) + "]\n",
}


@pytest.mark.parametrize("name", sorted(FLOODS))
def test_the_nodes_are_not_held_beside_the_data(name: str) -> None:
    text = FLOODS[name]
    tracemalloc.start()
    try:
        doc = parse_yaml(text, "f.yaml", "project", [])
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert doc is not None
    # holding every node beside the data and marks peaked at 2.6-2.8x what is kept
    assert peak < 1.8 * kept, (peak, kept)


SAMPLES = [
    "toolhost: 1\nservers:\n  s:\n    tools:\n      t:\n        command: [echo, 1, 0, 17]\n",
    "a: [1, 2, {b: [3, 4]}]\nc:\n  - d: 1\n    e: [x, y]\n  - 5\n",
    "a: 0755\nb: 1:30\nc: 99999999999999999999\nd: !!int 12\ne: !!int '²'\nf: +5\ng: 1_000\n",
    "a: 1\na: 2\nb: {c: 1, c: 2}\nd: !!binary aGk=\ne: [.inf, -0, 0x10]\n",
    "k: {<<: {a: 1}, b: 2}\nl: [[[[]]]]\nm: ~\nn: yes\no: 2026-01-01\n",
]


@pytest.mark.parametrize("text", SAMPLES)
def test_a_walk_that_lets_go_builds_what_the_keeping_walk_builds(text: str) -> None:
    once: list[Problem] = []
    kept: list[Problem] = []
    one = parse_yaml(text, "c.yaml", "project", once)
    # a '*' in a comment makes the walk keep every node (it cannot tell an alias from it)
    two = parse_yaml(text + "# *\n", "c.yaml", "project", kept)
    assert [str(p) for p in once] == [str(p) for p in kept]
    assert (one is None) == (two is None)
    if one is not None and two is not None:
        assert one.data == two.data
        assert one.marks == two.marks
        assert all(type(a) is type(b) for a, b in zip(_leaves(one.data), _leaves(two.data),
                                                      strict=True))


def _leaves(data: object) -> list[object]:
    if isinstance(data, dict):
        return [leaf for value in data.values() for leaf in _leaves(value)]
    if isinstance(data, list):
        return [leaf for value in data for leaf in _leaves(value)]
    return [data]



def test_validate_lets_go_of_each_file_before_the_next(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`validate a b c` held the last file's config (its marks and data: ~190 MB for a file
    just under the value limit) while it read the next one: three such files peaked at
    424 MB, one at 232 MB. The last file's config must be gone when the next is read."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home"))
    files = []
    for name in "abc":
        files.append(str(tmp_path / f"{name}.yaml"))
        Path(files[-1]).write_text("toolhost: 1\nservers:\n  s:\n    tools:\n      t:\n"
                                   "        command: [echo, hi]\npermissions: {default: allow}\n")
    real = validate._check
    seen: list[weakref.ref[object]] = []
    alive: list[bool] = []

    def check(file: str, args: Any) -> Any:
        alive.extend(ref() is not None for ref in seen)
        found = real(file, args)
        seen.append(weakref.ref(found[0]))
        return found

    monkeypatch.setattr(validate, "_check", check)
    assert main(["validate", "-q", *files]) == 0
    assert len(seen) == 3 and alive == [False, False, False], alive


SCALARS = ["0", "00", "0755", "1", "10", "9" * 30, "1_000", "+1", "-1", "0x1f", "0o17", "1e5",
           "1.5", ".5", ".inf", "NaN", "12:30", "2001-12-14", "\u0661\u0662", "\u00b2", "yes",
           "Yes", "on", "OFF", "y", "~", "null", "=", "<<", "<", "k1", "ab", "_x", "\u00e9"]


@pytest.mark.parametrize("value", SCALARS)
def test_the_quick_resolver_gives_pyyamls_tag(value: str) -> None:
    """The loader answers the commonest scalars (plain digits, text no resolver starts with)
    without PyYAML's resolver loop: the tag must be the one that loop gives."""
    loader = _Loader("")
    try:
        for implicit in ((True, False), (False, True), (False, False)):
            assert (loader.resolve(ScalarNode, value, implicit)
                    == BaseResolver.resolve(loader, ScalarNode, value, implicit))
    finally:
        loader.dispose()


@pytest.mark.parametrize("text", ["a: &x [1, 2, 3]\nb: *x\n" + "c: [" + "0," * 5_000 + "0]\n",
                                  "a: [" + "0," * 5_000 + "0]\n"])
def test_nothing_of_a_parse_outlives_it_without_the_cyclic_collector(text: str) -> None:
    """Loads run with the cyclic collector paused (and the first one's objects frozen for
    good): a parse must free its loader, the text libyaml holds and the kept anchor events
    by reference counting alone. (The event generator's frame held the builder: a cycle.)"""
    parse_yaml(text, "f.yaml", "project", [])  # imports and caches warmed
    gc.disable()
    tracemalloc.start()
    try:
        parse_yaml(text, "f.yaml", "project", [])  # the doc is dropped at once
        left, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        gc.enable()
    assert left < 20_000, left
