"""Rule conditions (`when:`): the expression language, its limits, its fast path and its probes."""
