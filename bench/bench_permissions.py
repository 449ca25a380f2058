"""Decision time with 1,000 rules: microseconds per decision (median of many), by case.

    .venv/bin/python bench/bench_permissions.py [--rounds N]

The policy is compiled once (as a host does); each case then calls ``decide`` repeatedly.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from toolhost.config.model import Effect, Origin, PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy


def rules() -> list[RuleConfig]:
    out: list[RuleConfig] = []

    def add(effect: Effect, tool: str, **kw: Any) -> None:
        out.append(RuleConfig(effect, tool, origin=Origin("bench.yaml", len(out) + 1), **kw))

    add("allow", "mcp__early__tool")
    for i in range(300):  # conditional denies on one hot tool, none of which match
        add("deny", "mcp__hot__query", when={"table": f"t{i}", "limit": {"min": 1000 + i}})
    for i in range(200):
        add("deny", f"mcp__s{i}__drop_*")
    for i in range(200):
        add("ask", f"mcp__s{i}__write")
    for i in range(150):
        add("allow", f"Bash(tool{i} run:*)")
    for i in range(147):
        add("allow", f"mcp__s{i}__get_*", when={"id": {"regex": "[0-9]+"}})
    add("allow", "Bash(npm run test:*)")
    add("allow", "mcp__hot__query", expr="args.limit <= 100")
    assert len(out) == 1000, len(out)
    return out


CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("early match (first rule)", "mcp__early__tool", {}),
    ("late match (after 300 conditional denies)", "mcp__hot__query",
     {"table": "users", "limit": 10}),
    ("no match (default)", "mcp__nowhere__x", {}),
    ("glob + regex condition", "mcp__s120__get_item", {"id": "12345"}),
    ("Bash compound, every part allowed", "Bash",
     {"command": "npm run test -- --watch && tool7 run x | tool9 run y"}),
    ("Bash chained past a prefix rule", "Bash", {"command": "npm run test && rm -rf /"}),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--per-round", type=int, default=300)
    args = parser.parse_args()
    t0 = time.perf_counter()
    policy = compile_policy(PermissionsConfig(default="ask", rules=tuple(rules())))
    print(f"compile 1,000 rules: {(time.perf_counter() - t0) * 1e3:.1f} ms")
    for label, tool, tool_input in CASES:
        decision = policy.decide(tool, tool_input)
        samples = []
        for _ in range(args.rounds):
            start = time.perf_counter()
            for _ in range(args.per_round):
                policy.decide(tool, tool_input)
            samples.append((time.perf_counter() - start) / args.per_round * 1e6)
        print(f"{label:45} {statistics.median(samples):8.2f} us  "
              f"-> {decision.behavior} ({decision.rule or 'default'})")


if __name__ == "__main__":
    main()
