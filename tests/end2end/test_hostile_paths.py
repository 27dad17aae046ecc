"""Paths another user can reach (issue 50, 5): the runtime folder in the temporary folder, made first by someone
else or put there as a link to the person's own private folder, is passed over for a private one under the
user's cache; a link at a lock's name is refused, its target left whole. Real processes: the service answers from
the folder it chose."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

import psutil
import pytest

from cli_runner import cli
from desktop_rag.config import Settings

NOBODY = 65534


@pytest.fixture
def session_env(tmp_path, docs, data_dir):
    """A person's environment with no $XDG_RUNTIME_DIR (the runtime folder goes to the temporary folder), a
    temporary folder and a cache of the test's own."""
    # (short paths: a Unix socket's address holds at most 107 bytes, which pytest's folders pass)
    shared_tmp, cache = Path(tempfile.mkdtemp(prefix="drt-")), Path(tempfile.mkdtemp(prefix="drc-"))
    os.chmod(shared_tmp, 0o1777)
    env = {k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"}
    env.update(TMPDIR=str(shared_tmp), XDG_CACHE_HOME=str(cache), DESKTOP_RAG_START_SERVICE="1")
    (docs / "heron.md").write_text("# Herons\n\nThe grey heron hunts fish at dawn.\n")
    Settings(contexts="rules", llm_upgrade_when_idle=False).save(data_dir)
    yield env, shared_tmp / f"desktop-rag-{os.getuid()}", cache / "desktop-rag" / "run"
    shutil.rmtree(shared_tmp, ignore_errors=True)
    shutil.rmtree(cache, ignore_errors=True)


def served_from(env, data_dir, docs, fallback) -> str:
    try:
        ran = cli(data_dir, "index", str(docs), env=env)
        assert "Indexing in desktop-rag service" in ran.stderr
        found = cli(data_dir, "search", "heron", "--json", env=env)
        assert '"served_by": "desktop-rag service' in found.stdout and "heron.md" in found.stdout
        return str(sorted(fallback.glob("*.sock")))
    finally:  # asked in the test's environment (its runtime folder), until nothing answers (slow under load)
        deadline = time.monotonic() + 60
        while "Nothing answers" not in cli(data_dir, "stop", env=env, check=False).stderr:
            assert time.monotonic() < deadline, "the service did not stop"
        for process in psutil.process_iter(["cmdline"]):  # and until its process is gone
            if str(data_dir) in " ".join(process.info["cmdline"] or []):
                process.wait(timeout=30)


@pytest.mark.skipif(os.geteuid() != 0, reason="making a folder of another user's needs root (os.chown)")
def test_a_runtime_folder_made_first_by_another_user_is_passed_over(session_env, docs, data_dir):
    env, taken, fallback = session_env
    taken.mkdir(mode=0o755)
    os.chown(taken, NOBODY, NOBODY)  # another user was there first
    assert served_from(env, data_dir, docs, fallback) != "[]"  # the service answered from the private fallback
    assert list(taken.iterdir()) == []


def test_a_link_at_the_runtime_folder_s_name_is_never_followed(session_env, docs, data_dir, tmp_path):
    env, taken, fallback = session_env
    private = tmp_path / "my-private-keys"
    private.mkdir(mode=0o700)
    (private / "id_key").write_text("secret")
    taken.symlink_to(private, target_is_directory=True)  # placed by someone else, pointing into the person's own
    assert served_from(env, data_dir, docs, fallback) != "[]"
    assert sorted(p.name for p in private.iterdir()) == ["id_key"]  # nothing made or changed through the link


def test_a_link_at_the_writer_lock_s_name_is_refused_and_its_target_left_whole(docs, data_dir, tmp_path):
    Settings(contexts="rules", llm_upgrade_when_idle=False).save(data_dir)
    precious = tmp_path / "precious.txt"
    precious.write_text("a year of notes\n")
    (data_dir / "writer.lock").symlink_to(precious)
    (docs / "heron.md").write_text("# Herons\n\nThe grey heron hunts fish at dawn.\n")

    refused = cli(data_dir, "index", str(docs), check=False)
    assert refused.returncode == 1 and "writer.lock is a link" in refused.stderr and "remove it" in refused.stderr
    assert precious.read_text() == "a year of notes\n"
