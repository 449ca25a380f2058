"""The "is this cached checkout exactly its commit?" check, paid once per shared repo per load.

Run:  .venv/bin/python bench/bench_repo_check.py [--files 1000] [--rounds 30]

Builds a team repository of ``--files`` files (in 40 directories, a few KB each), caches it
as a load would, and times ``toolhost.config.repotree.dirt`` on the clean checkout: the
median and the best of ``--rounds`` runs. Run it with another checkout's interpreter (its
``.venv/bin/python``, from this directory) to compare the same check before and after a
change.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def make_repo(origin: Path, files: int) -> None:
    origin.mkdir(parents=True)
    _git(origin, "init", "-q", "-b", "main")
    for i in range(files):
        path = origin / f"pkg{i % 40}" / f"mod{i}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"# module {i}\n" + "x = 1\n" * (i % 500))
    _git(origin, "add", "-A")
    _git(origin, "-c", "user.email=b@example.invalid", "-c", "user.name=b", "commit", "-qm",
         "bench")
    _git(origin, "tag", "v1")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["TOOLHOST_CACHE"] = str(Path(tmp, "cache"))
        from toolhost.config.gitrepos import fetch_repo
        from toolhost.config.repotree import dirt

        origin = Path(tmp, "origin")
        make_repo(origin, args.files)
        checkout = fetch_repo(origin.as_uri(), "v1")
        assert dirt(checkout) == [], dirt(checkout)
        times = []
        for _ in range(args.rounds):
            start = time.perf_counter()
            dirt(checkout)
            times.append((time.perf_counter() - start) * 1000)
    print(f"clean check of a {args.files}-file checkout: median {statistics.median(times):.1f} "
          f"ms, best {min(times):.1f} ms ({args.rounds} rounds)")


if __name__ == "__main__":
    main()
