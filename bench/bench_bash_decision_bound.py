"""What one Bash decision costs for a hostile line: lines that multiply the checks' work
(nested wrappers in many segments, thousands of makes, patches or package runners that each
look at the whole line) against a short harmless line, under ``deny Bash(rm:*)`` and ten more
deny rules, in a directory holding a Makefile and a package.json. Each line's decision time
is printed with its ratio to the short line's. Run:
``.venv/bin/python bench/bench_bash_decision_bound.py [KB]`` (default 30 KB lines)."""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy


def lines(size: int) -> dict[str, str]:
    nested = "env A=1 " * 250 + "echo"
    return {
        "nested env, many segments": "; ".join([nested] * (size // len(nested) + 1)),
        "make; ...": "make; " * (size // 6),
        "npm run x; ...": "npm run x; " * (size // 11),
        "patch -p1 < x.diff; ...": "patch -p1 < x.diff; " * (size // 20),
        "bash x.sh; ...": "bash x.sh; " * (size // 11),
        "ssh h ls; ...": "ssh h ls; " * (size // 10),
    }


def main() -> None:
    size = int(sys.argv[1]) * 1024 if len(sys.argv) > 1 else 30 * 1024
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "Makefile").write_text("all:\n\techo hi\n")
        Path(tmp, "package.json").write_text('{"scripts": {"x": "echo hi"}}')
        rules = [RuleConfig(effect="deny", tool=f"Bash(rm{i}:*)") for i in range(10)]
        policy = compile_policy(PermissionsConfig(rules=(
            RuleConfig(effect="deny", tool="Bash(rm:*)"), *rules,
            RuleConfig(effect="allow", tool="Bash")), default="ask"), cwd=tmp)

        def cost(line: str) -> tuple[float, str]:
            start = time.perf_counter()
            decision = policy.decide("Bash", {"command": line})
            return time.perf_counter() - start, decision.behavior

        cost("git status")
        short = min(cost("git status && ls -la src")[0] for _ in range(20))
        print(f"short line: {short * 1e3:.2f} ms")
        for name, line in lines(size).items():
            took, behavior = cost(line)
            print(f"{name:28} {len(line):7} chars  {took:7.2f} s  {behavior:5} "
                  f"x{took / short:,.0f} the short line")


if __name__ == "__main__":
    main()
