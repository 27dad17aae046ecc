"""Nothing outside what the person chose (issue 50, 1 and 7): a link in an indexed folder to a file elsewhere is not
followed (said per file), what such a link brought in before is forgotten, and an agent reads no document whose
real path lies outside the indexed folders — nor gets a generic error for an id that is not one."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest

from cli_runner import cli, cli_json
from desktop_rag.config import Settings
from desktop_rag.core.files.scan import LINK_OUTSIDE
from test_mcp import mcp_session


@pytest.fixture
def folders(tmp_path):
    docs, outside, data_dir = tmp_path / "docs", tmp_path / "private", tmp_path / "data"
    docs.mkdir()
    outside.mkdir(mode=0o700)
    (docs / "heron.md").write_text("# Herons\n\nThe grey heron hunts fish in shallow water at dawn.\n")
    (docs / "sub").mkdir()
    (docs / "sub" / "kayak.md").write_text("# Kayak\n\nThe kayak club paddles to the lighthouse on Sundays.\n")
    key = outside / "id_key.txt"
    key.write_text("zebrawood quartermaster passphrase\n")
    key.chmod(0o600)
    Settings(contexts="rules", llm_upgrade_when_idle=False).save(data_dir)
    return docs, outside, data_dir


def hits(data_dir, query: str) -> list[str]:
    return [hit["path"] for hit in cli_json(data_dir, "search", query, "--json", "--mode", "bm25")["results"]]


def test_a_link_to_a_file_outside_the_folders_is_not_followed_and_is_said_per_file(folders):
    docs, outside, data_dir = folders
    (docs / "key-link.txt").symlink_to(outside / "id_key.txt")
    (docs / "kayak-link.md").symlink_to(docs / "sub" / "kayak.md")  # inside: followed, the same document

    ran = cli_json(data_dir, "index", str(docs), "--json")
    assert {"path": str(docs / "key-link.txt"), "reason": LINK_OUTSIDE} in ran["failed"]
    assert hits(data_dir, "zebrawood quartermaster") == []
    assert hits(data_dir, "kayak lighthouse") == [str(docs / "sub" / "kayak.md")]

    # a link made while the folder is followed is checked the same way (the watcher's changes)
    (docs / "key-link-2.txt").symlink_to(outside / "id_key.txt")
    again = cli_json(data_dir, "index", str(docs), "--json")
    assert {"path": str(docs / "key-link-2.txt"), "reason": LINK_OUTSIDE} in again["failed"]
    assert all("private" not in path for path in hits(data_dir, "zebrawood"))


def test_what_a_link_brought_in_before_is_forgotten_and_agents_read_nothing_outside_the_folders(folders):
    docs, outside, data_dir = folders
    cli(data_dir, "index", str(docs))
    # A document whose real path lies outside every folder, as a link's target was stored before links were
    # checked (issue 50) — here indexed by its name, the one other way one gets there.
    cli(data_dir, "index", str(outside / "id_key.txt"))
    assert hits(data_dir, "zebrawood") == [str(outside / "id_key.txt")]
    with sqlite3.connect(f"file:{data_dir / 'catalog.sqlite3'}?mode=ro", uri=True) as catalog:
        ids = dict(catalog.execute("SELECT path, id FROM documents"))
        outside_id, inside_id = ids[str(outside / "id_key.txt")], ids[str(docs / "heron.md")]
        outside_chunk = catalog.execute("SELECT id FROM chunks WHERE document_id = ?", (outside_id,)).fetchone()[0]

    async def agent_reads():
        from mcp.shared.exceptions import MCPError

        async with mcp_session(data_dir) as session:
            inside = await session.read_resource(f"desktop-rag://documents/{inside_id}")
            assert "grey heron" in inside.contents[0].text
            said = {}
            for address in (f"documents/{outside_id}", f"chunks/{outside_chunk}", "documents/-1",
                            "documents/1 OR 1=1", "chunks/abc", "documents/99999"):
                with pytest.raises(MCPError) as refused:
                    await session.read_resource(f"desktop-rag://{address}")
                said[address] = str(refused.value)
            return said

    said = asyncio.run(agent_reads())
    assert "outside the indexed folders" in said[f"documents/{outside_id}"]
    assert "outside the indexed folders" in said[f"chunks/{outside_chunk}"]
    assert all("zebrawood" not in text for text in said.values())
    for address in ("documents/-1", "documents/1 OR 1=1", "chunks/abc"):
        assert "is not a" in said[address] and "id" in said[address], said[address]
    assert "there is no indexed document 99999" in said["documents/99999"]

    # A link to it in the folder: the link is not followed, and the document it stands for outside is forgotten.
    (docs / "key-link.txt").symlink_to(outside / "id_key.txt")
    ran = cli_json(data_dir, "index", str(docs), "--json")
    assert ran["removed"] == 1
    assert all("private" not in path for path in hits(data_dir, "zebrawood"))
