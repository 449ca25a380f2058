"""Option values that ordinary programs run: ``git -c core.fsmonitor=CMD``, ``ssh -o
ProxyCommand=CMD``, ``rsync -e CMD``, ``tar --to-command=CMD``, ``vim +CMD`` ... are load
errors when a value can reach them; data options (``git -c user.name=``) still load."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from toolhost.compile import compile_tools
from toolhost.errors import CompileError

from .test_command_backend import Config, cmd, run

pytestmark = pytest.mark.anyio

V = "{{ v }}"


@pytest.mark.parametrize("argv", [
    ["git", "-c", V, "status"],
    ["git", "-c", "core.fsmonitor=" + V, "status"],
    ["git", "-c", "core.sshCommand={{ v }}", "fetch"],
    ["git", "-c", "alias.st=" + V, "st"],
    ["git", "-C", "/tmp", "-c", "{{ v }}=1", "log"],
    ["/usr/bin/git", "--config-env=" + V, "log"],
    ["git", "clone", "--upload-pack", V, "repo"],
    ["git", "clone", "-u", V, "repo"],
    ["git", "clone", "--config", "core.pager=" + V, "repo"],
    ["git", "rebase", "-x", V, "main"],
    ["git", "submodule", "foreach", V],
    ["git", "bisect", "run", V, "test"],
    ["git", "filter-branch", "--tree-filter", V, "HEAD"],
    ["git", "difftool", "--extcmd=" + V],
    ["git", "grep", "-O" + V, "x"],
    ["env", "GIT_AUTHOR_NAME=a", "git", "-c", V, "log"],
    ["ssh", "-o", V, "host", "uptime"],
    ["ssh", "-oProxyCommand=" + V, "host"],
    ["ssh", "-o", "LocalCommand=" + V, "host"],
    ["scp", "-S", V, "a", "b:c"],
    ["sftp", "-o", V, "host"],
    ["rsync", "-e", V, "a", "b:c"],
    ["rsync", "--rsh=" + V, "a", "b:c"],
    ["rsync", "--rsync-path", V, "a", "b:c"],
    ["tar", "-xf", "x.tar", "--to-command=" + V],
    ["tar", "-I", V, "-xf", "x.tar"],
    ["gtar", "--checkpoint-action=exec=" + V, "-cf", "x.tar", "."],
    ["sort", "--compress-program=" + V, "f"],
    ["vim", "-es", "-c", V, "f"],
    ["nvim", "--cmd", V],
    ["vi", "+" + V, "f"],
    ["ex", "-s", "+{{ v }}", "f"],
    ["gdb", "-batch", "-ex", V, "prog"],
    ["zip", "-T", "-TT", V, "a.zip", "f"],
    ["man", "-P", V, "ls"],
    ["wget", "-e", V, "http://x/"],
    ["curl", "-K", V],
    ["make", "-f", V],
    ["awk", "-f", V, "data"],
    ["sed", "-f", V, "data"],
    ["script", "-c", V, "/dev/null"],
    ["timeout", "5", "rsync", "-e", V, "a", "b:c"],
    ["emacs", "--batch", "--eval", V],
    ["psql", "-c", V],
    ["psql", "mydb", "--command=" + V],
    ["mysql", "-e", V, "db"],
    ["mariadb", "--execute=" + V],
    ["sqlite3", "db.sqlite", V],
    ["sqlite3", "-cmd", V, "db.sqlite"],
    ["duckdb", "x.db", "-c", V],
    ["find", ".", "-exec", "git", "-c", V, "log", ";"],
    ["git", {"each": "vs", "argv": ["-c", "{{ item }}"]}, "log"],
    ["git", {"if": "vs", "argv": ["-c", "{{ vs }}"]}, "log"],
    # a directory whose own config, hooks or build scripts run
    ["git", "-C", V, "status"],
    ["git", "--git-dir=" + V, "log"],
    ["git", "--work-tree", V, "--git-dir", "/r/.git", "diff"],
    ["make", "-C", V, "all"],
    ["gmake", "--directory=" + V],
    ["cargo", "build", "--manifest-path", V],
    ["cargo", "--config", V, "build"],
    ["npm", "--prefix", V, "run", "build"],
    ["npm", "run", "--script-shell", V, "build"],
    ["pnpm", "-C", V, "run", "x"],
    ["yarn", "--cwd", V, "run", "x"],
    # (backends25) a long option written shorter: getopt_long, git, curl take any
    # unambiguous start of one (`tar --to-com=CMD` ran CMD)
    ["tar", "--to-com=" + V, "-xf", "a.tar"],
    ["tar", "--checkpoint-act", V, "-cf", "a.tar", "."],
    ["tar", "--use-compress-prog=" + V, "-cf", "a.tar", "."],
    ["git", "clone", "--upload-pa=" + V, "repo"],
    ["git", "clone", "--conf", "core.pager=" + V, "repo"],
    ["curl", "--conf", V],
    ["wget", "--exe", V, "http://x/"],
    ["sort", "--compress-p=" + V, "f"],
    ["man", "--pag=" + V, "ls"],
    ["make", "--dir", V],
    # (backends25) git config writing a setting git runs later, or a chosen key
    ["git", "config", "core.pager", V],
    ["git", "config", "--local", "alias.st", "!" + V],
    ["git", "config", "set", "core.fsmonitor", V],
    ["git", "-C", "/r", "config", "--file", ".git/config", "--add", "core.sshCommand", V],
    ["git", "config", "--global", V, "x"],
    # a value as git's subcommand (any git-NAME program on PATH, an alias)
    ["git", V, "--version"],
    ["git", "--git-dir", "/r/.git", V],
    ["find", ".", "-name", "x", "-exec", "git", V, ";"],
    ["git", "send-email", "--sendmail-cmd=" + V, "x.patch"],
    ["git", "send-email", "--to-cmd", V, "x.patch"],
    ["git", "merge", "-s", V, "topic"],
    ["git", "instaweb", "--httpd=" + V],
    # vim -s types a file's keys (not in Ex mode), --remote-send, nvim -l runs Lua
    ["vim", "-s", V, "notes.txt"],
    ["vim", "--remote-send", V],
    ["nvim", "-l", V],
    ["emacs", "-L", V, "-l", "mylib"],
    ["emacs", "--init-directory=" + V],
    ["emacsclient", "-e", V],
    ["emacsclient", "-e", "(message 1)", V],  # each operand is an expression
    ["less", "+" + V, "f"],
    ["less", "--lesskey-src=" + V, "f"],
    ["ssh", "-J", V, "host", "uptime"],
    ["scp", "-J", V, "a", "h:b"],
    ["ssh", "-S", V, "host"],
    ["rsync", "-M" + V, "a", "h:b"],
    ["rsync", "--daemon", "--config=" + V],
    # (backends27) ssh reads -o's keyword as readconf does: a double-quoted keyword, and a
    # keyword ended by a blank before any '='
    ["ssh", "-o", '"ProxyCommand"=' + V, "host"],
    ["scp", "-o", '"ProxyCommand"=' + V, "a", "h:b"],
    ["ssh", "-o", "ProxyCommand sh -c 'a=1; " + V + "'", "host"],
    ["ssh", "-o", "LocalCommand echo x=" + V, "host"],
    ["ssh", "-o", "XAuthLocation=" + V, "host"],
    # (backends27) more shells of code or statements, and programs that run a command
    ["mongosh", "mongodb://h/db", "--eval", V],
    ["mongo", "--eval", "db.x.find({name: '" + V + "'})"],
    ["mysqlsh", "--py", "--execute=" + V],
    ["clickhouse-client", "--query", "SELECT * FROM t WHERE id = '" + V + "'"],
    ["clickhouse", "client", "-q", V],
    ["clickhouse-local", "--query", V],
    ["cqlsh", "-e", V],
    ["sqlcmd", "-Q", V],
    ["influx", "-execute", V],
    ["duckdb", "db.duckdb", V],  # an operand after the database is SQL (.shell, COPY TO)
    ["duckdb", "-readonly", "db.duckdb", "select 1", V],
    ["matlab", "-batch", V],
    ["latexmk", "-e", V],  # Perl
    ["pandoc", "--filter", V, "in.md"],
    ["pandoc", "--lua-filter=" + V, "in.md"],
    ["pandoc", "-d", V, "in.md"],  # defaults that name filters
    ["strace", "-o", V, "ls"],  # '|CMD' pipes the trace to a shell command
    ["go", "test", "-exec", V, "./..."],
    ["go", "build", "-toolexec=" + V, "."],
    ["openssl", "req", "-engine", V, "-new"],  # a shared library it loads
    ["openssl", "req", "-config", V, "-new"],
    ["tsx", "-e", V],
    ["ts-node", "-p", V],
    ["kotlin", "-e", V],
    ["pdflatex", "-interaction=nonstopmode", V],  # `\input{/etc/passwd}`
    ["pdflatex", "doc.tex", V],  # TeX joins its operands into its first line: `\foo` runs
])
def test_a_value_in_an_option_that_runs_code_is_a_load_error(config: Config,
                                                             argv: list[Any]) -> None:
    params = {"vs": {"type": "array", "items": {"type": "string"}}} \
        if any(isinstance(a, dict) for a in argv) else None
    with pytest.raises(CompileError) as info:
        compile_tools(config({"t": cmd(argv, options={"allow_dash": []},
                                       **({"params": params} if params else {}))}))
    (problem,) = info.value.problems
    assert problem.key_path.startswith("servers.demo.tools.t.command.argv[")
    assert "option's argument" in problem.message or "code" in problem.message, problem
    assert "unsafe_code_placeholders" in (problem.hint or ""), problem
    compile_tools(config({"t": cmd(argv, options={"unsafe_code_placeholders": True},
                                   **({"params": params} if params else {}))}))


@pytest.mark.parametrize(("argv", "params"), [
    (["git", "-c", "user.name=" + V, "log"], None),
    (["git", "-c", "core.pager=cat", "log", "--", V], None),
    (["git", "cherry-pick", "-x", V], None),  # -x is a flag of cherry-pick
    (["git", "add", "-u", "--", V], None),
    (["git", "grep", "-c", V], None),  # -c counts here
    (["git", "commit", "-c", V], None),  # reuse a commit's message
    (["git", "submodule", "update", "--", V], None),
    (["git", "bisect", "run", "make", V], None),  # an argument of make
    (["git", "-C", "/r", "grep", "-n", "-c", "-e", V], None),
    (["ssh", "-o", "User=" + V, "host", "uptime"], None),
    (["ssh", "-o", "BatchMode=yes", "host", "uptime"], None),
    (["rsync", "-e", "ssh", "--", V, "b:c"], None),
    (["tar", "-xf", V], None),
    (["sort", "-o", "out", "--", V], None),
    (["vim", "-es", "+{{ line }}", "f"], {"line": {"type": "integer"}}),
    (["grep", "-e", V, "f"], None),
    (["sqlite3", "-readonly", V, "select 1"], None),  # the database file is data
    (["psql", "-d", V, "-c", "select 1"], None),
    # the program's own option that starts like a longer one (an exact name wins)
    (["tar", "--checkpoint=" + V, "-cf", "a.tar", "."], None),
    (["git", "apply", "--index", V], None),
    (["git", "merge", "--commit", V], None),
    (["git", "-c", "user.name=x", "clone", "--conf", "user.name=" + V, "r"], None),
    (["git", "config", "user.email", V], None),  # a setting that runs nothing
    (["git", "config", "--get", V], None),  # a read
    (["git", "log", "-s", V], None),  # log's -s: no diff
    (["vim", "-es", "-s", V], None),  # Ex mode: -s is silent, the value a file to edit
    (["ex", "-s", V], None),
    (["vim", "-l", V], None),  # vim's -l is lisp mode
    (["less", "+{{ line }}", "f"], {"line": {"type": "integer"}}),
    (["less", "-p", V, "f"], None),  # a pattern
    (["ssh", "-o", "User " + V, "host"], None),  # the keyword User, then its value
    (["ssh", "-o", "ConnectTimeout={{ n }}", "-o", "Hostname=" + V, "host"],
     {"n": {"type": "integer"}}),
    (["ssh", "-i", V, "-p", "{{ n }}", "host"], {"n": {"type": "integer"}}),
    (["mongosh", V, "--quiet", "--eval", "db.stats()"], None),  # the server's address
    (["duckdb", "-readonly", V, "select 1"], None),  # the database file
    (["tsx", "app.ts", V], None),  # the script's argument
    (["pdflatex", "-jobname=" + V, "doc.tex"], None),
    (["pdflatex", "-output-directory", V, "doc.tex"], None),
    (["pandoc", "-o", "out.html", V], None),  # the input document
    (["strace", "-f", "-o", "trace.txt", "ls", V], None),
    (["go", "test", "-run", V, "./..."], None),
    (["openssl", "x509", "-in", V, "-noout"], None),
    (["dtach", "-n", "/tmp/s", "ls", V], None),
    (["curl", "--proxy-user", V, "--connect-timeout", "{{ n }}", "-o", V, "https://a.test/"],
     {"n": {"type": "integer"}}),
])
def test_data_in_options_still_loads(config: Config, argv: list[Any],
                                     params: dict[str, Any] | None) -> None:
    compile_tools(config({"t": cmd(argv, **({"params": params} if params else {}))}))


@pytest.mark.parametrize("argv", [
    # bundled short options (getopt): the option that runs code is not the bundle's first
    ["tar", "-xvI", V, "-f", "a.tar"],
    ["tar", "-xI" + V, "-f", "a.tar"],
    ["tar", "xIf", V, "a.tar"],  # old style: I takes the first word after it
    ["tar", "xfI", "a.tar", V],  # ... and f the first, I the second
    ["ssh", "-vF", V, "host", "uptime"],
    ["ssh", "-qo", V, "host"],
    ["ssh", "-qoProxyCommand=" + V, "host"],
    ["rsync", "-ave", V, "src/", "dst/"],
    ["rsync", "-ae" + V, "src/", "dst/"],
    ["scp", "-qS", V, "a", "b"],
    ["sed", "-nf", V, "data"],
    ["sed", "-nf" + V, "data"],
    ["make", "-sC", V],
    ["make", "-sf", V],
    ["vim", "-esc", V, "f"],
    ["curl", "-sK", V, "https://example.com/"],
    ["curl", "-sK" + V, "https://example.com/"],
    ["wget", "-qe", V, "https://example.com/"],
    ["psql", "-Xc", V],
    ["mysql", "-Be", V],
    ["script", "-qc", V, "/dev/null"],
    ["zip", "-TT" + V, "a.zip", "f"],  # a long short option, glued
    ["gdb", "-ex" + V],
    # a value glued after flags extends the bundle: `etouch x` gives rsync `-a -e 'touch x'`
    ["rsync", "-a" + V, "src/", "dst/"],
    ["tar", "-xz" + V],
    ["curl", "-s" + V, "https://example.com/"],
    ["sed", "-n" + V, "data"],
    # options whose argument is a command, a script or configuration, not listed before
    ["su", "-", "root", "-c", V],  # after the user: su reads options anywhere
    ["su", "-lc", V, "root"],
    ["psql", "-o", V, "-c", "select 1"],  # -o '|CMD' pipes the output to a shell
    ["mysql", "--pager=" + V],
    ["mysql", "--init-command", V],
    ["mysql", "--defaults-extra-file=" + V],
    ["wget", "--config", V, "https://example.com/"],
    ["man", "-C", V, "ls"],
    # a file, module or directory the program loads as code or as its configuration
    ["node", "-r", V, "app.js"],
    ["nodejs", "--import", V, "app.js"],
    ["node", "--env-file=" + V, "app.js"],  # NODE_OPTIONS=--require ...
    ["perl", "-I", V, "s.pl"],
    ["ruby", "-r", V, "app.rb"],
    ["php", "-c", V, "app.php"],
    ["php", "-d", "auto_prepend_file=" + V, "app.php"],
    ["php", "-d", V, "app.php"],
    ["lua", "-l", V, "app.lua"],
    ["bash", "--rcfile", V, "-i"],
    ["java", "-jar", V],
    ["java", "-cp", V, "Main"],
    ["java", "-javaagent:" + V, "-jar", "app.jar"],
    ["gcc", "-specs=" + V, "a.c"],
    ["clang", "-B", V, "a.c"],
    ["cc", "-fplugin=" + V, "a.c"],
    ["at", "-f", V, "now"],
    ["crontab", V],
    ["m4", V],
    ["ansible-playbook", "-i", "hosts", V],
    ["ansible-playbook", "site.yml", "-e", V],
    ["ansible", "all", "-m", "shell", "-a", V],
    ["cmake", "-P", V],
    ["cmake", "-S", V, "-B", "build"],
    ["ninja", "-C", V],
    ["terraform", "-chdir=" + V, "plan"],
    ["mvn", "-f", V, "test"],
    ["./gradlew", "-p", V, "test"],
    ["pytest", "-p", V],
    ["pytest", "-c", V],
    ["tox", "-c", V],
    ["gpg", "--options", V, "-d", "x.gpg"],
    ["node", "-r", "dotenv/config", "-r", V, "app.js"],
    ["node", "-e", "1", "-r", V],  # -e's code is no script: node reads on
    ["perl", "-we", "1", "-I", V],
    ["java", "--add-opens", "x=y", "-jar", V],
])
def test_a_bundled_or_glued_option_that_runs_code_is_a_load_error(config: Config,
                                                                 argv: list[Any]) -> None:
    with pytest.raises(CompileError) as info:
        compile_tools(config({"t": cmd(argv, options={"allow_dash": []})}))
    problem = info.value.problems[0]
    assert problem.key_path.startswith("servers.demo.tools.t.command.argv[")
    assert "option's argument" in problem.message or "code" in problem.message, problem


@pytest.mark.parametrize("argv", [
    ["tar", "-xzf", V],
    ["tar", "-xzf" + V],
    ["tar", "xf", V],
    ["tar", "-fI", V],  # -f took "I": the archive's name, V an operand
    ["ssh", "-p" + V, "host", "uptime"],
    ["ssh", "-vl", V, "host", "uptime"],
    ["make", "-sj" + V],
    ["curl", "-sSLo", V, "https://example.com/"],
    ["curl", "-sHKey:" + V, "https://example.com/"],  # a header named Key, not -K
    ["wget", "-qO", V, "https://example.com/"],
    ["mysql", "-u" + V, "-e", "select 1"],
    ["php", "-d", "memory_limit=" + V, "app.php"],
    ["node", "app.js", V],
    ["java", "-jar", "app.jar", V],
    ["perl", "-I", "lib", "s.pl", V],
    ["gcc", "-O2", "-o", "out", "--", V],
    ["pytest", "-q", "-k", V],
    ["crontab", "-l", "-u", V],
    ["ls", "-l" + V],  # ls runs nothing
    ["tar", "-C" + V, "-xf", "a.tar"],  # -C takes the rest: a directory
    ["node", "app.js", "-r", V],  # after the script: the script's own options
    ["node", "-r", "dotenv/config", "app.js", "--require", V],
    ["java", "-jar", "app.jar", "-cp", V],
    ["java", "-Xmx1g", "-cp", "lib", "Main", "-jar", V],
    ["perl", "-w", "s.pl", "-I", V],
    ["php", "-d", "memory_limit=1", "app.php", "-c", V],
])
def test_bundled_options_that_take_data_still_load(config: Config, argv: list[Any]) -> None:
    compile_tools(config({"t": cmd(argv, options={"allow_dash": ["v"]})}))


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
async def test_git_config_from_the_model_never_runs_a_command(config: Config,
                                                               tmp_path: Path) -> None:
    # the hole: `git -c {{ cfg }} status` with cfg "core.fsmonitor=CMD" ran CMD
    subprocess.run(["git", "init", "-q", str(tmp_path / "repo")], check=True)
    marker = tmp_path / "pwned"
    argv = ["git", "-C", str(tmp_path / "repo"), "-c", "{{ cfg }}", "status"]
    with pytest.raises(CompileError):
        compile_tools(config({"t": cmd(argv)}))
    safe = ["git", "-C", str(tmp_path / "repo"), "-c", "user.name={{ cfg }}", "status"]
    result = await run(config({"t": cmd(safe)}), "t", {"cfg": f"x; touch {marker}"})
    assert not result.is_error, result
    assert not marker.exists()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
async def test_a_repository_the_model_names_never_runs_its_config(config: Config,
                                                                 tmp_path: Path) -> None:
    # the hole: `git -C {{ repo }} status` ran the fsmonitor a repository's own .git/config
    # names, in any directory the model could write or point to
    repo = tmp_path / "evil"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    marker = tmp_path / "pwned"
    subprocess.run(["git", "-C", str(repo), "config", "core.fsmonitor", f"touch {marker}"],
                   check=True)
    with pytest.raises(CompileError) as info:
        compile_tools(config({"t": cmd(["git", "-C", "{{ repo }}", "status"])}))
    assert "a directory whose configuration" in info.value.problems[0].message
    assert not marker.exists()
    # the repository written in the config: the author chose it
    fixed = config({"t": cmd(["git", "-C", str(tmp_path / "evil"), "log", "-n", "1",
                              "--", "{{ path }}"])})
    result = await run(fixed, "t", {"path": "x"})
    assert "fatal" in result.text_content or not result.is_error, result.text_content


@pytest.mark.parametrize("argv", [
    ["ssh", "-L", V, "host", "uptime"],
    ["ssh", "-R", V, "host"],
    ["ssh", "-D", V, "host"],
    ["ssh", "-W", V, "host"],  # the tool's stdio to a host and port the server reaches
    ["ssh", "-w", V, "host"],
    ["ssh", "-NL" + V, "host"],
    ["ssh", "-fNR", V, "host"],
    ["ssh", "-L", "8080:{{ v }}:80", "host"],
    ["autossh", "-M", "0", "-L", V, "host"],
    ["ssh", "-o", "LocalForward=" + V, "host"],
    ["ssh", "-o", "RemoteForward " + V, "host"],
    ["ssh", "-o", "dynamicforward=" + V, "host"],
    ["ssh", "-o", "SendEnv=" + V, "host"],  # `*`: every variable of the tool's environment
    ["ssh", "-oSendEnv=" + V, "host"],
    ["ssh", "-vo", "SetEnv=LANG=" + V, "host"],  # `C LD_X=1`: more variables
    ["ssh", "-o", '"SendEnv" ' + V, "host"],
    ["ssh", "-o", "ForwardAgent=" + V, "host"],
    ["ssh", "-o", "GatewayPorts=" + V, "host"],
    ["ssh", "-o", "PermitRemoteOpen=" + V, "host"],
    ["ssh", "-o", "Tunnel=" + V, "host"],
    ["scp", "-o", "SendEnv=" + V, "a", "h:b"],
    ["sftp", "-o", "LocalForward=" + V, "h"],
])
def test_a_value_never_chooses_what_ssh_forwards_or_sends(config: Config,
                                                          argv: list[Any]) -> None:
    """(backends27) No command runs, but the model would open a port (on every interface
    with `0.0.0.0:`), reach any host and port the server can, or send the tool's
    environment and agent to the server: refused at load, worded as such."""
    with pytest.raises(CompileError) as info:
        compile_tools(config({"t": cmd(argv, options={"allow_dash": []})}))
    (problem,) = info.value.problems
    assert problem.key_path.startswith("servers.demo.tools.t.command.argv[")
    assert "port forward or what it sends" in problem.message, problem
    assert "where the connection goes or what it opens or sends" in problem.message, problem
    assert "unsafe_code_placeholders" in (problem.hint or ""), problem
    compile_tools(config({"t": cmd(argv, options={"unsafe_code_placeholders": True})}))


@pytest.mark.skipif(shutil.which("ssh") is None, reason="needs OpenSSH's ssh")
@pytest.mark.parametrize("shape", ['"ProxyCommand"={}', "ProxyCommand sh -c 'a=1; {}'",
                                   " proxycommand\t{}", "ProxyCommand=={}"])
def test_ssh_reads_these_keywords_as_proxycommand(config: Config, shape: str) -> None:
    """The real ssh's reading (`ssh -G` prints the settings it would use, connects to
    nothing) and the loader's agree: each shape is a ProxyCommand, and loads as none."""
    shown = subprocess.run(["ssh", "-G", "-F", "none", "-o", shape.format("echo B27"), "h"],
                           capture_output=True, text=True, timeout=30, check=False).stdout
    assert any(line.startswith("proxycommand ") and "echo B27" in line
               for line in shown.splitlines()), shown
    with pytest.raises(CompileError, match="runs or reads as a command"):
        compile_tools(config({"t": cmd(["ssh", "-o", shape.format(V), "host"])}))


@pytest.mark.parametrize(("argv", "shown"), [
    (["tsx", V], "script file"), (["ts-node", "--", V], "script file"),
    (["wish", V], "script file"), (["dtach", "-n", "/tmp/s", V], "program"),
    (["dtach", "-A", "/tmp/s", "-z", V, "x"], "program"),
])
def test_a_value_as_a_runners_script_or_program_is_a_load_error(config: Config,
                                                                argv: list[Any],
                                                                shown: str) -> None:
    """(backends27) TypeScript runners and wish run their first operand; dtach is a wrapper."""
    with pytest.raises(CompileError, match=shown):
        compile_tools(config({"t": cmd(argv)}))


@pytest.mark.parametrize("argv", [
    ["curl", "--resolve", V, "https://api.example.com/x"],  # api.example.com:443:EVIL_IP
    ["curl", "--connect-to", V, "https://api.example.com/x"],
    ["curl", "-x", V, "http://api.example.com/x"],  # the proxy sees the request and its auth
    ["curl", "-sSx", V, "http://api.example.com/x"],
    ["curl", "--prox", V, "http://api.example.com/x"],  # curl takes a start of --proxy
    ["curl", "-x", "http://{{ v }}:3128", "http://api.example.com/x"],
    ["curl", "--socks5-hostname", V, "https://api.example.com/x"],
    ["curl", "--doh-url", V, "https://api.example.com/x"],
    ["curl", "--unix-socket", V, "http://localhost/containers/json"],  # docker.sock
    ["curl", "--cacert", V, "https://api.example.com/x"],
])
def test_a_value_never_chooses_where_curls_connection_goes(config: Config,
                                                           argv: list[Any]) -> None:
    """(backends27) The URL's host is the config's, but these send the config's request, its
    headers and credentials to a host or socket the model names."""
    with pytest.raises(CompileError) as info:
        compile_tools(config({"t": cmd(argv, options={"allow_dash": []})}))
    (problem,) = info.value.problems
    assert "where its connection goes" in problem.message, problem
    compile_tools(config({"t": cmd(argv, options={"unsafe_code_placeholders": True})}))
