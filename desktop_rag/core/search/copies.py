"""A hit's copies elsewhere, said under it ("also at …") rather than listed as hits of their own: a plain copy of a
file is stored as one already (the catalog's COPY documents); a document inside a file — a PDF in a zip, a mail's
attachment — with the same content as an earlier hit's is folded under it here (issue 60, 8: a deck copied into a
zip was a second hit beside its original)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop_rag.documents import MEMBER_SEPARATOR

if TYPE_CHECKING:
    from desktop_rag.core.search.searcher import Hit
    from desktop_rag.storage.catalog_files import CatalogFiles


def with_copies(files: CatalogFiles, hits: list[Hit]) -> list[Hit]:
    """The hits with their copies set, those that are another hit's copy inside a file folded under it."""
    paths = list(dict.fromkeys(hit.path for hit in hits))
    copies = files.copies_at(paths)
    for hit in hits:
        hit.copies = copies.get(hit.path, [])
    if not any(MEMBER_SEPARATOR in path for path in paths):
        return hits
    digests = files.content_hashes(paths)
    first_of: dict[str, Hit] = {}
    kept = []
    for hit in hits:
        digest = digests.get(hit.path)
        shown = first_of.setdefault(digest, hit) if digest else hit
        if shown.path != hit.path:  # the same content at another place: said under the first
            if hit.path not in shown.copies:
                shown.copies.append(hit.path)
            continue
        kept.append(hit)
    return kept
