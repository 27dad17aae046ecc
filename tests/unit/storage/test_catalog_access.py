"""Whether a library may be written: a data folder still to be made may (it is made where its parent allows)."""

import os

import pytest

from desktop_rag.storage.catalog_access import CATALOG_FILE, may_write


def test_a_data_folder_still_to_be_made_may_be_written_where_its_parent_may(tmp_path):
    assert may_write(tmp_path / "new" / "deeper" / CATALOG_FILE)
    (tmp_path / CATALOG_FILE).write_text("")
    assert may_write(tmp_path / CATALOG_FILE)


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write any folder by its modes")
def test_a_folder_one_may_not_write_is_read_only(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        assert not may_write(locked / CATALOG_FILE) and not may_write(locked / "to-be-made" / CATALOG_FILE)
    finally:
        locked.chmod(0o700)


class QuickCheckFindingsFake:
    """What PRAGMA quick_check gives on damaged pages: rows, the first of them several lines."""

    def execute(self, sql: str):
        assert sql.startswith("PRAGMA quick_check")
        return [("*** in database main ***\nPage 5: btreeInitPage() returns error code 11",), ("Page 9: never used",)]


def test_what_sqlite_found_is_said_on_one_line():
    """A status line shows a message's first line: the advice after the findings was lost (the window's test)."""
    from desktop_rag.storage.catalog_access import structure_damage

    said = structure_damage(QuickCheckFindingsFake())
    assert said == "*** in database main *** Page 5: btreeInitPage() returns error code 11; Page 9: never used"
