"""A python tool's module is found without asking every config directory on sys.path: the
import of each of N tools, each in a directory of its own (``path:``), asks a number of
finders that does not grow with N (it grew with N: 2,000 such tools took 104 s to compile)."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

# Loads and compiles the config in a process of its own (sys.path and sys.modules are the
# process's), counting the directory finders asked; prints the count and the tools' results.
_PROBE = '''
import json, sys
from importlib.machinery import FileFinder
asked = [0]
find = FileFinder.find_spec
def counted(self, *args, **kwargs):
    asked[0] += 1
    return find(self, *args, **kwargs)
FileFinder.find_spec = counted
import os.path
resolved = [0]
realpath = os.path.realpath
def counted_realpath(*args, **kwargs):
    resolved[0] += 1
    return realpath(*args, **kwargs)
os.path.realpath = counted_realpath
from toolhost.commands._configs import compile_config
from toolhost.config.loader import load_config
from toolhost.errors import ConfigError
config = load_config(sys.argv[1], layers=False)
problems = []
try:
    compiled = compile_config(config)
    names = sorted(t.wire_name for tools in compiled.servers.values() for t in tools)
except ConfigError as exc:
    names, problems = [], [str(p) for p in exc.problems]
print(json.dumps({"asked": asked[0], "resolved": resolved[0], "tools": names,
                  "problems": problems,
                  "files": sorted(m.__file__ for n, m in sys.modules.items()
                                  if n.startswith("own_dir_"))}))
'''


def _tools_in_own_dirs(root: Path, count: int, stem: str = "own_dir_{i}") -> Path:
    root.mkdir()
    lines = ["toolhost: 1", "servers:", "  s:", "    tools:"]
    for i in range(count):
        module = stem.format(i=i)
        (root / f"d{i}").mkdir()
        (root / f"d{i}" / f"{module}.py").write_text(
            "def f(text: str) -> str:\n    '''Echo.'''\n    return text\n")
        lines.append(f"      t{i}: {{python: {{function: '{module}:f', path: d{i}}}}}")
    config = root / "toolhost.yaml"
    config.write_text("\n".join(lines) + "\n")
    return config


def _probe(config: Path, tmp_path: Path) -> dict[str, object]:
    script = tmp_path / "probe_import_dirs.py"
    script.write_text(_PROBE)
    proc = subprocess.run([sys.executable, str(script), str(config)], capture_output=True,
                          text=True, timeout=300, cwd=tmp_path, check=False)
    assert proc.returncode == 0, proc.stderr
    out: dict[str, object] = json.loads(proc.stdout)
    return out


def test_finders_asked_per_tool_do_not_grow_with_the_config_directories(
        tmp_path: Path) -> None:
    few = _probe(_tools_in_own_dirs(tmp_path / "few", 20), tmp_path)
    many = _probe(_tools_in_own_dirs(tmp_path / "many", 160), tmp_path)
    assert len(many["tools"]) == 160  # type: ignore[arg-type]
    # linear: 8x the tools, at most 8x the finders asked (and some slack for the imports
    # the first tool's compile makes); quadratic was ~40x here (20 -> 160 directories)
    assert int(many["asked"]) <= 10 * int(few["asked"])  # type: ignore[call-overload]


def test_each_tool_imports_the_module_of_its_own_directory(tmp_path: Path) -> None:
    config = _tools_in_own_dirs(tmp_path / "cfg", 5)
    found = _probe(config, tmp_path)
    assert found["files"] == sorted(str(tmp_path / "cfg" / f"d{i}" / f"own_dir_{i}.py")
                                    for i in range(5))


def _call(config: Path, tool: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolhost", "call", "--no-layers", str(config),
                           tool, *args], capture_output=True, text=True, timeout=120, cwd=cwd,
                          check=False)


def test_a_module_in_a_zip_path_entry_is_still_found(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "lib.zip", "w") as archive:
        archive.writestr("zipped_own_dir.py", "def up(text: str) -> str:\n"
                         "    '''Upper.'''\n    return text.upper()\n")
    config = tmp_path / "tools.yaml"
    config.write_text("toolhost: 1\nservers:\n  t:\n    tools:\n"
                      "      up: {python: {function: 'zipped_own_dir:up', path: lib.zip}}\n")
    proc = _call(config, "t.up", "text=hi", cwd=tmp_path)
    assert (proc.returncode, proc.stdout.strip()) == (0, "HI"), proc.stderr


def test_an_earlier_directory_with_the_module_is_still_a_clash(tmp_path: Path) -> None:
    """Two tools' directories hold one module name: import takes the first one's for both,
    so the second tool is refused (module_origin), found through the narrowed lookup."""
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "twin_own_dir.py").write_text(
            f"def f(text: str) -> str:\n    '''From {d}.'''\n    return '{d}'\n")
    (tmp_path / "c").mkdir()
    config = tmp_path / "tools.yaml"
    config.write_text("toolhost: 1\nservers:\n  t:\n    tools:\n"
                      "      a: {python: {function: 'twin_own_dir:f', path: a}}\n"
                      "      c: {python: {function: 'twin_own_dir:f', path: c}}\n"
                      "      b: {python: {function: 'twin_own_dir:f', path: b}}\n")
    proc = subprocess.run([sys.executable, "-m", "toolhost", "validate", "--no-layers",
                           str(config)], capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 1
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and f"{config}:7" in lines[0], proc.stderr
    assert str(tmp_path / "a" / "twin_own_dir.py") in lines[0]


def test_modules_named_like_an_installed_one_are_judged_in_linear_time(tmp_path: Path) -> None:
    """Each tool's directory holds a json.py: import gives the standard library's (an
    installed module wins), and whether that one is a config directory's was answered by
    resolving every config directory, for every tool (1,000 tools: 65 s)."""
    few = _probe(_tools_in_own_dirs(tmp_path / "few", 20, "json"), tmp_path)
    many = _probe(_tools_in_own_dirs(tmp_path / "many", 160, "json"), tmp_path)
    problems = many["problems"]
    assert isinstance(problems, list) and len(problems) == 160
    assert "'json' has no attribute 'f'" in problems[0]
    # 8x the tools: at most ~8x the paths resolved (quadratic was ~50x here)
    assert int(many["resolved"]) <= 10 * int(few["resolved"])  # type: ignore[call-overload]


def test_a_module_shadowed_by_an_installed_one_says_so(tmp_path: Path) -> None:
    """A json.py beside the config is not the json imported (an installed module comes first
    on sys.path): the missing function's line says which file was imported, and to rename."""
    (tmp_path / "json.py").write_text("def f(text: str) -> str:\n    '''Mine.'''\n"
                                      "    return text\n")
    config = tmp_path / "tools.yaml"
    config.write_text("toolhost: 1\nservers:\n  t:\n    tools:\n"
                      "      mine: {python: 'json:f'}\n")
    proc = subprocess.run([sys.executable, "-m", "toolhost", "validate", "--no-layers",
                           str(config)], capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 1
    (line,) = proc.stderr.splitlines()
    assert line.startswith(f"{config}:5:"), line
    assert "'json' has no attribute 'f'" in line
    assert f"({tmp_path / 'json.py'} is not the module imported: `import json` gives " in line
    assert line.endswith("which comes first on sys.path; rename yours)")


def test_import_directories_past_the_limit_are_one_located_line(tmp_path: Path) -> None:
    """Each tool may add 100 path: entries, and there may be 10,000 tools: the directories
    python tools put on sys.path are bounded per process (TOOLHOST_MAX_IMPORT_DIRS), as every
    later import of a module not yet loaded looks in each."""
    config = tmp_path / "t.yaml"
    config.write_text(
        "toolhost: 1\nservers:\n  s:\n    tools:\n"
        "      a: {python: {function: 'toolhost.demo:add', path: [p1, p2]}}\n"
        "      b: {python: {function: 'toolhost.demo:add', path: [p3, p4]}}\n"
        "      c: {python: {function: 'toolhost.demo:add', path: [p1]}}\n")
    import os

    def validate(limit: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "toolhost", "validate", "--no-layers",
                               "-q", str(config)], capture_output=True, text=True, timeout=120,
                              check=False, env={**os.environ, "TOOLHOST_MAX_IMPORT_DIRS": limit})

    refused = validate("4")
    assert refused.returncode == 1
    (line,) = refused.stderr.splitlines()
    assert line.startswith(f"{config}:6:11: servers.s.tools.b.python.path: python tools would "
                           "put more than 4 directories on sys.path"), line
    assert "raise TOOLHOST_MAX_IMPORT_DIRS if this is meant" in line
    assert validate("5").returncode == 0  # the config directory and p1-p4; c adds none
