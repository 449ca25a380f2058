"""socat's addresses: `[socat, -u, OPEN:/dev/null, "{{ addr }}"]` with `SYSTEM:touch x` ran
the command (real socat), and `"OPEN:{{ f }}"` with `/dev/null!!SYSTEM:touch x` too. A
value may fill in an address the config began, never choose its type, add options (`,`)
or a second address (`!!`)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from toolhost.backends.argv import ArgvRefused, compile_argv

ARGVS = [
    (["socat", "-u", "OPEN:/dev/null", "{{ v }}"], ["SYSTEM:id", "EXEC:id", "system:id",
                                                   "/tmp/x", "GOPEN:/etc/x", "TCP:h:1"]),
    (["socat", "-", "{{ v }}"], ["SYSTEM:id", "exec:/bin/sh", "OPEN:/x,creat"]),
    (["socat", "-d", "-d", "-t", "5", "{{ v }}", "-"], ["SYSTEM:id"]),
    (["timeout", "9", "/usr/bin/socat", "-", "{{ v }}"], ["EXEC:id"]),
    (["socat", "-u", "OPEN:{{ v }}", "-"], ["/x,creat,trunc", "/dev/null!!SYSTEM:id",
                                            "/x,ignoreeof"]),
    (["socat", "-", "TCP:{{ v }}:80"], ["h:80,bind=1.2.3.4", "h!!EXEC:id"]),
    (["socat", "-", "{{ v }}:x"], ["SYSTEM", "EXEC"]),
]


@pytest.mark.parametrize(("argv", "value"),
                         [(a, v) for a, values in ARGVS for v in values])
def test_a_value_may_not_choose_the_address(argv: list[str], value: str) -> None:
    with pytest.raises(ArgvRefused, match="socat address of its own choosing"):
        compile_argv(argv).render({"v": value})


@pytest.mark.parametrize(("argv", "value"), [
    (["socat", "-", "TCP:{{ v }}:80"], "example.com"),
    (["socat", "-", "TCP-LISTEN:{{ v }},fork,reuseaddr"], "8080"),
    (["socat", "-u", "OPEN:{{ v }},rdonly", "-"], "/tmp/in.txt"),
    (["socat", "-lf", "{{ v }}", "-", "TCP:h:80"], "/tmp/log"),
    (["echo", "socat", "{{ v }}"], "SYSTEM:id"),
])
def test_what_still_runs(argv: list[str], value: str) -> None:
    assert value in "".join(compile_argv(argv).render({"v": value}))


@pytest.mark.skipif(shutil.which("socat") is None, reason="needs socat")
def test_real_socat_runs_a_system_address(tmp_path: Path) -> None:
    """What the refused argv would have done, run by hand."""
    marker = tmp_path / "ran"
    subprocess.run(["socat", "-u", "OPEN:/dev/null", f"SYSTEM:touch {marker}"],
                   capture_output=True, timeout=30, check=False)
    assert marker.exists()
    with pytest.raises(ArgvRefused):
        compile_argv(["socat", "-u", "OPEN:/dev/null", "{{ v }}"]).render(
            {"v": f"SYSTEM:touch {marker}"})
