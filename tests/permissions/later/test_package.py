"""Round 23: ``npm test``, ``npm run x``, ``yarn x``, ``pnpm x``, ``bun run x`` run command
lines written in ``package.json``: each script the command runs (``preX``, ``X``, ``postX``,
the arguments handed on, the project's install lifecycle) is judged as a Bash command. A
script a deny or ask Bash rule meets, a line whose programs cannot be proven, or what the
text alone does not say (an option or an rc file naming another shell or package, a
package.json that cannot be read or that the line may write first) makes it not provable.
An honest ``npm test`` is decided as before. npm itself is the judge of the real cases."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.permissions.later.test_archive import GUARDED, OPEN, decide

ASKED = [("ask", "Bash(rm:*)"), ("allow", "Bash")]
SCRIPTS = {"test": "rm -rf v", "build": "tsc -p .", "lint": "tsc --noEmit", "prelint": "echo hi",
           "postdocs": "rm -rf v", "docs": "echo docs", "prepare": "rm -rf v",
           "wrap": "sh -c", "echo": "echo", "chain": "npm run test", "ok": "npm run lint",
           "script": "./s.sh", "pretty": "prettier --write .", "preversion": "rm -rf v"}

# the command, the decision under deny rm + allow Bash
CASES = {
    "npm_test": ("npm test", "deny"), "npm_t": ("npm t", "deny"),
    "npm_run": ("npm run test", "deny"), "npm_run_script": ("npm run-script test", "deny"),
    "yarn_script": ("yarn test", "deny"), "yarn_run": ("yarn run test", "deny"),
    "pnpm_script": ("pnpm test", "deny"), "pnpm_run": ("pnpm run test", "deny"),
    "bun_run": ("bun run test", "deny"), "post": ("npm run docs", "deny"),
    "install": ("npm install", "deny"), "ci": ("npm ci", "deny"),
    "yarn_bare": ("yarn", "deny"), "pnpm_add": ("pnpm add left-pad", "deny"),
    "version": ("npm version patch", "deny"),
    "args_to_shell": ("npm run wrap -- 'rm -rf v'", "deny"),
    "args_yarn": ("yarn wrap 'rm -rf v'", "deny"),
    "args_plain": ("npm run echo -- hello world", "allow"),
    "nested_run": ("npm run chain", "deny"), "script_file": ("npm run script", "deny"),
    "wrapped": ("sudo npm test", "deny"), "timeout": ("timeout 60 npm test", "deny"),
    "path": ("/usr/bin/npm test", "deny"), "xargs": ("echo test | xargs npm run", "deny"),
    "prefix_other": ("npm --prefix=other test", "allow"),  # (other's package.json is read)
    "prefix_sub": ("npm --prefix sub test", "deny"), "prefix_c": ("npm -C sub test", "deny"),
    "prefix_after": ("npm test --prefix=other", "allow"), "pnpm_dir": ("pnpm --dir sub t", "deny"),
    "yarn_cwd": ("yarn --cwd sub test", "deny"),
    "yarn_cwd_other": ("yarn --cwd other test", "allow"),
    "prefix_cd": ("cd x; npm --prefix sub test", "deny"),
    "workspace": ("npm -w pkg run lint", "deny"), "abbrev": ("npm --scr=/x run lint", "deny"),
    "pnpm_filter": ("pnpm --filter x lint", "deny"),
    "yarn_workspace": ("yarn workspace b lint", "deny"),
    "yarn_workspaces": ("yarn workspaces run lint", "deny"),
    "pnpm_recursive": ("pnpm recursive run lint", "deny"), "pnpm_r": ("pnpm -r lint", "deny"),
    "npm_update": ("npm update", "deny"), "npm_link": ("npm link", "deny"),
    "audit_fix": ("npm audit fix", "deny"), "yarn_upgrade": ("yarn upgrade", "deny"),
    "script_shell": ("npm run lint --script-shell=/tmp/evil", "deny"),
    "loglevel_value": ("npm --loglevel silent test", "deny"),
    "env_shell": ("npm_config_script_shell=/tmp/evil npm run lint", "deny"),
    "env_export": ("export NPM_CONFIG_SCRIPT_SHELL=/tmp/evil; npm run lint", "deny"),
    "cd": ("cd sub && npm run lint", "deny"),
    "written_first": ("cp evil.json package.json && npm run lint", "deny"),
    "written_redirect": ("echo '{}' > package.json; npm run lint", "deny"),
    "unknown_word": ("npm run $S", "deny"), "unknown_command": ("npm $S", "deny"),
    "unknown_yarn": ('yarn "$S"', "deny"), "unknown_after": ("npm view $S", "allow"),
    # honest commands: decided as before
    "honest_build": ("npm run build", "allow"), "honest_pre": ("npm run lint", "allow"),
    "honest_args": ("npm run build -- --watch", "allow"),
    "honest_yarn_args": ("yarn lint --fix", "allow"), "honest_nested": ("npm run ok", "allow"),
    "honest_quiet": ("npm run -s lint --if-present", "allow"),
    "list": ("npm run", "allow"), "bun_test": ("bun test", "deny"),
    "missing_script": ("npm run nothing", "allow"), "npm_view": ("npm view left-pad", "allow"),
    "yarn_bin": ("yarn tsc", "allow"), "global": ("npm install -g typescript", "allow"),
    "global_after": ("npm i typescript --global", "allow"),
    "node_run": ("node --run test", "deny"), "node_run_eq": ("node --run=test", "deny"),
    "node_run_args": ("node --run wrap -- 'rm -rf v'", "deny"),
    "node_run_honest": ("node --run build", "allow"), "node_file": ("node x.js", "allow"),
    "node_pre_not_run": ("node --run docs", "allow"),  # (node runs no pre or post script)
}


def _project(root: Path, scripts: dict[str, Any] | None = None) -> None:
    (root / "package.json").write_text(json.dumps({"name": "p", "version": "1.0.0",
                                                   "scripts": scripts or SCRIPTS}))
    (root / "s.sh").write_text("#!/bin/sh\nrm -rf v\n")
    (root / "s.sh").chmod(0o755)
    (root / "sub").mkdir()
    (root / "sub/package.json").write_text(json.dumps({"scripts": {"test": "rm -rf v"}}))
    (root / "other").mkdir()
    (root / "other/package.json").write_text(json.dumps({"scripts": {"test": "echo ok"}}))


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))  # (no ~/.npmrc of the machine's)
    return home


@pytest.mark.parametrize("name", list(CASES))
def test_a_package_script_is_judged_by_what_it_runs(tmp_path: Path, name: str) -> None:
    command, want = CASES[name]
    _project(tmp_path)
    assert decide(tmp_path, command, GUARDED) == want
    if want == "deny":
        assert decide(tmp_path, command, ASKED) == "ask"
    assert decide(tmp_path, command, OPEN) == "allow"  # (no deny or ask rule to dodge)


def test_the_nearest_package_json_above_is_read(tmp_path: Path) -> None:
    _project(tmp_path)
    deep = tmp_path / "deep" / "a" / "b"
    deep.mkdir(parents=True)
    assert decide(deep, "npm test", GUARDED) == "deny"
    assert decide(deep, "npm run build", GUARDED) == "allow"
    (tmp_path / "deep" / "node_modules").mkdir()  # (npm stops looking there: no package)
    assert decide(deep, "npm test", GUARDED) == "allow"


@pytest.mark.parametrize("text", [
    "{", "[]", '{"scripts": []}', '{"scripts": {"test": 1}}', "[" * 100_000,
    '{"scripts": {"test": "echo"}}' + " " * 100_000,
])
def test_a_package_json_that_cannot_be_read_is_not_provable(tmp_path: Path, text: str) -> None:
    (tmp_path / "package.json").write_text(text)
    assert decide(tmp_path, "npm test", GUARDED) == "deny"


def test_a_package_json_that_is_a_fifo_is_never_opened_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "package.json")
    assert decide(tmp_path, "npm test", GUARDED) == "deny"


@pytest.mark.parametrize("where,name,text,want", [
    ("project", ".npmrc", "script-shell=/tmp/evil\n", "deny"),
    ("home", ".npmrc", "script-shell=/tmp/evil\n", "deny"),
    ("home", ".npmrc", "userconfig=/tmp/other\n", "deny"),
    ("project", ".yarnrc", 'script-shell "/tmp/evil"\n', "deny"),
    ("project", ".npmrc", "node-options=--require /tmp/x.js\n", "deny"),
    ("home", ".npmrc", "registry=https://registry.npmjs.org/\nprefix=~/.npm-global\n", "allow"),
    ("project", ".npmrc", "${K}=/tmp/evil\n", "deny"),  # (K=script-shell: npm ran it)
    ("project", ".npmrc", "//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n", "allow"),
])
def test_an_rc_file_naming_a_shell_is_not_provable(tmp_path: Path, _home: Path, where: str,
                                                   name: str, text: str, want: str) -> None:
    _project(tmp_path)
    (tmp_path / name if where == "project" else _home / name).write_text(text)
    assert decide(tmp_path, "npm run lint", GUARDED) == want


def test_a_changed_package_json_is_read_again(tmp_path: Path) -> None:
    _project(tmp_path, {"test": "echo ok"})
    assert decide(tmp_path, "npm test", GUARDED) == "allow"
    _project_json = tmp_path / "package.json"
    _project_json.write_text(json.dumps({"scripts": {"test": "rm -rf v"}}))
    assert decide(tmp_path, "npm test", GUARDED) == "deny"


# npm itself is the judge: each command below really runs `rm` (a fake one that logs) from
# the project's scripts, so each deny is of a real case
NPM_RUNS_RM = ["npm test", "npm run docs", "npm run wrap -- 'rm -rf v'", "npm run chain",
               "npm run script", "npm install --offline --no-audit --no-fund"]


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is the judge")
@pytest.mark.parametrize("command", NPM_RUNS_RM)
def test_npm_really_runs_what_is_denied(tmp_path: Path, _home: Path, command: str) -> None:
    _project(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "rm").write_text(f"#!/bin/sh\necho rm \"$@\" >> {tmp_path / 'ran'}\n")
    (bin_dir / "rm").chmod(0o755)
    assert decide(tmp_path, command, GUARDED) == "deny"
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "HOME": str(_home), "SHELL": "/bin/sh",
           "npm_config_cache": str(tmp_path / "cache"), "npm_config_update_notifier": "false"}
    subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True,
                   check=False, stdin=subprocess.DEVNULL, timeout=120)
    assert (tmp_path / "ran").exists()  # (npm ran rm: the case is a real one)


def test_yarn_is_read_as_looking_past_a_node_modules(tmp_path: Path) -> None:
    _project(tmp_path)
    deep = tmp_path / "deep"
    (deep / "node_modules").mkdir(parents=True)
    assert decide(deep, "npm test", GUARDED) == "allow"  # (npm stops there)
    assert decide(deep, "yarn test", GUARDED) == "deny"  # (not known to: the parent's test)


def _fake_rm(tmp_path: Path, home: Path) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "rm").write_text(f"#!/bin/sh\necho rm \"$@\" >> {tmp_path / 'ran'}\n")
    (bin_dir / "rm").chmod(0o755)
    return {"PATH": f"{bin_dir}:{os.environ['PATH']}", "HOME": str(home), "SHELL": "/bin/sh",
            "npm_config_cache": str(tmp_path / "cache"), "npm_config_update_notifier": "false",
            "npm_config_offline": "true", "npm_config_audit": "false",
            "npm_config_fund": "false"}


def _npm(command: str, cwd: Path, env: dict[str, str]) -> None:
    subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True,
                   check=False, stdin=subprocess.DEVNULL, timeout=120)


@pytest.mark.parametrize("rc", ["script-shell=SHELL\n", ""])
def test_a_workspace_roots_npmrc_names_the_shell(tmp_path: Path, _home: Path, rc: str) -> None:
    """npm takes the workspace root above the package as the project: its .npmrc's
    script-shell runs ``npm test`` in the workspace's own folder (npm is the judge)."""
    (tmp_path / "package.json").write_text(json.dumps({"name": "r", "workspaces": ["w"]}))
    (tmp_path / "w").mkdir()
    (tmp_path / "w/package.json").write_text(json.dumps(
        {"name": "w", "version": "1.0.0", "scripts": {"test": "echo hi"}}))
    shell = tmp_path / "x.sh"  # (a name the rc check cannot read as a setting)
    shell.write_text("#!/bin/sh\nrm -rf v\nexec /bin/sh \"$@\"\n")
    shell.chmod(0o755)
    if rc:
        (tmp_path / ".npmrc").write_text(rc.replace("SHELL", str(shell)))
    assert decide(tmp_path / "w", "npm test", GUARDED) == ("deny" if rc else "allow")
    if rc and shutil.which("npm"):
        _npm("npm test", tmp_path / "w", _fake_rm(tmp_path, _home))
        assert (tmp_path / "ran").exists()  # (npm ran the root's shell: a real case)


@pytest.mark.parametrize("package,gyp,want", [
    ({"dependencies": {"b": "file:./b"}}, False, "deny"),
    ({"devDependencies": {"b": "./b"}}, False, "deny"),
    ({"dependencies": {"b": "link:../b"}}, False, "deny"),
    ({"optionalDependencies": {"b": " /abs/b"}}, False, "deny"),
    ({"dependencies": "nonsense"}, False, "deny"),
    ({"workspaces": ["b"]}, False, "deny"),
    ({}, True, "deny"),  # (npm's default install: node-gyp rebuild; gyp runs `<!(...)`)
    ({"scripts": {"install": "node-gyp rebuild"}}, True, "deny"),
    ({"dependencies": {"left-pad": "^1.3.0", "x": "github:a/x"}}, False, "allow"),
    ({"bundleDependencies": True, "dependencies": {"left-pad": "1.3.0"}}, False, "allow"),
    ({}, False, "allow"),
])
def test_an_install_runs_the_local_packages_scripts(tmp_path: Path, package: dict[str, Any],
                                                    gyp: bool, want: str) -> None:
    (tmp_path / "package.json").write_text(json.dumps({"name": "a", "version": "1.0.0",
                                                       **package}))
    if gyp:
        (tmp_path / "binding.gyp").write_text("{'targets': []}")
    assert decide(tmp_path, "npm install", GUARDED) == want
    assert decide(tmp_path, "npm run build", GUARDED) == "allow"  # (no install: as before)


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is the judge")
def test_npm_really_runs_a_local_dependencys_install_script(tmp_path: Path,
                                                            _home: Path) -> None:
    (tmp_path / "package.json").write_text(json.dumps(
        {"name": "a", "version": "1.0.0", "dependencies": {"b": "file:./b"}}))
    (tmp_path / "b").mkdir()
    (tmp_path / "b/package.json").write_text(json.dumps(
        {"name": "b", "version": "1.0.0", "scripts": {"postinstall": "rm -rf v"}}))
    assert decide(tmp_path, "npm install", GUARDED) == "deny"
    _npm("npm install", tmp_path, _fake_rm(tmp_path, _home))
    assert (tmp_path / "ran").exists()  # (npm ran b's postinstall: a real case)


def test_the_global_npmrc_of_the_node_on_path_is_read(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    _project(tmp_path)
    prefix = tmp_path / "prefix"
    (prefix / "bin").mkdir(parents=True)
    (prefix / "etc").mkdir()
    (prefix / "bin/node").write_text("#!/bin/sh\n")
    (prefix / "bin/node").chmod(0o755)
    monkeypatch.setenv("PATH", f"{prefix / 'bin'}:/usr/bin:/bin")
    assert decide(tmp_path, "npm run lint", GUARDED) == "allow"
    (prefix / "etc/npmrc").write_text("script-shell=/tmp/evil\n")
    assert decide(tmp_path, "npm run lint", GUARDED) == "deny"


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is the judge")
def test_npm_expands_an_rc_files_key_from_the_environment(
        tmp_path: Path, _home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "package.json").write_text(json.dumps(
        {"name": "a", "version": "1.0.0", "scripts": {"test": "echo hi"}}))
    shell = tmp_path / "x.sh"  # (a name the rc check cannot read as a setting)
    shell.write_text("#!/bin/sh\nrm -rf v\nexec /bin/sh \"$@\"\n")
    shell.chmod(0o755)
    (tmp_path / ".npmrc").write_text(f"${{K}}={shell}\n")
    monkeypatch.setenv("K", "script-shell")  # (the host's own environment)
    assert decide(tmp_path, "npm test", GUARDED) == "deny"
    _npm("npm test", tmp_path, {**_fake_rm(tmp_path, _home), "K": "script-shell"})
    assert (tmp_path / "ran").exists()  # (npm read the key from K: a real case)


def _settle(folder: Path) -> None:
    """``folder`` as if last changed long ago (its ctime stays now)."""
    os.utime(folder, (1_000_000_000, 1_000_000_000))


def test_a_settled_folder_is_looked_at_once_not_opened_per_rc_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Round 24 (~0.8 ms a decision): the rc names of a folder that has not changed are not
    opened or looked up again, one ``stat`` of the folder says so."""
    from toolhost.permissions.later import package_files

    monkeypatch.setattr(package_files, "_SETTLED_NS", -1, raising=False)  # (ctime is now)
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    (deep / "package.json").write_text(json.dumps({"scripts": {"test": "echo ok"}}))
    assert decide(deep, "npm test", GUARDED) == "allow"
    read: list[str] = []
    real, there = package_files.read_text, getattr(package_files, "_may_be_there", None)
    monkeypatch.setattr(package_files, "read_text", lambda p: (read.append(p), real(p))[1])
    if there is not None:
        monkeypatch.setattr(package_files, "_may_be_there",
                            lambda p: (read.append(p), there(p))[1])
    assert decide(deep, "npm test", GUARDED) == "allow"
    assert not [p for p in read if p.startswith(str(tmp_path))]


@pytest.mark.parametrize("same_time", [False, True])
def test_an_rc_file_made_after_a_folder_was_looked_at_is_seen(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, same_time: bool) -> None:
    """A folder remembered as holding no rc file: one made there later is read (with its
    modification time put back as it was too: a change within one clock tick)."""
    from toolhost.permissions.later import package_files

    monkeypatch.setattr(package_files, "_SETTLED_NS", -1, raising=False)  # (remembered now)
    _project(tmp_path)
    _settle(tmp_path / "sub")
    assert decide(tmp_path / "sub", "npm run lint", GUARDED) == "allow"
    (tmp_path / "sub" / ".npmrc").write_text("script-shell=/tmp/evil\n")
    if same_time:
        _settle(tmp_path / "sub")
    assert decide(tmp_path / "sub", "npm run lint", GUARDED) == "deny"


def test_a_configuration_name_of_the_environment_is_found_among_the_others(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _project(tmp_path)
    assert decide(tmp_path, "npm run lint", GUARDED) == "allow"
    monkeypatch.setenv("npm_config_x\nscript_shell", "/tmp/evil")  # (a name with a newline)
    assert decide(tmp_path, "npm run lint", GUARDED) == "deny"
