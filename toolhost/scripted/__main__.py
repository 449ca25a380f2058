"""``python -m toolhost.scripted SCENARIO.yaml [--port N]``: the scripted model on its own.

Serves the scenario as a Messages API on 127.0.0.1 until stopped (Ctrl-C or SIGTERM), for
any client: ``toolhost run`` without ``--script``, ``toolhost serve`` behind the real CLI, a
program using ``claude_agent_sdk``. The first line on stdout is the URL to point
``ANTHROPIC_BASE_URL`` at; the environment a client needs goes to stderr. On stop, the
scenario's failed checks (and turns never played) are printed on stderr, and the exit code is
1 if there were any, else 0.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Sequence
from types import FrameType

from toolhost.errors import ToolhostError
from toolhost.runner.offline import OFFLINE_ENV
from toolhost.scripted.scenario import load_scenario
from toolhost.scripted.server import ScriptedModel

__all__ = ["main"]

DESCRIPTION = """\
Serve a scenario file as a Messages API on 127.0.0.1 (the scripted model of `toolhost run
--script`, on its own). Prints its URL, serves until stopped, then reports the scenario's
failed checks; exit code 1 if any.

Example:
  python -m toolhost.scripted examples/scenarios/demo.yaml --port 8765 &
  ANTHROPIC_BASE_URL=http://127.0.0.1:8765 ANTHROPIC_API_KEY=test ENABLE_TOOL_SEARCH=false \\
      toolhost run examples/configs/demo.yaml -p "What is in the demo notes?"
"""


def _port(text: str) -> int:
    """A TCP port, 0 (a free one) to 65535: anything else is a usage error, not a traceback."""
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (0 to 65535; 0: a free one)")
    return port


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m toolhost.scripted", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenario", metavar="SCENARIO", help="the scenario file (YAML)")
    parser.add_argument("--port", type=_port, default=0,
                        help="port on 127.0.0.1 (default: a free one)")
    args = parser.parse_args(argv)
    try:
        scenario = load_scenario(args.scenario)
        model = ScriptedModel(scenario, port=args.port)
    except ToolhostError as exc:
        print(f"toolhost.scripted: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"toolhost.scripted: error: cannot listen on 127.0.0.1:{args.port}: "
              f"{exc.strerror}", file=sys.stderr)
        return 2
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, on_signal)
    with model:
        print(model.base_url, flush=True)
        env = " ".join(f"{k}={v}" for k, v in
                       {"ANTHROPIC_BASE_URL": model.base_url, "ANTHROPIC_API_KEY": "test",
                        **OFFLINE_ENV}.items())
        print(f"toolhost.scripted: playing {args.scenario} ({len(scenario.turns)} turns) at "
              f"{model.base_url}; point a client at it with\n  {env}\n"
              "(and a fresh HOME to keep your own Claude settings out); Ctrl-C to stop",
              file=sys.stderr, flush=True)
        while not stop.wait(1.0):  # a timeout keeps signals prompt on every platform
            pass
    problems = model.problems()
    for problem in problems:
        print(f"toolhost.scripted: scenario check failed: {problem}", file=sys.stderr)
    if not problems:
        print(f"toolhost.scripted: scenario passed ({len(scenario.turns)} turns played)",
              file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
