"""toolhost-files: read-only file tools confined to a root directory (a toolhost plugin)."""

__version__ = "0.1.0"
