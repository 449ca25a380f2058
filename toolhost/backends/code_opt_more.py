"""More programs' options whose argument runs or loads code, merged with ``code_opt_table``'s.

Each was tried with the real program where it is installed (sdiff and diff3 run
``--diff-program``, apt-get ``-o APT::Update::Pre-Invoke::=CMD``, java
``-XX:OnOutOfMemoryError=CMD``, rustc ``-C linker=CMD``, gpg ``--agent-program``, ssh-keygen
``-D`` dlopens its library, git clone ``--template`` copies hooks that then run); the rest
from their manuals. ``kv-NAME``: the argument is ``KEY=VALUE`` and :data:`KV_KEYS` holds
the keys that run something (a value in the key is refused too).
"""

from __future__ import annotations

from toolhost.backends.code_opt_dev import DEV_ALIASES, DEV_OPTIONS
from toolhost.backends.code_opt_table import (
    ALIASES,
    CMD,
    DIR,
    GIT_SHORT,
    LIBDIR,
    MOD,
    OPTIONS,
)

__all__ = ["ALL_ALIASES", "ALL_GIT_SHORT", "ALL_OPTIONS", "KV_KEYS"]

_CONF = "a configuration file"
_SCRIPT = "a script file"
_JVM_OPTION = "an option of the Java runtime it starts (-XX:OnError=CMD runs a command)"
# the container engine mounts or grants it as root: the model would choose which host files
# the container reads and writes, or how much of the host it reaches
_HOST = ("what of the host the container reaches (a host path it mounts as root, a device, "
         "the host's namespaces, a capability or a security profile turned off)")
_DAEMON = ("the engine it talks to (an ssh:// host it runs ssh to with your keys, or a daemon "
           "the whole request goes to)")
_KUBECONFIG = "a configuration file (its exec credential plugin runs a command)"
_JJ_TOML = "settings that name the editors, pagers and tools it runs"
_KEYS = "a file of key bindings or commands (which run programs)"
_CONTROL = "an interface or socket that takes commands (lua, http, telnet: which run programs)"
_FILTER = ("a filter graph (movie= and amovie= read any file or URL, sendcmd= reads commands, "
           "zmq takes them over the network)")

_NSE = "the NSE scripts it runs (Lua: a file, a directory, a category or an expression)"
_LUA_EXT = "an extension option (lua_script: names a Lua file it runs)"

# keys of KEY=VALUE options that name a program, a command, code or where code is loaded
KV_KEYS = {
    # java -XX:NAME=VALUE (the JVM runs OnError / OnOutOfMemoryError through a shell; a
    # class-data archive or a flags file is code or more options)
    "kv-jvm": r"(?i)^[+-]?(onerror|onoutofmemoryerror|flags|vmoptionsfile|sharedarchivefile"
              r"|aotcache|aotconfiguration|cracrestorefrom|.*(agent|library|command))$",
    # java -DNAME=VALUE: properties naming a class loader, a policy, a library path or a
    # configuration the runtime or a logging framework loads
    "kv-jprop": r"(?i)^(java\.system\.class\.loader|java\.security\.(manager|policy"
                r"|properties)|java\.(class|library|ext|endorsed)\.(path|dirs)"
                r"|jdk\.module\.(path|upgrade\.path)|java\.util\.logging\.config\..*"
                r"|java\.rmi\.server\.codebase|.*(loader|codebase|agent|configurationfile"
                r"|config\.file|\.factory|\.provider|\.class|classpath))$",
    # rustc -C / -Z KEY=VALUE: the linker, its arguments, a codegen backend or plugin
    "kv-rustc": r"(?i)^(linker.*|link-args?|pre-link-args?|link-self-contained|llvm-args"
                r"|codegen-backend|llvm-plugins|.*(plugin|backend|path|dir|file|program))$",
    # apt -o KEY=VALUE: hooks (Pre-Invoke, Post-Invoke, Pre-Install-Pkgs), programs
    # (Dir::Bin::*, ProxyAutoDetect, gpgv), directories and files of configuration, dpkg's
    # own options
    "kv-apt": r"(?i)^(dir(::.*)?|.*(invoke|install-pkgs|autodetect|auto-detect|options"
              r"|command|cmd|program|methods|bin::.*|gpgv.*|hook.*|script.*|conf.*|file"
              r"|dir|path|parts))(::)?$",
    # hg --config SECTION.NAME=VALUE
    "kv-hg": r"(?i)^(hooks\.|alias\.|extensions\.|pager\.|merge-tools\.|extdiff\.|diff-tools"
             r"\.|hostsecurity\.|paths\.|web\.|.*(ssh|editor|pager|merge|remotecmd|command"
             r"|cmd|program|executable|path))",
    # jj --config NAME=VALUE: editors, pagers, diff and merge tools, fix tools, aliases
    # (which run commands), signing programs, git's executable
    "kv-jj": r"(?i)^(ui\.|merge-tools\.|aliases\.|fix\.|signing\.|git\.|hooks\.|.*(editor"
             r"|pager|tool|command|cmd|program|executable|backend|path))",
    # svn --config-option FILE:SECTION:OPTION=VALUE
    "kv-svn": r"(?i)^(config:(tunnels|helpers):|.*(cmd|command|program|tool|library|ssh))",
    # cmake -D VAR[:TYPE]=VALUE: a file it includes, a compiler or launcher it runs
    "kv-cmake": r"(?i)^.*(include|toolchain|launcher|compiler|linker|command|program"
                r"|executable|module_path|prefix_path|_dir|_path|_file|_root|plugin|script"
                r"|_ar|_ranlib|_strip|_nm|_objcopy|_objdump)(:[a-z]+)?$",
    "kv-psql": r"(?i)^(prompt[123]|histfile|.*pager.*)$",
    # docker run -e NAME=VALUE: code_env's rule for the name (LD_PRELOAD, BASH_ENV ...)
    "kv-env": "",
}

_MORE: dict[str, dict[str, str]] = {
    "sdiff": {"--diff-program": CMD}, "diff3": {"--diff-program": CMD},
    "gpg": {"--agent-program": CMD, "--dirmngr-program": CMD, "--keyboxd-program": CMD,
            "--photo-viewer": CMD, "--exec-path": LIBDIR, "--load-extension": MOD},
    "gpgsm": {"--agent-program": CMD, "--dirmngr-program": CMD, "--options": _CONF,
              "--homedir": DIR},
    "gpg-agent": {"--pinentry-program": CMD, "--scdaemon-program": CMD, "--options": _CONF,
                  "--homedir": DIR},
    "java": {"-XX:": "kv-jvm", "-D": "kv-jprop"},
    "javac": {"-J": _JVM_OPTION, "-processorpath": LIBDIR, "--processor-path": LIBDIR,
              "--processor-module-path": LIBDIR, "-processor": MOD, "-Xplugin:": MOD,
              "-cp": LIBDIR, "-classpath": LIBDIR, "--class-path": LIBDIR},
    "jshell": {"-J": _JVM_OPTION, "-R": _JVM_OPTION, "--startup": _SCRIPT,
               "--class-path": LIBDIR},
    "rustc": {"-C": "kv-rustc", "--codegen": "kv-rustc", "-Z": "kv-rustc", "--extern": MOD,
              "-L": LIBDIR},
    "apt-get": {"-o": "kv-apt", "--option": "kv-apt", "-c": _CONF, "--config-file": _CONF},
    "ssh-keygen": {"-D": MOD, "-w": MOD},
    "ssh-add": {"-s": MOD, "-S": MOD},
    "ssh-agent": {"-P": "the libraries it may load (PKCS#11 and security key providers)"},
    "lldb": {"-o": CMD, "--one-line": CMD, "-O": CMD, "--one-line-before-file": CMD,
             "-k": CMD, "--one-line-on-crash": CMD, "-s": _SCRIPT, "--source": _SCRIPT,
             "-S": _SCRIPT, "--source-before-file": _SCRIPT, "-K": _SCRIPT,
             "--source-on-crash": _SCRIPT},
    # -pgmX: the program ghc runs as its preprocessor, compiler, assembler or linker
    "ghc": {"-e": CMD, "-ghci-script": _SCRIPT, "-fplugin": MOD, "-package-db": LIBDIR,
            **{f"-pgm{x}": CMD for x in ("L", "P", "c", "cxx", "a", "l", "lm", "s", "F",
                                         "lo", "lc", "i", "dll", "windres", "libtool", "ar",
                                         "ranlib", "otool", "install_name_tool", "js")}},
    "rake": {"-e": CMD, "--execute": CMD, "-E": CMD, "--execute-continue": CMD, "-p": CMD,
             "--execute-print": CMD, "-f": _SCRIPT, "--rakefile": _SCRIPT, "-r": MOD,
             "--require": MOD, "-I": LIBDIR, "--libdir": LIBDIR, "-R": LIBDIR,
             "--rakelibdir": LIBDIR, "-C": DIR, "--directory": DIR},
    "erb": {"-r": MOD},
    "hg": {"--config": "kv-hg", "-R": DIR, "--repository": DIR, "--cwd": DIR,
           "-e": CMD, "--ssh": CMD, "--remotecmd": CMD},
    "jj": {"--config": "kv-jj", "--config-toml": _JJ_TOML, "--config-file": _CONF,
           "-R": DIR, "--repository": DIR},
    "svn": {"--config-option": "kv-svn", "--config-dir": DIR, "--diff-cmd": CMD,
            "--diff3-cmd": CMD, "--editor-cmd": CMD},
    "mysql": {"--plugin-dir": LIBDIR, "--default-auth": MOD},
    "cpio": {"--rsh-command": CMD},
    # nmap's NSE scripts are Lua it runs (also from --datadir); --resume takes a saved scan's
    # options; tshark's -X lua_script: runs Lua; a muttrc command's backticks run a shell
    "nmap": {"--script": _NSE, "--datadir": DIR, "--resume": _CONF},
    "tshark": {"-X": _LUA_EXT}, "wireshark": {"-X": _LUA_EXT},
    "mutt": {"-e": CMD, "-F": _CONF}, "neomutt": {"-e": CMD, "-F": _CONF},
    "sqlmap": {"--eval": CMD, "--tamper": MOD},
    "helm": {"--post-renderer": CMD, "--kubeconfig": _KUBECONFIG},
    "kubectl": {"--kubeconfig": _KUBECONFIG},
    # docker/podman: the engine, and what of the host `run` gives the container
    "docker": {"-H": _DAEMON, "--host": _DAEMON, "--context": _DAEMON, "--url": _DAEMON,
               "--connection": _DAEMON,
               "--config": "a directory whose config.json names credential helpers it runs",
               **dict.fromkeys(("-v", "--volume", "--mount", "--device", "--volumes-from",
                                "--security-opt", "--cap-add", "--pid", "--ipc", "--network",
                                "--net", "--uts", "--userns", "--cgroupns", "--runtime",
                                "--device-cgroup-rule", "--sysctl", "--group-add"), _HOST),
               "--env-file": "a host file it reads into the container's environment",
               "-e": "kv-env", "--env": "kv-env"},
    "redis-cli": {"--eval": _SCRIPT},
    "cmake": {"-D": "kv-cmake"},
    # Ghostscript's -c: PostScript it runs; -I a library directory; --permit-file-*: paths
    # PostScript may read and write despite -dSAFER
    "gs": {"-c": CMD, "-I": LIBDIR, "--permit-file-read": LIBDIR,
           "--permit-file-write": LIBDIR, "--permit-file-all": LIBDIR,
           "--permit-file-control": LIBDIR},
    "ffmpeg": {"-vf": _FILTER, "-af": _FILTER, "-filter": _FILTER, "-filter:v": _FILTER,
               "-filter:a": _FILTER, "-filter_complex": _FILTER, "-lavfi": _FILTER,
               "-filter_script": _SCRIPT, "-filter_complex_script": _SCRIPT},
    # media players: scripts and filter graphs they run, files of settings or key bindings
    # (which run commands), a socket or interface that takes commands, a stream output
    "mpv": {**{f"{dash}{name}": what for dash in ("--", "-") for name, what in (
        ("script", _SCRIPT), ("scripts", _SCRIPT), ("scripts-append", _SCRIPT),
        ("scripts-add", _SCRIPT), ("lavfi-complex", _FILTER), ("vf", _FILTER),
        ("af", _FILTER), ("vf-add", _FILTER), ("af-add", _FILTER), ("vf-append", _FILTER),
        ("af-append", _FILTER), ("include", _CONF), ("config-dir", DIR),
        ("input-conf", _KEYS), ("input-ipc-server", _CONTROL), ("input-file", _KEYS),
        ("ytdl-raw-options", "options of yt-dlp, which it runs (exec= runs a command)"),
        ("script-opts", "settings of its scripts (ytdl_hook-ytdl_path= is a program)"),
        ("scripts-toggle", _SCRIPT))}},
    "mplayer": {"-include": _CONF, "-vf": _FILTER, "-af": _FILTER, "-vf-add": _FILTER,
                "-af-add": _FILTER, "-input": "its input settings (conf=FILE: key bindings "
                "that run commands; file=FILE: commands)"},
    "vlc": {"--sout": "a stream output chain (#file{dst=...} writes any file, #std sends "
            "to any host)", "--extraintf": _CONTROL, "--intf": _CONTROL, "-I": _CONTROL,
            "--lua-intf": _SCRIPT, "--lua-config": _SCRIPT, "--config": _CONF,
            "--sout-file-dst": "a file it writes", "--video-filter": _FILTER,
            "--audio-filter": _FILTER},
    # psql -v NAME=VALUE: a prompt's `%`CMD`` runs CMD; a pager variable names a program
    "psql": {"--set": "kv-psql", "-v": "kv-psql", "--variable": "kv-psql"},
}
for _name, _options in DEV_OPTIONS.items():
    _MORE[_name] = _MORE.get(_name, {}) | _options
ALL_OPTIONS: dict[str, dict[str, str]] = {
    name: OPTIONS.get(name, {}) | _MORE.get(name, {}) for name in OPTIONS.keys() | _MORE.keys()}
ALL_ALIASES = ALIASES | {
    "ghci": "ghc", "apt": "apt-get", "apt-cache": "apt-get", "apt-config": "apt-get",
    "aptitude": "apt-get", "ffprobe": "ffmpeg", "ffplay": "ffmpeg", "podman": "docker",
    "nerdctl": "docker", "gsc": "gs", "gsx": "gs", "ghostscript": "gs", "valkey-cli": "redis-cli",
    "keydb-cli": "redis-cli", "chg": "hg", "javaw": "java", "mplayer2": "mplayer",
    "mencoder": "mplayer", "cvlc": "vlc", "nvlc": "vlc", "qvlc": "vlc", "rvlc": "vlc",
    "svlc": "vlc", **DEV_ALIASES}
# git's subcommands whose own options run something: clone/init copy the hooks of a
# template directory (and run post-checkout), daemon runs its access hook
ALL_GIT_SHORT = GIT_SHORT | {
    "clone": GIT_SHORT.get("clone", {}) | {"--template": DIR},
    "init": {"--template": DIR}, "daemon": {"--access-hook": CMD}}
