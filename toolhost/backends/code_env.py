"""Environment variables whose value chooses code a program runs.

A command tool's ``env:`` value may print a param (``{{ x }}``) only where the value is data.
Many variables are read as code, as options, or as a place to load code or configuration
from: ``LD_PRELOAD`` loads a library, ``LUA_INIT`` and ``VIMINIT`` are code, ``TAR_OPTIONS``
and ``JAVA_TOOL_OPTIONS`` are options (``--to-command``, ``-javaagent:``), ``GIT_CONFIG_*``,
``PHPRC``, ``OPENSSL_CONF``, ``HOME`` and ``XDG_CONFIG_HOME`` name configuration that names
commands (``core.sshCommand``, ``auto_prepend_file``, an engine library, ``~/.gitconfig``),
and every ``...PATH`` is a search path for programs, modules or libraries; a ``..._PROXY``
or CA bundle chooses where traffic and its credentials go. A list of names
would always miss one, so the rule is by shape: exact names, prefixes (a family of an
interpreter's or a tool's variables) and suffixes (``PATH``, ``OPTIONS``, ``INIT``, ...),
with the few data families of those prefixes let through (``GIT_AUTHOR_NAME``).
"""

from __future__ import annotations

__all__ = ["chooses_code"]

_EXACT = frozenset({
    "ENV", "IFS", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "CDPATH", "HOME", "ZDOTDIR",
    "SHELL", "EDITOR", "VISUAL", "PAGER", "BROWSER", "MANPAGER", "MANOPT", "CC", "CXX", "CPP",
    "LD", "AR", "AS", "FC", "MAKEFILES", "CLASSPATH", "GCONV_PATH", "LOCPATH", "NLSPATH",
    "HOSTALIASES", "PHPRC", "WGETRC", "CURL_HOME", "INPUTRC", "SCREENRC", "EXINIT",
    "VIMINIT", "GVIMINIT", "MYVIMRC", "TERMINFO", "TERMINFO_DIRS", "GNUPGHOME", "MORE",
    "GZIP", "BZIP", "BZIP2", "XZ_DEFAULTS", "ZIPOPT", "UNZIP", "RSYNC_RSH",
    "RSYNC_CONNECT_PROG", "CVS_RSH", "SVN_SSH", "SSH_ASKPASS", "SUDO_ASKPASS",
    "PS0", "PS1", "PS2", "PS3", "PS4",
    # fc's and TeX's editor commands; GNU parallel's and lzop's options (--ssh CMD);
    # where TeX finds its input (\write18 runs a command) and ffmpeg its option presets
    "FCEDIT", "TEXEDIT", "PARALLEL", "LZOP", "TEXINPUTS", "TEXMFCNF", "FFMPEG_DATADIR",
    # Go's module and toolchain sources: code it downloads and runs
    "GOPROXY", "GOTOOLCHAIN", "GOENV", "GOSUMDB", "GONOSUMDB", "GONOSUMCHECK", "GOINSECURE",
    "GOPRIVATE", "GONOPROXY", "GOROOT", "GOEXPERIMENT",
})
_PREFIXES = (
    "LD_", "DYLD_", "PYTHON", "PERL", "RUBY", "GEM_", "BUNDLE_", "NODE_", "NPM_CONFIG_",
    "YARN_", "GIT_", "BASH_", "LESS", "LUA_", "R_", "JAVA", "_JAVA", "JDK_", "MAVEN_",
    "GRADLE_", "OPENSSL_", "SSL_", "KRB5", "XDG_", "PIP_", "UV_", "CONDA", "VIRTUAL_ENV",
    "TCL", "TK_", "JULIA_", "PHP_", "HG", "EMACS", "AWK", "GAWK", "SSH_", "GPG", "GNUPG",
    "DOCKER_", "KUBE", "MALLOC_", "GLIBC_", "GCONV", "TAR_",
    # cargo's runners and rustc wrappers run programs; AWS config and
    # credentials files run `credential_process`
    "CARGO_", "RUSTC", "RUSTDOC", "AWS_CONFIG", "AWS_SHARED_CREDENTIALS",
)
_SUFFIXES = (
    "PATH", "PATHS", "OPTIONS", "OPTS", "OPT", "FLAGS", "INIT", "RC", "RCFILE", "CONF",
    "CONFIG", "PROFILE", "COMMAND", "CMD", "EDITOR", "PAGER", "SHELL", "ASKPASS", "PROG",
    "PROGRAM", "HOOK", "HOOKS", "HOME", "PRELOAD", "LIBS", "LIB", "MODULES",
    # a program run around another (RUSTC_WRAPPER, *_RUNNER); where traffic
    # and its credentials go (HTTPS_PROXY, ALL_PROXY) and whom TLS trusts (CURL_CA_BUNDLE)
    "WRAPPER", "RUNNER", "PROXY", "CA_BUNDLE", "CAINFO",
)
# data under a code prefix: who a commit is by, a prompt's text is not read as code here
_DATA = ("GIT_AUTHOR_", "GIT_COMMITTER_")


def chooses_code(name: str) -> bool:
    """Whether a value of the environment variable ``name`` (any case) can choose code a
    program runs: code itself, options, a search path, or a configuration file or home."""
    upper = name.upper()
    if upper.startswith(_DATA) and not upper.endswith(_SUFFIXES):
        return False
    return (upper in _EXACT or upper.startswith(_PREFIXES)
            or upper.endswith(_SUFFIXES))
