"""The suite's own scheduling under `make test` (`pytest -n 2`, tests/conftest.py): a test
file runs on one worker whole (its module fixtures built once, its tests in order), and a
directory named in `_ONE_GROUP_DIRS` (the packaging tests' wheels) runs on one worker whole."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_RECORD = '''
import json, os
def _record(name):
    with open(os.environ["GROUPS_OUT"], "a") as out:
        out.write(json.dumps([__file__, name, os.environ.get("PYTEST_XDIST_WORKER")]) + "\\n")
'''


def _tree(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(
        "from tests.conftest import pytest_xdist_make_scheduler  # noqa: F401\n")
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    for folder, files in (("tests/packaging", ("test_a.py", "test_b.py", "test_c.py")),
                          ("tests/other", ("test_d.py", "test_e.py", "test_f.py", "test_g.py"))):
        (tmp_path / folder).mkdir(parents=True)
        for name in files:
            tests = "".join(f"\ndef test_{i}():\n    _record({i})\n" for i in range(6))
            (tmp_path / folder / name).write_text(_RECORD + tests)


def _workers(tmp_path: Path, dist: str) -> dict[str, set[str]]:
    _tree(tmp_path)
    out = tmp_path / "groups.jsonl"
    env = {**os.environ, "GROUPS_OUT": str(out), "PYTHONPATH": str(ROOT)}
    env.pop("PYTEST_XDIST_WORKER", None)
    env.pop("PYTEST_ADDOPTS", None)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", dist,
                           "-p", "no:cacheprovider", "-p", "no:randomly", "tests"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    seen: dict[str, set[str]] = defaultdict(set)
    ran = 0
    for line in out.read_text().splitlines():
        path, _, worker = json.loads(line)
        seen[str(Path(path).relative_to(tmp_path))].add(worker)
        ran += 1
    assert ran == 7 * 6
    return seen


def test_a_file_and_the_packaging_folder_each_run_on_one_worker(tmp_path: Path) -> None:
    seen = _workers(tmp_path, "load")
    for path, workers in seen.items():
        assert len(workers) == 1, f"{path} ran on {sorted(workers)}"
    packaging = {w for path, ws in seen.items() if path.startswith("tests/packaging/")
                 for w in ws}
    assert len(packaging) == 1, packaging
    # the other files are shared out: both workers did some work
    assert len({w for ws in seen.values() for w in ws}) == 2
