"""An ``extends`` entry naming a file that is not there says which file was probably
meant: a close name beside it, or the same name in a close directory, written as the entry
was. It said only "no such file ... (paths are relative to the file that names them)"."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.config import load_config
from toolhost.errors import ConfigError


@pytest.mark.parametrize(("entry", "hint"), [
    ("./bsae.yaml", "did you mean ./base.yaml?"),
    ("base.yml", "did you mean base.yaml?"),
    ("./Base.yaml", "did you mean ./base.yaml?"),
    ("./team/Common.toml", "did you mean ./team/common.toml?"),
    ("./taem/common.toml", "did you mean ./team/common.toml?"),
    ("../proj/base.yaml", "did you mean ../proj/base.yaml?"),
    ("./nodir/x.yaml", "there is no directory ./nodir beside the file that names it"),
    ("./zzzz.yaml", "paths are relative to the file that names them"),
])
def test_a_missing_fragment_names_the_file_meant(entry: str, hint: str,
                                                 tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / "team").mkdir(parents=True)
    (project / "base.yaml").write_text("servers: {}\n")
    (project / "notes.txt").write_text("not a config\n")
    (project / "team" / "common.toml").write_text("[servers]\n")
    entry = entry.replace("../proj/base.yaml", "../proj/bas.yaml")
    (project / "c.yaml").write_text(f"toolhost: 1\nextends: [{entry}]\n")
    with pytest.raises(ConfigError) as raised:
        load_config(project / "c.yaml")
    [problem] = raised.value.problems
    assert "extends: no such file" in problem.message and problem.line == 2
    assert problem.hint == hint, str(problem)


def test_an_absolute_path_is_not_said_to_be_relative(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(f"toolhost: 1\nextends: [{tmp_path}/none/x.yaml]\n")
    with pytest.raises(ConfigError) as raised:
        load_config(tmp_path / "c.yaml")
    assert "relative" not in str(raised.value) and "beside" not in str(raised.value)
    assert str(raised.value).endswith(f"(there is no directory {tmp_path}/none)")
