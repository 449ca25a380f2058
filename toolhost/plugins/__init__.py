"""Plugins: pip-installed packages that add tools, servers, rules and backend kinds.

For plugin authors, the whole API is::

    from toolhost.plugins import Registry, settings, tool

    @tool(annotations={"readOnlyHint": True})
    def shout(text: str) -> str:
        '''Upper-case the text.'''
        return text.upper()

    def register(registry: Registry) -> None:   # named by your `toolhost` entry point
        registry.add_tool(shout, server="loud")

For toolhost itself: ``activate(config.plugins)`` imports the built-in kinds and the enabled
plugins (never any other) and returns a ``PluginSet``; ``PluginSet.apply(config)`` adds their
contributions to a loaded config. See docs/plugins.md.
"""

from toolhost.plugins.activate import PluginConfigError, activate, kinds_for
from toolhost.plugins.decorator import tool
from toolhost.plugins.discovery import InstalledPlugin, installed_plugins
from toolhost.plugins.plugin_set import PluginInfo, PluginSet, config_dir, settings
from toolhost.plugins.registry import Registry

__all__ = [
    "InstalledPlugin",
    "PluginConfigError",
    "PluginInfo",
    "PluginSet",
    "Registry",
    "activate",
    "config_dir",
    "installed_plugins",
    "kinds_for",
    "settings",
    "tool",
]
