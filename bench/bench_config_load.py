"""How long load_config takes on a config of 1,000 tools, in YAML and in TOML.

    python bench/bench_config_load.py [--tools 1000] [--runs 7]

Writes both files to a temp dir (50 servers x 20 tools, each with params, annotations, a
timeout and a command backend), then prints the median and the minimum wall time of a
full load (parse, merge, interpolate, validate, build the model) with the real kinds; then
the wall time of `toolhost validate` in a fresh process (interpreter start, imports, load, and
compiling every tool: templates, inputSchemas), which is what a user waits for.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from toolhost.config import load_config


def yaml_text(servers: int, per_server: int) -> str:
    lines = ["toolhost: 1", "servers:"]
    for s in range(servers):
        lines += [f"  server{s}:", f"    description: Server number {s}", "    timeout: 5s",
                  "    env: {HOME_DIR: '${HOME:-/tmp}'}", "    tools:"]
        for t in range(per_server):
            lines += [
                f"      tool{t}:",
                f"        description: Tool {t} of server {s}",
                "        command: [echo, '{{ text }}', '{{ count }}']",
                "        params:",
                "          text: {type: string, description: Some text, maxLength: 100}",
                "          count: {type: integer, default: 1, minimum: 1, maximum: 9}",
                "        annotations: {readOnlyHint: true}",
                "        timeout: 500ms",
            ]
    lines += ["permissions:", "  default: deny", "  allow: ['mcp__server0__*']"]
    return "\n".join(lines) + "\n"


def toml_text(servers: int, per_server: int) -> str:
    lines = ["toolhost = 1", ""]
    for s in range(servers):
        lines += [f"[servers.server{s}]", f'description = "Server number {s}"',
                  'timeout = "5s"', "env = { HOME_DIR = '${HOME:-/tmp}' }", ""]
        for t in range(per_server):
            lines += [
                f"[servers.server{s}.tools.tool{t}]",
                f'description = "Tool {t} of server {s}"',
                "command = ['echo', '{{ text }}', '{{ count }}']",
                'params.text = { type = "string", description = "Some text", maxLength = 100 }',
                'params.count = { type = "integer", default = 1, minimum = 1, maximum = 9 }',
                "annotations = { readOnlyHint = true }",
                'timeout = "500ms"', "",
            ]
    lines += ["[permissions]", 'default = "deny"', "allow = ['mcp__server0__*']"]
    return "\n".join(lines) + "\n"


def measure(path: Path, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        config = load_config(path, layers=False, environ=os.environ)
        times.append(time.perf_counter() - start)
    assert sum(len(s.tools) for s in config.servers.values()) > 0
    return times


def validate_times(path: Path, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "toolhost", "validate", "--no-layers", "-q",
                        str(path)], check=True)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    per_server = 20
    servers = max(1, args.tools // per_server)
    with tempfile.TemporaryDirectory() as tmp:
        files = {"yaml": Path(tmp) / "big.yaml", "toml": Path(tmp) / "big.toml"}
        files["yaml"].write_text(yaml_text(servers, per_server), encoding="utf-8")
        files["toml"].write_text(toml_text(servers, per_server), encoding="utf-8")
        load_config(files["yaml"], layers=False)  # warm imports and the kinds
        print(f"load_config, {servers * per_server} tools, {args.runs} runs")
        for name, path in files.items():
            times = measure(path, args.runs)
            size = path.stat().st_size // 1024
            print(f"  {name:4} ({size:4} KiB): median {statistics.median(times) * 1000:7.1f} ms"
                  f"   min {min(times) * 1000:7.1f} ms")
        print(f"toolhost validate --no-layers (a fresh process), {args.runs} runs")
        for name, path in files.items():
            times = validate_times(path, args.runs)
            print(f"  {name:4}: median {statistics.median(times) * 1000:7.1f} ms"
                  f"   min {min(times) * 1000:7.1f} ms")


if __name__ == "__main__":
    main()
