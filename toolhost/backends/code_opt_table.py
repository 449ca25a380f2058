"""The tables ``code_opts`` reads: per program, the options whose argument is a command,
code, or a file, module or directory the program loads as code or configuration; which
programs read bundled short options, and which interpreters' options end at their script.
"""

from __future__ import annotations

__all__ = ["ALIASES", "BUNDLE", "CLUSTERS", "CMD", "DIR", "EXACT_PREFIXES", "GIT_ARG_OPTIONS",
           "GIT_CODE_KEY", "GIT_CONFIG_ARG", "GIT_CONFIG_VERBS", "GIT_RUNS", "GIT_SHORT",
           "GIT_SUB", "LIBDIR", "MOD", "OPTIONS", "OUT", "OWN_OPTIONS_END", "PHP_CODE_KEY",
           "PLUS_COMMAND", "ROUTE", "SQL", "SQLITE_ARG", "SSH_CODE_KEY", "SSH_EXPOSE_KEY",
           "SSH_SENDS", "TAR_ARG_LETTERS", "TPL"]

# These key patterns stay text (re.match compiles and caches one at its first use): only a
# tool running git, ssh or php needs them, and compiling all four at import costs ~1 ms
# git config keys that name a program, a shell command, a hook or a file of more config
GIT_CODE_KEY = (
    r"(?i)"
    r"^(alias\.|include\.|includeif\.|url\.|pager\.|filter\.|diff\..*\.(textconv|command)$"
    r"|merge\..*\.driver$|difftool\.|mergetool\.|sequence\.editor$|gpg\.|credential"
    r"|remote\..*\.(uploadpack|receivepack|proxy|vcs|url|pushurl)$|protocol\.|uploadpack\."
    r"|receive\.|submodule\..*\.(update|url)$|safe\.|init\.templatedir$|diff\.external$"
    r"|sendemail\.smtpserver$|instaweb\.|man\..*viewer$|.*browser$"
    r"|http\.|core\.(pager|editor|sshcommand|fsmonitor|hookspath|askpass|gitproxy|attributesfile"
    r"|excludesfile|worktree)$|.*(command|cmd|program|helper|hook|exec|path|proxy|editor"
    r"|pager|driver|tool|askpass)$)")
# ssh_config keywords that run a command, load a library or read more config
SSH_CODE_KEY = (
    r"(?i)"
    r"^(proxycommand|localcommand|permitlocalcommand|knownhostscommand|remotecommand|match"
    r"|include|pkcs11provider|securitykeyprovider|identityagent|controlpath|controlmaster"
    r"|sshaskpass|proxyjump|proxyusefdpass|xauthlocation|.*command)$")
# ssh_config keywords that open a port, reach a host and port through the
# server, or send the tool's environment or your agent to the server: no command runs,
# but the model would choose what the connection exposes (`SendEnv=*`: every variable)
SSH_EXPOSE_KEY = (
    r"(?i)"
    r"^(localforward|remoteforward|dynamicforward|gatewayports|permitremoteopen|tunnel"
    r"|tunneldevice|sendenv|setenv|forwardagent|forwardx11|forwardx11trusted)$")
# what a value there chooses (code_opts' label; command_checks words the error by it)
SSH_SENDS = ("a port forward or what it sends the server (a listening port, a host and "
             "port it reaches through the server, your environment or ssh agent)")
# where curl's connection goes, whatever the URL says: the config's request,
# its headers and credentials would go to a host or socket the model names
ROUTE = ("where its connection goes (a proxy, another address or socket for the URL's host, "
         "whom TLS trusts)")
_ROUTES = ("-x", "--proxy", "--preproxy", "--socks4", "--socks4a", "--socks5",
           "--socks5-hostname", "--proxy1.0", "--resolve", "--connect-to", "--doh-url",
           "--unix-socket", "--abstract-unix-socket", "--cacert", "--capath")

CMD = "a command"
SQL = "statements and its own commands (which run programs)"
# a directory whose own configuration runs code: a repository's .git/config (core.fsmonitor,
# hooks), a Makefile, a Cargo.toml's build.rs, a package.json's scripts
DIR = "a directory whose configuration, hooks or build scripts it runs"
OUT = "an output file, or '|COMMAND' (a shell command it pipes to)"
MOD = "a module, library or archive of code it loads"
LIBDIR = "a directory it loads code from"
TPL = "a template it evaluates (which runs commands)"
JUMP = "a host it connects through with your ssh keys (-J, as ProxyJump)"
# a value glued after a bundle of flags: it can add an option that runs code
BUNDLE = "a bundle of short options (the value can add one that runs code)"
# php.ini settings that name code to run or load (php -d KEY=VALUE)
PHP_CODE_KEY = (
    r"(?i)"
    r"^(auto_prepend_file|auto_append_file|include_path|extension"
                           r"|zend_extension|extension_dir|sendmail_path|opcache\.preload"
                           r"|user_ini\.filename|.*(path|file|dir|command|cmd))$")
# program -> option -> what its argument is ("kv-git"/"kv-ssh": KEY=VALUE, else a command)
OPTIONS: dict[str, dict[str, str]] = {
    # git's own options, before the subcommand (after it, -c is commit's or grep's)
    "git": {"-c": "kv-git", "--config-env": "kv-git", "--exec-path": CMD, "-C": DIR,
            "--git-dir": DIR, "--work-tree": DIR},
    # -J: the hosts it connects through with your keys (as -o ProxyJump); ssh -S: a control
    # socket whose open connection it reuses (as -o ControlPath)
    "ssh": {"-o": "kv-ssh", "-F": "a configuration file", "-I": "a library", "-J": JUMP,
            "-S": "a control socket whose connection it reuses",
            # -L/-R/-D forward ports, -W the tool's stdio to a host and port
            # the server reaches, -w a tun device (as LocalForward ... Tunnel)
            "-L": SSH_SENDS, "-R": SSH_SENDS, "-D": SSH_SENDS, "-W": SSH_SENDS,
            "-w": SSH_SENDS},
    "scp": {"-o": "kv-ssh", "-F": "a configuration file", "-S": CMD, "-J": JUMP},
    "sftp": {"-o": "kv-ssh", "-F": "a configuration file", "-S": CMD, "-D": CMD, "-J": JUMP},
    # -M/--remote-option: an option of the other side's rsync; --config: the daemon's file
    # (its pre-xfer exec runs commands)
    "rsync": {"-e": CMD, "--rsh": CMD, "--rsync-path": CMD,
              "-M": "an option of the other side's rsync",
              "--remote-option": "an option of the other side's rsync",
              "--config": "a configuration file"},
    "tar": {"--to-command": CMD, "-I": CMD, "--use-compress-program": CMD,
            "--checkpoint-action": CMD, "--info-script": CMD, "--new-volume-script": CMD,
            "-F": CMD, "--rsh-command": CMD, "--rmt-command": CMD},
    "sort": {"--compress-program": CMD},
    # split --filter=CMD: each piece is piped to CMD, run by $SHELL -c
    "split": {"--filter": CMD},
    # --remote-send/--remote-expr: keys or an expression for a running vim
    # (`:!CMD`); vim -s SCRIPTIN (keys read from a file) is checked in code_opts (after -e
    # it is Ex mode's silent flag)
    "vim": {"-c": CMD, "--cmd": CMD, "-S": "a script file", "-u": "a script file",
            "--remote-send": CMD, "--remote-expr": CMD},
    "gdb": {"-ex": CMD, "-iex": CMD, "--eval-command": CMD, "-x": "a script file",
            "-ix": "a script file", "--command": "a script file"},
    "zip": {"-TT": CMD, "--unzip-command": CMD},
    "man": {"-P": CMD, "--pager": CMD, "-H": CMD, "--html": CMD,
            "-C": "a configuration file", "--config-file": "a configuration file"},
    "wget": {"-e": CMD, "--execute": CMD, "--use-askpass": CMD,
             "--config": "a configuration file"},
    # su USER -c CMD: the command comes after the user (code_args stops at the operand)
    "su": {"-c": CMD, "--command": CMD, "--session-command": CMD, "-s": CMD,
           "--shell": CMD},
    "curl": {"-K": "a configuration file", "--config": "a configuration file",
             **dict.fromkeys(_ROUTES, ROUTE)},
    "make": {"-f": "a script file", "--file": "a script file", "--makefile": "a script file",
             "-E": CMD, "--eval": CMD, "-C": DIR, "--directory": DIR,
             # where `include x.mk` finds a makefile (when none is in the cwd): its code
             "-I": LIBDIR, "--include-dir": LIBDIR},
    "cargo": {"--manifest-path": DIR, "-C": DIR, "--config": "a configuration file"},
    "npm": {"--prefix": DIR, "-C": DIR, "--script-shell": CMD,
            "--userconfig": "a configuration file", "--globalconfig": "a configuration file"},
    "pnpm": {"--dir": DIR, "-C": DIR, "--script-shell": CMD},
    "yarn": {"--cwd": DIR},
    # gawk -i/--include a source file, -l/--load a shared library, -E/--exec a program
    "awk": {"-f": "a script file", "--file": "a script file", "-i": MOD, "--include": MOD,
            "-l": MOD, "--load": MOD, "-E": "a script file", "--exec": "a script file"},
    "sed": {"-f": "a script file", "--file": "a script file"},
    "script": {"-c": CMD, "--command": CMD},
    "runuser": {"-c": CMD, "--command": CMD},
    "npx": {"-c": CMD, "--call": CMD},
    "emacs": {"--eval": CMD, "-eval": CMD, "-f": CMD, "--funcall": CMD,
              "-l": "a script file", "--load": "a script file", "--script": "a script file",
              "-x": "a script file", "-L": LIBDIR, "--directory": LIBDIR,
              "--init-directory": DIR},
    "emacsclient": {"-e": CMD, "--eval": CMD},
    # less +CMD runs less commands (`!CMD` a shell command); a lesskey file's #env section
    # sets LESSOPEN, a command less runs on each file
    "less": {"-k": "a configuration file", "--lesskey-file": "a configuration file",
             "--lesskey-src": "a configuration file",
             "--lesskey-content": "a configuration file"},
    # a file, module or directory the program loads as code or as its own
    # configuration: the model would choose what runs as surely as with -e
    "node": {"-r": MOD, "--require": MOD, "--import": MOD, "--loader": MOD,
             "--experimental-loader": MOD, "--env-file": "a configuration file"},
    "perl": {"-M": MOD, "-m": MOD, "-I": LIBDIR},
    "ruby": {"-r": MOD, "--require": MOD, "-I": LIBDIR},
    "php": {"-c": "a configuration file", "-d": "kv-php", "-z": MOD},
    "lua": {"-l": MOD},
    "bash": {"--rcfile": "a script file", "--init-file": "a script file"},
    "java": {"-jar": MOD, "-cp": LIBDIR, "-classpath": LIBDIR, "--class-path": LIBDIR,
             "-p": LIBDIR, "--module-path": LIBDIR, "-javaagent:": MOD,
             "-agentpath:": MOD, "-agentlib:": MOD},
    "gcc": {"-specs": "a configuration file", "--specs": "a configuration file",
            "-B": LIBDIR, "-wrapper": CMD, "-fplugin": MOD},
    "at": {"-f": "a script file"},
    # --build DIR runs the build tool its cache names (a Makefile there), --install DIR
    # its cmake_install.cmake scripts
    "cmake": {"-C": "a script file", "-P": "a script file", "-S": DIR,
              "--toolchain": "a script file", "--build": DIR, "--install": DIR},
    "ninja": {"-C": DIR}, "terraform": {"-chdir": DIR},
    "mvn": {"-f": DIR, "--file": DIR}, "gradle": {"-p": DIR, "--project-dir": DIR,
                                                    "-b": DIR, "--build-file": DIR,
                                                    "-I": "a script file",
                                                    "--init-script": "a script file"},
    "pytest": {"-p": MOD, "-c": "a configuration file", "--rootdir": DIR},
    "tox": {"-c": "a configuration file", "--conf": "a configuration file"},
    "gpg": {"--options": "a configuration file", "--homedir": DIR},
    # ansible templates its extra vars (`{{ lookup('pipe', CMD) }}` runs CMD)
    "ansible-playbook": {"-e": TPL, "--extra-vars": TPL},
    "ansible": {"-e": TPL, "--extra-vars": TPL, "-a": CMD, "--args": CMD, "-m": MOD,
                "--module-name": MOD},
    # SQL shells: their statements reach the shell's own commands (psql \\!, mysql system,
    # sqlite3 .shell), as their stdin does (command_checks)
    # psql -o '|CMD' pipes its output to a shell command
    "psql": {"-c": SQL, "--command": SQL, "-f": "a script file", "--file": "a script file",
             "-o": OUT, "--output": OUT},
    "mysql": {"-e": SQL, "--execute": SQL, "--init-command": SQL, "--pager": CMD,
              "--defaults-file": "a configuration file",
              "--defaults-extra-file": "a configuration file"},
    "duckdb": {"-c": SQL, "-cmd": SQL, "-init": "a script file", "-s": SQL},
    "sqlite3": {"-cmd": SQL, "-init": "a script file"},
    # more shells of code and of statements: mongosh's JavaScript (`require(
    # 'child_process')`), MySQL Shell's JS/Python/SQL; clickhouse's SQL reads and writes
    # local files (`FROM INFILE`, `INTO OUTFILE`, `file()`), cqlsh's `SOURCE`/`COPY TO`
    "mongosh": {"--eval": CMD, "-f": "a script file", "--file": "a script file"},
    "mysqlsh": {"-e": CMD, "--execute": CMD, "-f": "a script file", "--file": "a script file",
                "--pym": MOD},
    "clickhouse-client": {"-q": SQL, "--query": SQL, "--queries-file": "a script file",
                          "-C": "a configuration file", "--config-file": "a configuration file"},
    "cqlsh": {"-e": SQL, "--execute": SQL, "-f": "a script file", "--file": "a script file",
              "--cqlshrc": "a configuration file"},
    "sqlcmd": {"-Q": SQL, "-q": SQL, "-i": "a script file"},
    "influx": {"-execute": SQL, "-import": "a script file", "-path": "a script file"},
    "matlab": {"-batch": CMD, "-r": CMD},
    # latexmk's -e and rc files are Perl; pandoc runs filters (a program, a Lua script) and
    # reads defaults that name them; strace -o '|CMD' pipes its output to a shell command;
    # go test -exec / build -toolexec run a program around each binary or tool; openssl
    # loads an engine or provider (a shared library), its config can name one
    "latexmk": {"-e": CMD, "-r": "a script file"},
    "pandoc": {"--filter": CMD, "-F": CMD, "--lua-filter": "a script file",
               "-L": "a script file", "--defaults": "a configuration file",
               "-d": "a configuration file", "--data-dir": DIR},
    "strace": {"-o": OUT, "--output": OUT},
    "go": {"-exec": CMD, "-toolexec": CMD, "-overlay": "a configuration file", "-C": DIR},
    "openssl": {"-engine": MOD, "-provider": MOD, "-provider-path": LIBDIR, "-pre": MOD,
                "-post": MOD, "-config": "a configuration file"},
}
# sqlite3's options that take an argument (its operands: the database, then statements)
SQLITE_ARG = frozenset({"-cmd", "-separator", "-newline", "-nullvalue", "-init", "-vfs",
                         "-maxsize", "-mmap", "-pagecache", "-lookaside", "-heap", "-escape"})
_STRATEGY = "a program it runs (git-merge-NAME, any of that name on PATH)"
# the subcommands' options that run something; the short ones only under some subcommands
# (cherry-pick -x, grep -c and commit -c are no commands)
GIT_SUB = {"--config": "kv-git", "--upload-pack": CMD, "--receive-pack": CMD,
            "--exec": CMD, "--extcmd": CMD, "--open-files-in-pager": CMD,
            # send-email runs these; an --smtp-server that is a path is a program it runs
            "--sendmail-cmd": CMD, "--to-cmd": CMD, "--cc-cmd": CMD, "--header-cmd": CMD,
            "--smtp-server": CMD, "--strategy": _STRATEGY,
            "--httpd": CMD, "--browser": CMD,  # instaweb, web--browse
            **{f"--{f}-filter": CMD for f in ("tree", "index", "msg", "env", "commit",
                                               "parent", "tag-name")}}
# git's own options (before the subcommand) that take the next word as their argument
GIT_ARG_OPTIONS = frozenset({"-C", "-c", "--config-env", "--git-dir", "--work-tree",
                             "--namespace", "--super-prefix", "--attr-source"})
# git config's options that take an argument, and its verbs before KEY VALUE (git 2.46)
GIT_CONFIG_ARG = frozenset({"-f", "--file", "--blob", "--type", "--default", "--comment",
                            "--value", "--url"})
GIT_CONFIG_VERBS = frozenset({"set", "get", "unset", "list", "rename-section",
                              "remove-section", "edit"})
# git SUBCOMMAND WORD runs what follows: foreach's arguments as a shell command, bisect
# run's first as the program (its others are that program's arguments)
GIT_RUNS = {("submodule", "foreach"): None, ("bisect", "run"): 1}
GIT_SHORT = {"rebase": {"-x": CMD, "-s": _STRATEGY}, "difftool": {"-x": CMD},
              "grep": {"-O": CMD}, "merge": {"-s": _STRATEGY}, "pull": {"-s": _STRATEGY},
              "clone": {"-u": CMD, "-c": "kv-git"}, "ls-remote": {"-u": CMD},
              "archive": {}, "fetch": {}, "push": {}}
ALIASES = {"gtar": "tar", "bsdtar": "tar", "vi": "vim", "nvim": "vim", "ex": "vim",
            "view": "vim", "gvim": "vim", "vimdiff": "vim", "rvim": "vim", "gmake": "make",
            "gawk": "awk", "mawk": "awk", "nawk": "awk", "gsed": "sed", "gsort": "sort",
            "gsplit": "split",
            "slogin": "ssh", "autossh": "ssh", "mariadb": "mysql", "sqlite": "sqlite3",
            "nodejs": "node", "luajit": "lua", "cc": "gcc", "g++": "gcc", "c++": "gcc",
            "clang": "gcc", "clang++": "gcc", "batch": "at", "py.test": "pytest", "gpg2": "gpg",
            "gradlew": "gradle", "mvnw": "mvn", "mongo": "mongosh",
            "clickhouse-local": "clickhouse-client", "clickhouse": "clickhouse-client"}
# "+CMD" is an Ex command (vim) or less's command (`+!CMD`), "+N" a line number
PLUS_COMMAND = frozenset({"vim", "less"})
# programs that read bundled short options (getopt and the like): `-xvI CMD`, `-sK{{ f }}`,
# and their short options that take an argument (what follows one in a bundle is that
# argument: `curl -HKey:{{ v }}` is a header, not -K)
CLUSTERS: dict[str, str] = {
    "tar": "bCfFgHIKLNTVX", "ssh": "bcDEeFIiJLlmOopQRSWw", "scp": "cDFiJloPSX",
    "sftp": "BbcDFiJloPRS", "rsync": "efBTM", "make": "CfIjloWE", "man": "CMPHLmSepRrEX",
    "wget": "eoaiBOTtwQPUDXIRAl", "curl": "AbcCdDeEFHKmoPQrTtuUwxXyYz", "awk": "fvFeilEW",
    "sed": "efli", "psql": "cdfvhpUoLTFPR", "mysql": "eDhPuSpO", "script": "cEIOTtBm",
    "runuser": "cugGsw", "su": "cgGsw", "vim": "cSuUTiwWtqr", "cargo": "CZjpF",
    "less": "bhjkoOpPtTxyz#"}
# interpreters whose own options end at their first operand (the script, java's main
# class or -jar's archive): what follows is the script's (`node app.js -r x`); with the
# options of theirs that take a separate argument, besides the table's
OWN_OPTIONS_END: dict[str, frozenset[str]] = {
    "node": frozenset({"-e", "--eval", "-p", "--print", "--title", "-C", "--conditions",
                       "--input-type", "--inspect-port", "--max-http-header-size"}),
    "perl": frozenset({"-e", "-E", "-x", "-i", "-0", "-l", "-C", "-d", "-D"}),
    "ruby": frozenset({"-e", "-E", "-C", "-x", "-F", "-i", "-K", "-T", "-W", "-0", "-l",
                       "--encoding", "--external-encoding", "--internal-encoding"}),
    "php": frozenset({"-r", "-B", "-R", "-E", "-F", "-f", "-t"}),
    "lua": frozenset({"-e", "-W"}),
    "bash": frozenset({"-c", "-o", "+o", "-O", "+O"}),
    "java": frozenset({"--add-modules", "--add-opens", "--add-exports", "--add-reads",
                       "--limit-modules", "--upgrade-module-path", "--patch-module",
                       "--source", "--enable-native-access", "-m", "--module", "-splash",
                       "--describe-module", "-d"}),
}
# GNU tar's short options that take an argument (its old style hands them the next words)
TAR_ARG_LETTERS = frozenset("bCfFgHIKLNTVX")
# a program's own long options that are the start of a longer one in its table: the exact
# name wins (getopt_long), so `tar --checkpoint=10` is no `--checkpoint-action` (and `git
# apply --index`, `git merge --commit` are flags, no --index-filter / --commit-filter)
EXACT_PREFIXES: dict[str, frozenset[str]] = {
    "tar": frozenset({"--checkpoint"}),
    "git": frozenset({"--commit", "--index", "--exec", "--config"}),
}
