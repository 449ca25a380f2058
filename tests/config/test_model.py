"""Value objects of the config model."""

from __future__ import annotations

from toolhost.config.model import Origin


def test_origin_problem_extends_the_key_path() -> None:
    origin = Origin("team.yaml", 12, 7, "servers.git.tools.log.command")
    problem = origin.problem("must not be empty", key=".argv", hint="give the program")
    assert str(problem) == ("team.yaml:12:7: servers.git.tools.log.command.argv: "
                            "must not be empty (give the program)")
    assert str(Origin("a.toml", 3).problem("bad", key=".x")) == "a.toml:3: x: bad"
