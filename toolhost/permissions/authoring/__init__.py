"""Writing rules: every author mistake at once (validate), lint, spec hints, case tests."""
