"""Start-up stays light: what a fresh process imports for --help, validate, loading and serve.

Structural, not timed: each case runs in a new interpreter and names the heavy modules that
must not be in ``sys.modules`` afterwards (jsonschema ~60 ms, jinja2 ~30 ms, asyncio ~20 ms;
see docs/protocol.md, "Performance notes")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "examples" / "configs" / "demo.yaml"
INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "probe", "version": "1"}}}) + "\n"

# The demo config has no Bash, path, URL or callers rule, imports no server, no tool asks the
# client, and its one pattern is plain (RE2 compiles it at the first call): their modules
# wait (shutil: argparse's, for the terminal's width)
NOT_FOR_THE_DEMO = {"shutil", "re2", "toolhost.permissions.bash.policy",
                    "toolhost.permissions.content", "toolhost.permissions.bash.programs",
                    "toolhost.permissions.shell.parse", "toolhost.permissions.paths",
                    "toolhost.permissions.urls", "toolhost.permissions.callers.identity"}
# no lock beside the demo, nothing pulled in: the lock's model and drift report wait
NO_LOCK = {"toolhost.lockfile.model", "toolhost.lockfile.drift"}


def _exist(names: set[str]) -> None:
    """Each of toolhost's modules named must be one: a module moved or renamed would make
    its absence a check that cannot fail."""
    import importlib.util

    gone = sorted(n for n in names if n.startswith("toolhost.")
                  and importlib.util.find_spec(n) is None)
    assert not gone, f"no such modules (moved? name them anew): {gone}"


def _imported_after(code: str) -> set[str]:
    probe = (f"import sys, json\n{code}\n"
             "print(json.dumps(sorted(m for m in sys.modules)))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         cwd=ROOT, check=True, timeout=60)
    return set(json.loads(out.stdout.splitlines()[-1]))


@pytest.mark.parametrize(("code", "absent"), [
    ("import toolhost.cli", {"jsonschema", "jinja2", "yaml", "anyio", "asyncio", "httpx",
                             "logging", "toolhost.errors", "toolhost.results"}),
    # --help builds every command's parser: none imports what only its own run needs (nor
    # argparse's shutil, for a width the CLI's formatter finds itself); it ends in the
    # parse, before logging is set up, and raises no error; no secret is known, so the
    # scrubbing streams never load the redaction machinery
    ("from toolhost.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass",
     {"jsonschema", "jinja2", "yaml", "anyio", "asyncio", "httpx", "shutil", "tempfile",
      "difflib", "logging", "toolhost.errors", "toolhost.results",
      "toolhost.redaction", "toolhost.redaction.chardump", "toolhost.redaction.hexdump",
      "toolhost.redaction.wrapped", "toolhost.redaction.cipher", "string"}),
    # the demo config: command tools with simple templates, python tools, a deny rule with
    # a condition
    ("from toolhost.cli import main; main(['validate', '-q', sys.argv[0]])",
     {"jsonschema", "jinja2", "asyncio", "anyio", "httpx", "toolhost.permissions.gate",
      "importlib.metadata", "packaging.version", "opentelemetry.trace",
      "toolhost.config.content_model", "toolhost.compile.prompts", "toolhost.compile.resources",
      "toolhost.plugins", "shlex", *NOT_FOR_THE_DEMO,
      # no secret, no imported server, no rule with content, no near-miss name: the
      # unpackers (bz2, lzma), the gateway, the paste and spelling hints and difflib wait
      # (issue #18, a twenty-second look)
      "bz2", "lzma", "toolhost.redaction.packed", "toolhost.redaction.decoded",
      "toolhost.gateway", "toolhost.gateway.reshape", "difflib",
      "toolhost.permissions.authoring.spec_hints_more",
      "toolhost.permissions.authoring.spec_hints_paste", *NO_LOCK}),
    # a config without plugins never looks at the installed distributions
    ("from toolhost.config.loader import load_config; load_config(sys.argv[0])",
     {"jsonschema", "jinja2", "asyncio", "anyio", "tomllib", "importlib.metadata",
      "packaging.utils", "uuid", "toolhost.compile.docstrings",
      "toolhost.config.content_model", "toolhost.plugins", "difflib",
      "toolhost.config.urlcheck"}),
    # loading and compiling builds the servers, which need no event loop until they serve
    ("from toolhost.host import load_host; load_host(sys.argv[0])",
     {"asyncio", "ssl", "jsonschema", "jinja2", "httpx"}),
])
def test_heavy_modules_wait_for_their_first_use(code: str, absent: set[str]) -> None:
    _exist(absent)
    code = code.replace("sys.argv[0]", repr(str(DEMO)))
    early = absent & _imported_after(code)
    assert not early, f"imported before their first use: {sorted(early)}"


def test_serve_answers_without_what_the_config_does_not_use() -> None:
    """``toolhost serve`` of the demo config over stdio, through its first answer and exit."""
    code = ("import sys, json\nfrom toolhost.cli import main\n"
            f"main(['serve', {str(DEMO)!r}, '--all'])\n"
            "print(json.dumps(sorted(sys.modules)), file=sys.__stderr__)")
    out = subprocess.run([sys.executable, "-c", code], input=INITIALIZE, capture_output=True,
                         text=True, cwd=ROOT, check=True, timeout=60)
    assert '"result"' in out.stdout.splitlines()[0]
    early = {"jsonschema", "jinja2", "httpx", "starlette", "uvicorn", "importlib.metadata",
             "opentelemetry.trace", "toolhost.gateway", "toolhost.gateway.refresh",
             "toolhost.mcp.elicit", "toolhost.serve.http", "toolhost.compile.prompts",
             "toolhost.compile.resources", "toolhost.permissions.authoring.lint", *NOT_FOR_THE_DEMO,
             # no plugin enabled: the built-in kinds without the plugin machinery; difflib
             # and the URL checker only for a hint or a base_url
             "toolhost.plugins", "difflib", "toolhost.config.urlcheck",
             # no secret: the dump and wrapped-line finders of redaction wait for one
             "toolhost.redaction.chardump", "toolhost.redaction.hexdump",
             "toolhost.redaction.wrapped",
             "_hashlib",  # OpenSSL (~2.5 ms): the cursors digest with the built-in blake2b
             # no secret: nothing unpacks a blob to look for one
             "bz2", "lzma", "toolhost.redaction.packed", "toolhost.redaction.decoded",
             *NO_LOCK}
    _exist(early)
    early &= set(json.loads(out.stderr.splitlines()[-1]))
    assert not early, f"imported before their first use: {sorted(early)}"


def test_first_call_still_validates() -> None:
    """The validator a tool builds on first use says what it said when built at load."""
    from toolhost.compile.validators import LazyValidator

    lazy = LazyValidator({"type": "object", "properties": {"n": {"type": "integer"}}},
                         formats=True)
    assert lazy.is_valid({"n": 1}) and not lazy.is_valid({"n": "x"})
    assert [e.message for e in lazy.iter_errors({"n": "x"})] == ["'x' is not of type 'integer'"]
    assert lazy.format_checker is not None


def test_every_dataclass_has_a_docstring() -> None:
    """Without one, ``@dataclass`` builds ``__doc__`` from ``inspect.signature`` at import
    (~0.2 ms a class, ~60 classes on the start-up paths); and a reader wants one anyway."""
    import ast

    missing = []
    for path in sorted((ROOT / "toolhost").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "dataclass" not in text:  # no decorator below could name it: nothing to parse
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef) and ast.get_docstring(node) is None and any(
                    "dataclass" in ast.unparse(d) for d in node.decorator_list):
                missing.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert not missing, missing


def test_validate_compiles_no_iri_pattern_it_does_not_use() -> None:
    """The ``uri``/``iri`` format patterns (character classes of every ucschar, ~20 ms to
    compile at import on a busy machine) wait for the first value checked against them:
    ``validate`` of the demo config has no such format."""
    code = ("import re, sys\nfrom toolhost.cli import main\n"
            "try:\n    main(['validate', '-q', sys.argv[1]])\nexcept SystemExit:\n    pass\n"
            "import toolhost.jsonformats\n"
            "def iri_patterns():\n"
            "    keys = [*re._cache, *getattr(re, '_cache2', {})]\n"
            "    return sum('\\U000efffd' in str(key[1]) for key in keys)\n"
            "print(iri_patterns())\n"
            "from toolhost.jsonformats import CHECKERS\n"
            "assert CHECKERS['iri']('http://\\u00fc.de/\\u00e4?x#y')\n"
            "assert not CHECKERS['uri']('http://\\u00fc.de/')\n"
            "print(iri_patterns())\n")
    out = subprocess.run([sys.executable, "-c", code, str(DEMO)], capture_output=True,
                         text=True, cwd=ROOT, check=True, timeout=60)
    before, after = out.stdout.split()
    assert before == "0", "validate compiled IRI patterns it never used"
    assert int(after) > 0  # they are compiled when a value is checked


def test_a_load_without_plugins_still_records_the_config_dir(tmp_path: Path) -> None:
    """``toolhost.plugins.config_dir()`` names the directory of the config loaded last, with
    or without plugins (a load without them no longer activates the empty plugin set)."""
    from toolhost.config.loader import load_config
    from toolhost.plugins import config_dir

    (tmp_path / "c.yaml").write_text("toolhost: 1\nservers: {}\n", encoding="utf-8")
    load_config(tmp_path / "c.yaml", layers=False)
    assert config_dir() == tmp_path.resolve()
    load_config(DEMO, layers=False)
    assert config_dir() == DEMO.parent.resolve()


# patterns only an error, a hint or a rarer config needs: kept as text, compiled at first use
LAZY_PATTERNS = ["toolhost.config.format_version:_TOML_LINE", "toolhost.config.escapes:_ESCAPE",
                 "toolhost.config.build_top:_DIST", "toolhost.config.sources:_SCHEME",
                 "toolhost.backends.templating:_BRACE", "toolhost.compile.metacheck:_LOCAL_REF",
                 # only a tool running git, ssh or php reads a KEY=VALUE setting by these
                 "toolhost.backends.code_opt_table:GIT_CODE_KEY",
                 "toolhost.backends.code_opt_table:SSH_CODE_KEY",
                 "toolhost.backends.code_opt_table:SSH_EXPOSE_KEY",
                 "toolhost.backends.code_opt_table:PHP_CODE_KEY",
                 # only a URL with a query string is searched for a credential in it
                 "toolhost.config.url_secrets:_QUERY_CREDENTIAL"]


def test_validate_compiles_no_pattern_only_an_error_needs() -> None:
    code = ("import importlib, re, sys\nfrom toolhost.cli import main\n"
            f"try:\n    main(['validate', '-q', {str(DEMO)!r}])\nexcept SystemExit:\n    pass\n"
            f"names = {LAZY_PATTERNS!r}\n"
            "texts = {n: getattr(importlib.import_module(n.split(':')[0]), n.split(':')[1])\n"
            "         for n in names}\n"
            "texts = {n: getattr(t, 'pattern', t) for n, t in texts.items()}\n"
            "cached = {p for (_t, p, _f) in re._cache}\n"
            "print(sorted(n for n, t in texts.items() if t in cached))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True, timeout=60)
    assert out.stdout.splitlines()[-1] == "[]"
