"""A damaged catalog rebuilt from the folders by `doctor --repair` (issue 50, 6): the damaged file kept aside, the
folders read again, a person's edited context and the model's context given back to their passages, search
working; and a catalog cut short (nothing of it readable past its header) still rebuilt, saying what was lost.

Damage is made where SQLite keeps it: pages of one index overwritten (found with SQLite's dbstat table), or the file
cut to its first page."""

from __future__ import annotations

import json

from cli_runner import cli, cli_json
from damaged_catalogs import cut_to_first_page, overwrite_pages_of
from desktop_rag.config import Settings
from desktop_rag.documents import ContextResult
from desktop_rag.storage.catalog import Catalog


def _index(docs, data_dir) -> None:
    (docs / "heron.md").write_text("# Herons\n\nThe grey heron stands still in the shallows and spears passing "
                                   "fish with its beak.\n")
    (docs / "router.md").write_text("# Router\n\nUpdate the router firmware every month from the admin page.\n")
    (docs / "quince.md").write_text("# Quince\n\nThe quince tree fruits in autumn; its fruit is hard and sour.\n")
    Settings(contexts="rules", llm_upgrade_when_idle=False).save(data_dir)
    cli(data_dir, "index", str(docs))


def _chunk_of(data_dir, word: str) -> int:
    return cli_json(data_dir, "search", word, "--mode", "bm25", "--json")["results"][0]["chunk_id"]


def test_doctor_repair_rebuilds_a_damaged_catalog_from_the_folders_keeping_the_contexts_it_can_read(docs, data_dir):
    _index(docs, data_dir)
    heron, router = _chunk_of(data_dir, "heron"), _chunk_of(data_dir, "firmware")
    cli(data_dir, "context", str(heron), "--set", "My notes from the 2019 birding trip to the estuary")
    catalog = Catalog(data_dir / "catalog.sqlite3")  # the model's context, stored as an upgrade stores it
    catalog.contexts.upgrade_context(router, ContextResult("Home network upkeep: the router's monthly firmware "
                                                           "update.", "llm", "smollm2-135m", "v1", 0.8))
    catalog.close()
    assert overwrite_pages_of(data_dir / "catalog.sqlite3", "contexts_by_content") >= 1
    assert cli(data_dir, "doctor", check=False).returncode == 1  # found, not mended without --repair

    repaired = cli(data_dir, "doctor", "--repair", "--json")
    answer = json.loads(repaired.stdout)
    assert answer["found"][0].startswith("the catalog is damaged") and answer["left"] == []
    rebuilt = answer["rebuilt"]
    assert rebuilt["folders"] == [str(docs)] and (rebuilt["hand_edited"], rebuilt["by_the_model"]) == (1, 1)
    kept = data_dir / rebuilt["kept_at"]
    assert (kept / "catalog.sqlite3").is_file() and kept.parent.name == "damaged"

    assert cli(data_dir, "doctor").returncode == 0  # a whole catalog, both indexes agreeing with it
    stats = cli_json(data_dir, "stats", "--json")
    assert stats["documents"]["indexed"] == 3 and stats["dense_index_vectors"] == 3
    found = cli_json(data_dir, "search", "birding trip estuary", "--json")["results"][0]
    assert found["path"] == str(docs / "heron.md") and found["context"].startswith("My notes from the 2019")
    shown = cli_json(data_dir, "context", str(found["chunk_id"]), "--json")
    assert shown["source"] == "manual"
    upkeep = cli_json(data_dir, "search", "home network upkeep", "--json")["results"][0]
    assert upkeep["path"] == str(docs / "router.md") and upkeep["context"].startswith("Home network upkeep")
    catalog = Catalog(data_dir / "catalog.sqlite3")
    assert catalog.contexts.salvaged_waiting() == 0  # each given back, then dropped
    catalog.close()


def test_a_catalog_cut_short_is_rebuilt_saying_what_could_not_be_read(docs, data_dir):
    _index(docs, data_dir)
    cut_to_first_page(data_dir / "catalog.sqlite3")

    said = cli(data_dir, "stats", check=False)
    assert said.returncode == 1 and "doctor --repair" in said.stderr and "Traceback" not in said.stderr
    repaired = cli(data_dir, "doctor", "--repair")
    assert "found: the catalog is damaged" in repaired.stdout
    assert "no folder could be read from it: add your folders again" in repaired.stdout
    assert "not readable: the folders" in repaired.stdout
    cli(data_dir, "index", str(docs))
    assert cli_json(data_dir, "search", "quince", "--json")["results"][0]["path"] == str(docs / "quince.md")
