from __future__ import annotations

from toolhost.compile.docstrings import parse_docstring


def test_google_sections_after_args_do_not_leak() -> None:
    doc = parse_docstring('''Fetch rows.

    Args:
        table: The table.
        *args: Ignored.
        limit (int, optional): At most
            this many.

    Returns:
        rows: not a parameter.

    Raises:
        KeyError: not a parameter either.
    ''')
    assert doc.summary == "Fetch rows."
    assert doc.params == {"table": "The table.", "args": "Ignored.", "limit": "At most this many."}


def test_numpy_shared_names_and_next_section() -> None:
    doc = parse_docstring('''Scale.

    Parameters
    ----------
    x, y : float
        Coordinates.
    factor : float

    Returns
    -------
    out : float
        Not a parameter.
    ''')
    assert doc.params == {"x": "Coordinates.", "y": "Coordinates.", "factor": ""}


def test_rest_with_types_and_no_summary() -> None:
    doc = parse_docstring(":param str name: Who.\n:type name: str\n:returns: greeting")
    assert doc.summary is None
    assert doc.params == {"name": "Who."}


def test_empty() -> None:
    assert parse_docstring(None).summary is None
    assert parse_docstring("").params == {}
