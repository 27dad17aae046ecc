"""How gsettings prints a list of paths, read back (platform/key_binding.py)."""

from desktop_rag.platform.key_binding import _paths


def test_lists_as_gsettings_prints_them():
    assert _paths("@as []\n") == []
    assert _paths("['/a/', '/b/']\n") == ["/a/", "/b/"]
    assert _paths("not a list") == []
