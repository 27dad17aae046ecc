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


def test_only_links_are_resolved_in_a_resolved_folder_and_an_unresolved_root_still_is(tmp_path, monkeypatch):
    """Path.resolve walks every component in Python: a catch-up of 11,000 files held the interpreter ~1 s with it
    (issue 49). Walked entries of a resolved folder are their own resolved paths; only links need it."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for n in range(20):
        (docs / f"{n}.md").write_text("x")
    (docs / "to-0.md").symlink_to(docs / "0.md")
    root = docs.resolve()
    resolved = []
    real_resolve = Path.resolve
    monkeypatch.setattr(Path, "resolve", lambda self, *a: resolved.append(self.name) or real_resolve(self, *a))
    kinds, _ = found([root])
    assert len(kinds) == 20 and resolved == ["docs", "to-0.md"]  # the root once, then the link alone
    via_link = tmp_path / "via"
    via_link.symlink_to(docs, target_is_directory=True)
    resolved.clear()
    kinds, _ = found([via_link])  # a root given through a link: every entry resolved, as before
    assert len(resolved) > 20 and len(kinds) == 21
