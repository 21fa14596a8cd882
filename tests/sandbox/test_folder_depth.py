"""A bot folder's depth and size are the entrant's choice: every walk, copy, removal and digest is iterative,
a path deeper than MAX_DEPTH refuses the folder, and every entry (folders too) counts against max_files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.players.manifest import folder_digest
from arena.sandbox.files import MAX_DEPTH, FolderRefused, copy_listing, remove_tree, walk_folder


def nest(root: Path, depth: int, name: str = "d") -> Path:
    """``depth`` folders inside one another under ``root`` (made through descriptors: no long paths, no
    recursion), a file in the innermost; returns ``root``."""
    root.mkdir()
    (root / "bot.yaml").write_text("name: x\ncommand: [x]\n")
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir(name, dir_fd=fd)
        inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.close(os.open("f", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
    os.close(fd)
    return root


def test_a_path_deeper_than_the_limit_refuses_the_folder(tmp_path: Path) -> None:
    at_limit = nest(tmp_path / "ok", MAX_DEPTH - 1)  # the file is MAX_DEPTH names deep
    listing = walk_folder(at_limit)
    assert listing.files[-1][0].count("/") + 1 == MAX_DEPTH
    with pytest.raises(FolderRefused, match=rf"more than {MAX_DEPTH} names deep below the bot folder"):
        walk_folder(nest(tmp_path / "deep", MAX_DEPTH))
    with pytest.raises(FolderRefused, match="more than 3 names deep"):
        walk_folder(at_limit, max_depth=3)


def test_a_folder_600_deep_is_refused_not_a_recursion_error(tmp_path: Path) -> None:
    """600 nested empty folders passed validation and broke the ladder's copytree (RecursionError)."""
    deep = nest(tmp_path / "deep", 600)
    try:
        with pytest.raises(FolderRefused, match="names deep"):
            folder_digest(deep)
        assert remove_tree(deep) is None and not deep.exists()  # removal at any depth
    finally:
        remove_tree(deep)  # pytest's own clean-up of old temporary folders recurses


def test_a_copy_at_the_depth_limit_is_whole(tmp_path: Path) -> None:
    src = nest(tmp_path / "src", MAX_DEPTH - 1)
    (src / "empty" / "inner").mkdir(parents=True)
    dest = tmp_path / "copy"
    copy_listing(walk_folder(src), dest)
    assert folder_digest(dest) == folder_digest(src)
    assert (dest / "empty" / "inner").is_dir()


def test_every_entry_counts_against_max_files(tmp_path: Path) -> None:
    root = tmp_path / "dirs"
    root.mkdir()
    for i in range(12):
        (root / f"d{i}").mkdir()  # empty folders only: no file at all
    with pytest.raises(FolderRefused, match="more than 10 files and folders"):
        walk_folder(root, max_files=10)
    assert len(walk_folder(root, max_files=12).empty_dirs) == 12
