"""The environment an ``isolation: process`` worker starts with: least privilege.

The host's environment holds what every server of every config needs: API tokens an http
tool's headers take with ``${VAR}``, a gateway server's credentials, the user's cloud keys.
A worker used to inherit all of it, so any python tool (and any program it starts) could read
another server's secrets. A worker now starts from what the interpreter and its libraries need
to run as they do in the host, and nothing that is commonly a secret:

- ``PATH``, ``HOME``, ``LANG``, ``LC_*``, ``TZ``, ``TMPDIR``/``TEMP``/``TMP``, ``USER``,
  ``LOGNAME``, ``SYSTEMROOT`` (the command backend's base, plus the locale and identity);
- the interpreter's own settings (``PYTHONHOME``, ``PYTHONPATH``, ``PYTHONUTF8`` ... a fixed
  list, not every ``PYTHON*`` name: ``PYTHONANYWHERE_TOKEN`` is a secret), the dynamic
  loader's library path and the virtual environment or conda prefix it runs in, the CA
  bundle (``SSL_CERT_FILE``, ``SSL_CERT_DIR``, ``REQUESTS_CA_BUNDLE``);
- toolhost's own settings (``TOOLHOST_LOG_FORMAT``, ``TOOLHOST_DEBUG``, ...: the worker
  logs and cuts as the host does), except ``TOOLHOST_SESSION_SECRET`` and any ``TOOLHOST_*``
  variable whose name says it is a secret (``TOOLHOST_TOKEN``: the rule of
  ``config.interpolate.SECRET_VAR``) or whose value the host hides (``serve --token-env
  TOOLHOST_BEARER``'s token);
- the server's ``env:`` (what the config declares for this server's tools);
- the tool's ``pass_env:`` names, taken from the host's environment when set: ``AWS_REGION``,
  a prefix ``AWS_*``, or ``"*"`` for all of it (the old behaviour).

Proxy variables are not passed by default (``HTTPS_PROXY`` may hold a password): list them in
``pass_env``. An in-process tool shares the host's ``os.environ``; only a worker can be given
less.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

__all__ = ["BASE_NAMES", "NAME_PATTERN", "worker_env"]

BASE_NAMES = frozenset({
    "PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TEMP", "TMP", "USER", "LOGNAME",
    "SYSTEMROOT", "PYTHONHOME", "PYTHONPATH", "PYTHONSAFEPATH", "PYTHONNOUSERSITE",
    "PYTHONUSERBASE", "PYTHONUTF8", "PYTHONIOENCODING", "PYTHONDONTWRITEBYTECODE",
    "PYTHONPYCACHEPREFIX", "PYTHONHASHSEED", "PYTHONWARNINGS", "PYTHONDEVMODE",
    "PYTHONFAULTHANDLER", "PYTHONMALLOC", "PYTHONPLATLIBDIR", "PYTHONCOERCECLOCALE",
    "LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH", "DYLD_FALLBACK_LIBRARY_PATH", "VIRTUAL_ENV",
    "CONDA_PREFIX", "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE",
})
_OWN = "TOOLHOST_"
_OWN_SECRETS = frozenset({"TOOLHOST_SESSION_SECRET"})
# a pass_env entry: a variable's name, a prefix ending in '*', or '*' (everything)
NAME_PATTERN = r"^([A-Za-z_][A-Za-z0-9_]*\*?|\*)$"


def worker_env(server_env: Mapping[str, str], passed: Iterable[str],
               environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a new worker: the base names and ``passed`` (names, ``PREFIX*``,
    ``*``) from ``environ`` (the host's), then the server's ``env``."""
    host = os.environ if environ is None else environ
    names = list(passed)
    prefixes = tuple(n[:-1] for n in names if n.endswith("*"))
    exact = frozenset(n for n in names if not n.endswith("*"))
    env = {k: v for k, v in host.items()
           if k in BASE_NAMES or k.startswith("LC_") or k in exact
           or (k.startswith(_OWN) and _own_setting(k, v))
           or (prefixes and k.startswith(prefixes))}
    env.setdefault("PATH", os.defpath)
    env.update(server_env)
    return env


def _own_setting(name: str, value: str) -> bool:
    """Whether a ``TOOLHOST_*`` variable is a setting, not a credential kept there."""
    if name in _OWN_SECRETS:
        return False
    from toolhost.config.interpolate import SECRET_VAR
    from toolhost.redaction import active

    return SECRET_VAR.search(name) is None and value not in active().secrets
