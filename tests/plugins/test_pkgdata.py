"""pkg:NAME/PATH fragments are found by distribution or module name, without importing."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from toolhost.config.model import Origin
from toolhost.config.pkgdata import is_pkg_ref, resolve_pkg
from toolhost.errors import ConfigError

MakePlugin = Callable[..., Path]
AT = Origin("app.yaml", 2, 5, "extends[1]")


def test_fragment_by_distribution_and_module_name(make_plugin: MakePlugin) -> None:
    site = make_plugin("toolhost-frag", modules={
        "frag_plugin/__init__": "raise RuntimeError('imported!')\n"},
        entry_points={"main": "frag_plugin"})
    (site / "frag_plugin" / "presets").mkdir()
    preset = site / "frag_plugin" / "presets" / "base.yaml"
    preset.write_text("toolhost: 1\n")
    (site / "toolhost_frag-1.0.0.dist-info" / "top_level.txt").write_text("frag_plugin\n")

    assert is_pkg_ref("pkg:toolhost-frag/presets/base.yaml") and not is_pkg_ref("./x.yaml")
    assert resolve_pkg("pkg:toolhost-frag/presets/base.yaml", where=AT) == preset
    assert resolve_pkg("pkg:Toolhost_Frag/presets/base.yaml") == preset
    assert resolve_pkg("pkg:frag_plugin/presets/base.yaml") == preset
    assert "frag_plugin" not in sys.modules


def test_a_dotted_top_level_name_is_not_imported_to_be_found(make_plugin: MakePlugin) -> None:
    # find_spec("a.b") imports a: a distribution's top_level.txt naming "frag_evil.sub" ran
    # frag_evil's code for a pkg: reference, which must find files without importing
    site = make_plugin("toolhost-frag", modules={
        "frag_evil/__init__": "raise RuntimeError('imported!')\n"},
        entry_points={"main": "frag_evil"})
    (site / "toolhost_frag-1.0.0.dist-info" / "top_level.txt").write_text("frag_evil.sub\n")
    with pytest.raises(ConfigError, match=r"package 'toolhost-frag' has no file 'x\.yaml'"):
        resolve_pkg("pkg:toolhost-frag/x.yaml", where=AT)
    assert "frag_evil" not in sys.modules


def test_bad_references_name_the_config_line(make_plugin: MakePlugin) -> None:
    make_plugin("toolhost-frag", modules={"toolhost_frag/__init__": ""},
                entry_points={"main": "toolhost_frag"})  # no top_level.txt: name -> module
    with pytest.raises(ConfigError) as info:
        resolve_pkg("pkg:toolhost-frag/nope.yaml", where=AT)
    assert str(info.value).startswith("app.yaml:2:5: extends[1]: package 'toolhost-frag' has "
                                      "no file 'nope.yaml'")
    with pytest.raises(ConfigError, match="no installed package or module named 'nothere'"):
        resolve_pkg("pkg:nothere/x.yaml", where=AT)
    for bad in ("pkg:toolhost-frag", "pkg:/x.yaml", "pkg:toolhost-frag/../secret"):
        with pytest.raises(ConfigError, match="is not of the form 'pkg:NAME/PATH'"):
            resolve_pkg(bad, where=AT)


@pytest.mark.parametrize("name", ["x|curl`id`|sh|", "a b", "x;id", "$(id)"])
def test_a_name_no_package_can_have_is_not_offered_to_pip(name: str) -> None:
    """`pip install NAME` in the hint is pasted: NAME came from a team repository's file."""
    with pytest.raises(ConfigError) as info:
        resolve_pkg(f"pkg:{name}/a.yaml", where=AT)
    (problem,) = info.value.problems
    assert "is not of the form 'pkg:NAME/PATH'" in problem.message
    assert "pip install" not in problem.hint


def test_a_mistyped_package_or_file_names_the_one_meant(make_plugin: MakePlugin) -> None:
    site = make_plugin("toolhost-frag", modules={"toolhost_frag/__init__": ""},
                       entry_points={"main": "toolhost_frag"})
    (site / "toolhost_frag" / "presets").mkdir()
    (site / "toolhost_frag" / "presets" / "readonly.yaml").write_text("servers: {}\n")
    (site / "toolhost_frag" / "presets" / "notes.txt").write_text("not a config\n")

    def hint(ref: str) -> str:
        with pytest.raises(ConfigError) as info:
            resolve_pkg(ref, where=AT)
        return info.value.problems[0].hint

    assert hint("pkg:toolhost-frag/presets/readonli.yaml") == \
        "did you mean pkg:toolhost-frag/presets/readonly.yaml?"
    assert hint("pkg:toolhost-frag/Presets/ReadOnly.yaml") == \
        "did you mean pkg:toolhost-frag/presets/readonly.yaml?"
    assert hint("pkg:toolhost-frag/nothing/like/it.yaml") == \
        "its config files: presets/readonly.yaml"
    # a name one letter off an installed distribution: not "pip install" the typo alone
    assert hint("pkg:toolhost-fra/presets/readonly.yaml") == (
        "did you mean pkg:toolhost-frag/presets/readonly.yaml? If not: pip install "
        "toolhost-fra")
    assert hint("pkg:zzzqqqxx/x.yaml") == "pip install zzzqqqxx"
