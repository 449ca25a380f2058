"""Hiding secrets in arguments before a person or a log file sees them.

Kept for the names the permissions package imports; the one implementation is
``toolhost.redaction`` (``mask_arguments``).
"""

from __future__ import annotations

from toolhost.redaction import SECRET_KEY
from toolhost.redaction.values import mask_arguments as redact_value

__all__ = ["SECRET_KEY", "redact_value"]
