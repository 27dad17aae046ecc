"""scan() and links (issue 50): a link to a file is followed only into the indexed folders; links to folders never."""

from pathlib import Path

from desktop_rag.core.files.scan import LINK_OUTSIDE, scan


def found(roots, inside=()):
    problems = []
    return {f.path: f.kind for f in scan([Path(r) for r in roots], [], problems, inside=inside)}, problems


def test_links_are_followed_only_to_files_inside_the_indexed_folders(tmp_path):
    docs, other_folder, private = tmp_path / "docs", tmp_path / "other", tmp_path / "private"
    for folder in (docs, other_folder, private):
        folder.mkdir()
    (docs / "a.md").write_text("a")
    (other_folder / "b.md").write_text("b")
    (private / "key.txt").write_text("secret")
    (docs / "to-a.md").symlink_to(docs / "a.md")
    (docs / "to-b.md").symlink_to(other_folder / "b.md")
    (docs / "to-key.txt").symlink_to(private / "key.txt")
    (docs / "to-private").symlink_to(private, target_is_directory=True)
    (docs / "loop").symlink_to(docs / "loop")

    kinds, problems = found([docs], inside=[other_folder])
    assert kinds[docs / "a.md"] != LINK_OUTSIDE  # to-a.md is the same file: found as a.md
    assert kinds[other_folder / "b.md"] != LINK_OUTSIDE  # another indexed folder: followed
    assert kinds[docs / "to-key.txt"] == LINK_OUTSIDE and private / "key.txt" not in kinds
    assert not any(path.is_relative_to(private) or path.is_relative_to(docs / "to-private") for path in kinds)
    assert [p.path for p in problems] == [docs / "loop"]  # a loop of links: said, not followed

    # A changed path the watcher reports (a root that is a link) is checked the same way.
    kinds, _ = found([docs / "to-key.txt"], inside=[docs])
    assert kinds == {docs / "to-key.txt": LINK_OUTSIDE}
