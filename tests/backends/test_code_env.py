"""An env value may print a param only where the value is data: a variable a program reads as
code, options, a search path, or a configuration file or home is a load error (the list of
names missed LUA_INIT, VIMINIT, TAR_OPTIONS, JAVA_TOOL_OPTIONS, GIT_CONFIG_*, OPENSSL_CONF,
HOME, GCONV_PATH, ...: the model would choose what runs). Real programs show why for a few."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolhost.backends.code_env import chooses_code
from toolhost.compile import compile_tools
from toolhost.config.model import HostConfig
from toolhost.errors import CompileError

Config = Callable[..., HostConfig]

CODE = [
    # code itself, or options that run code
    "FCEDIT", "TEXEDIT", "PARALLEL", "LZOP", "TEXINPUTS", "TEXMFCNF", "FFMPEG_DATADIR",
    "fcedit",
    "LUA_INIT", "LUA_INIT_5_4", "VIMINIT", "EXINIT", "GVIMINIT", "PYTHONSTARTUP",
    "PYTHONBREAKPOINT", "PYTHONWARNINGS", "PERL5OPT", "PERL5DB", "RUBYOPT", "NODE_OPTIONS",
    "NODE_REPL_EXTERNAL_MODULE", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS",
    "TAR_OPTIONS", "MAKEFLAGS", "MAKEFILES", "LESS", "LESSOPEN", "LESSCLOSE", "PROMPT_COMMAND",
    "PS4", "BASH_ENV", "ENV", "BASH_FUNC_ls%%", "SHELLOPTS", "BASHOPTS", "IFS",
    # programs a tool runs
    "GIT_SSH_COMMAND", "GIT_SSH", "GIT_PROXY_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR", "GIT_PAGER", "GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS",
    "RSYNC_RSH", "RSYNC_CONNECT_PROG", "CVS_RSH", "SVN_SSH", "EDITOR", "VISUAL", "PAGER",
    "MANPAGER", "BROWSER", "SHELL", "CC", "CXX", "LD",
    # search paths and libraries
    "PATH", "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "DYLD_INSERT_LIBRARIES",
    "DYLD_FRAMEWORK_PATH", "PYTHONPATH", "PYTHONHOME", "PYTHONUSERBASE", "NODE_PATH",
    "PERL5LIB", "PERLLIB", "RUBYLIB", "GEM_PATH", "GEM_HOME", "CLASSPATH", "LUA_PATH",
    "LUA_CPATH", "GCONV_PATH", "AWKPATH", "TCLLIBPATH", "JULIA_LOAD_PATH", "GIT_EXEC_PATH",
    "GIT_TEMPLATE_DIR", "MANPATH", "OPENSSL_ENGINES", "OPENSSL_MODULES",
    # configuration that names commands, and where it is read from
    "GIT_CONFIG_GLOBAL", "GIT_CONFIG", "GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0",
    "GIT_CONFIG_VALUE_0", "GIT_CONFIG_PARAMETERS", "GIT_DIR", "GIT_WORK_TREE", "PHPRC",
    "PHP_INI_SCAN_DIR", "OPENSSL_CONF", "WGETRC", "CURL_HOME", "HOME", "ZDOTDIR",
    "XDG_CONFIG_HOME", "R_PROFILE", "R_PROFILE_USER", "R_ENVIRON", "HGRCPATH", "INPUTRC",
    "NPM_CONFIG_SCRIPT_SHELL", "npm_config_script_shell", "PIP_INDEX_URL", "CARGO_HOME",
    "JAVA_HOME", "KRB5_CONFIG", "DOCKER_HOST", "KUBECONFIG",
    # (backends24) wrappers and runners, module sources, credential processes, traffic
    "RUSTC_WRAPPER", "RUSTC", "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER", "GOPROXY",
    "GOTOOLCHAIN", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "HTTPS_PROXY",
    "http_proxy", "ALL_PROXY", "CURL_CA_BUNDLE", "REQUESTS_CA_BUNDLE",
]
DATA = ["GREETING", "V", "NAME", "MODE", "API_TOKEN", "LANG", "LC_ALL", "TZ", "QUERY",
        "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_DATE",
        "TERM", "COLUMNS", "DEBUG", "USER_ID", "OUTPUT_DIR", "REQUEST_BODY"]


def _env_tool(name: str) -> dict[str, Any]:
    return {"kind": "command", "options": {"argv": ["env"], "env": {name: "x{{ v }}"}}}


@pytest.mark.parametrize("name", CODE)
def test_a_placeholder_that_would_choose_code_is_refused(config: Config, name: str) -> None:
    with pytest.raises(CompileError) as info:
        compile_tools(config({"t": _env_tool(name)}))
    (problem,) = info.value.problems
    assert problem.key_path == f"servers.demo.tools.t.command.env.{name}"
    assert "would choose code" in problem.message


@pytest.mark.parametrize("name", DATA)
def test_a_placeholder_in_data_loads(config: Config, name: str) -> None:
    compile_tools(config({"t": _env_tool(name)}))


@pytest.mark.parametrize("name", CODE[:10])
def test_unsafe_code_placeholders_allows_it(config: Config, name: str) -> None:
    spec = _env_tool(name)
    spec["options"]["unsafe_code_placeholders"] = True
    compile_tools(config({"t": spec}))


@given(st.sampled_from(CODE), st.sampled_from(["lower", "upper", "title"]))
def test_any_case_is_the_same_variable_to_refuse(name: str, case: str) -> None:
    assert chooses_code(getattr(name, case)())


@pytest.mark.skipif(shutil.which("tar") is None, reason="needs tar to show it")
def test_why_tar_options_is_code(tmp_path: Path) -> None:
    """TAR_OPTIONS=--to-command=... makes tar run a command for every member."""
    (tmp_path / "f").write_text("data")
    subprocess.run(["tar", "cf", "a.tar", "f"], cwd=tmp_path, check=True)
    marker = tmp_path / "ran"
    script = tmp_path / "run.sh"
    script.write_text(f"#!/bin/sh\ncat >/dev/null\ntouch {marker}\n")
    script.chmod(0o755)
    env = {"PATH": "/usr/bin:/bin", "TAR_OPTIONS": f"--to-command={script}"}
    subprocess.run(["tar", "xf", "a.tar"], cwd=tmp_path, env=env, check=False,
                   capture_output=True, timeout=30)
    assert marker.exists()
    assert chooses_code("TAR_OPTIONS")


def test_validate_names_the_variable(tmp_path: Path) -> None:
    config = tmp_path / "e.yaml"
    config.write_text("toolhost: 1\nservers:\n  s:\n    tools:\n      t:\n        command:\n"
                      "          argv: [tar, xf, a.tar]\n"
                      "          env: {TAR_OPTIONS: '{{ opts }}'}\n")
    done = subprocess.run([sys.executable, "-m", "toolhost", "validate", str(config)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode != 0
    assert "servers.s.tools.t.command.env.TAR_OPTIONS: a placeholder in env TAR_OPTIONS: " \
           "the value would choose code" in done.stderr, done.stderr
