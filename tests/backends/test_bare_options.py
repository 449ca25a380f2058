"""Options written with no dash, which the option-character check cannot see: tar reads its
first argument as old-style option letters (`[tar, "{{ mode }}", "{{ archive }}", a.tar]`
with `xIf` made `-I` run the next word as the decompressor), and ps reads any argument that
is not a process id as BSD options (`e` printed every process's environment, the host's
secrets among them). A value that writes such an argument is refused; a mode or option the
config writes, an archive name and a process id still run. Rendered only, never run."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.backends.argv import ArgvRefused, compile_argv


@pytest.mark.parametrize(("argv", "value"), [
    (["tar", "{{ v }}", "a.tar"], "xI"),
    (["tar", "{{ v }}", "a.tar"], "xF"),
    (["tar", "{{ v }}", "a.tar"], "x"),
    (["tar", "{{ v }}f", "a.tar"], "xI"),
    (["tar", "x{{ v }}", "a.tar"], "If"),
    (["gtar", "{{ v }}", "{{ w }}", "a.tar"], "xIf"),
    (["/usr/bin/bsdtar", "{{ v }}", "a.tar"], "xI"),
    (["timeout", "5", "tar", "{{ v }}", "a.tar"], "xI"),
    (["env", "LC_ALL=C", "tar", "{{ v }}"], "tvf"),
], ids=repr)
def test_tar_a_value_may_not_write_old_style_options(argv: list[str], value: str) -> None:
    with pytest.raises(ArgvRefused, match="tar's old-style options"):
        compile_argv(argv).render({"v": value, "w": "x"})


@pytest.mark.parametrize(("argv", "value"), [
    (["ps", "{{ v }}"], "e"),
    (["ps", "{{ v }}"], "aeww"),
    (["ps", "-p", "1", "{{ v }}"], "e"),
    (["ps", "{{ v }}"], "x1"),
    (["timeout", "3", "ps", "-o", "pid", "{{ v }}"], "axe"),
], ids=repr)
def test_ps_a_value_may_not_write_bsd_options(argv: list[str], value: str) -> None:
    with pytest.raises(ArgvRefused, match="ps's BSD-style options"):
        compile_argv(argv).render({"v": value})


@pytest.mark.parametrize(("argv", "values"), [
    (["tar", "xf", "{{ v }}"], {"v": "a.tar"}),
    (["tar", "-xf", "{{ v }}"], {"v": "xI"}),  # -f's argument: a file named xI
    (["tar", "-C", "out", "-xf", "a.tar", "--", "{{ v }}"], {"v": "docs"}),
    (["ps", "{{ v }}"], {"v": "1234"}),
    (["ps", "{{ v }}"], {"v": "1,2,3"}),
    (["ps", "-p", "{{ v }}"], {"v": "e"}),
    (["ps", "-o", "{{ v }}", "-p", "1"], {"v": "pid,comm"}),
    (["ps", "--sort", "{{ v }}"], {"v": "pid"}),
    (["grep", "-n", "--", "{{ v }}", "tar"], {"v": "xI"}),  # 'tar' is grep's file here
], ids=repr)
def test_what_still_runs(argv: list[str], values: dict[str, Any]) -> None:
    out = compile_argv(argv).render(values)
    assert all(str(v) in out for v in values.values())
