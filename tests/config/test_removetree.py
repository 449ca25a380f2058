"""remove_tree: the cache's deletions, however deep a directory nests."""

from __future__ import annotations

from pathlib import Path

from toolhost.config.removetree import _remove_deep, remove_tree

DEEP = "/".join(["d"] * 1200)  # deeper than Python's recursion limit, within PATH_MAX


def nest(root: Path, name: str = "d", depth: int = 1200) -> Path:
    """Directories ``depth`` deep (a loop: ``mkdir(parents=True)`` recurses per level)."""
    path = root
    path.mkdir(exist_ok=True)
    for _ in range(depth):
        path = path / name
        path.mkdir(exist_ok=True)
    return path


def _deep_tree(root: Path) -> None:
    nest(root)
    (root / DEEP / "f").write_text("x")
    (root / "top.txt").write_text("x")


def test_a_tree_nested_a_thousand_deep_is_removed(deep_tmp_path: Path) -> None:
    """shutil.rmtree recursed once per level before Python 3.12: RecursionError, which
    ignore_errors=True does not cover."""
    tmp_path = deep_tmp_path
    _deep_tree(tmp_path / "t")
    remove_tree(tmp_path / "t")
    assert not (tmp_path / "t").exists()


def test_the_loop_removes_a_deep_tree_and_never_follows_a_symlink(deep_tmp_path: Path) -> None:
    tmp_path = deep_tmp_path
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    top = tmp_path / "t"
    _deep_tree(top)
    (top / DEEP / "link").symlink_to(outside, target_is_directory=True)
    _remove_deep(str(top))
    assert not top.exists() and (outside / "keep.txt").read_text() == "keep"
    link = tmp_path / "link"
    link.symlink_to(outside, target_is_directory=True)
    remove_tree(link)
    assert not link.is_symlink() and (outside / "keep.txt").exists()
