"""The Python tools of examples/configs/getting-started.yaml (a module next to the config)."""


def slugify(title: str, max_len: int = 40) -> str:
    """Turn a title into a URL slug.

    Args:
        title: The text to turn into a slug.
        max_len: The longest slug to return.
    """
    words = "".join(c.lower() if c.isalnum() else " " for c in title).split()
    return "-".join(words)[:max_len]
