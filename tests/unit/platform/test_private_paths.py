"""A data folder or socket another user could read or write is refused, with the command that mends it; new ones
are made private (desktop_rag/private_paths.py)."""

from __future__ import annotations

import os
import socket

import pytest

from desktop_rag.config import Settings
from desktop_rag.errors import DataFolderUnusable
from desktop_rag.platform.private_paths import check_private, private_folder


def test_a_new_data_folder_is_made_private(tmp_path):
    Settings().save(tmp_path / "new" / "data")
    assert (tmp_path / "new" / "data").stat().st_mode & 0o777 == 0o700


@pytest.mark.parametrize(("mode", "said"), [(0o755, "read and entered"), (0o770, "read and written and entered"),
                                            (0o702, "written")])
def test_a_folder_others_may_use_is_refused_with_the_command_that_mends_it(tmp_path, mode, said):
    folder = tmp_path / "my data"
    folder.mkdir()
    folder.chmod(mode)
    with pytest.raises(DataFolderUnusable) as refused:
        private_folder(folder)
    message = str(refused.value)
    assert f"can be {said} by other users" in message and f"chmod 700 '{folder}'" in message
    folder.chmod(0o700)
    assert private_folder(folder) == folder  # mended as told: taken


def test_a_socket_others_may_use_is_refused(tmp_path):
    path = tmp_path / "endpoint.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    path.chmod(0o666)
    with pytest.raises(DataFolderUnusable, match=r"chmod 600"):
        check_private(path, "the socket")
    listener.close()


@pytest.mark.skipif(os.getuid() != 0, reason="only root can give a folder to another user")
def test_a_folder_of_another_user_is_refused(tmp_path):
    folder = tmp_path / "theirs"
    folder.mkdir(mode=0o700)
    os.chown(folder, 65534, 65534)
    with pytest.raises(DataFolderUnusable, match="belongs to another user"):
        private_folder(folder)


def test_a_file_is_not_a_data_folder(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(DataFolderUnusable, match="is a file"):
        private_folder(tmp_path / "file")
