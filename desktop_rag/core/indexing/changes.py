"""What a write changed, so that each view decides for itself whether it must show something new (Anki's
OpChanges): every write of the library returns one, directly or as its summary's `changes`. The window passes it
to every panel; a panel that shows none of it does nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Changes:
    # Chunks whose context changed (an edit, a revert, a regeneration, an approval): hits showing them are stale.
    contexts: frozenset[int] = frozenset()
    # Files were added, changed, moved or removed: results, facets, counts and the review list may all differ.
    documents: bool = False
    # The LLM upgrade rewrote the contexts of whole documents: counts and the review list differ; results shown
    # are left as they are (they would jump under the person's eyes) until the next search.
    upgraded: bool = False
    folders: bool = False  # the folders' list or their marks (OCR, "LLM contexts here first")
    # Settings whose value changed (Library.set_settings): a view showing or using one follows it.
    settings: frozenset[str] = frozenset()
    # The change is in the indexes already; False: stored, and searchable once the run in progress ends.
    searchable: bool = True
    notes: tuple[str, ...] = field(default=(), compare=False)  # for whoever reports the write

    def __bool__(self) -> bool:
        return bool(self.contexts or self.documents or self.upgraded or self.folders or self.settings)

    def to_dict(self) -> dict:
        """As JSON carries it to a client of the service (service/events.py)."""
        return {"contexts": sorted(self.contexts), "documents": self.documents, "upgraded": self.upgraded,
                "folders": self.folders, "settings": sorted(self.settings), "searchable": self.searchable,
                "notes": list(self.notes)}

    @classmethod
    def from_dict(cls, values: dict) -> Changes:
        return cls(frozenset(values.get("contexts", ())), bool(values.get("documents")),
                   bool(values.get("upgraded")), bool(values.get("folders")), frozenset(values.get("settings", ())),
                   bool(values.get("searchable", True)), tuple(values.get("notes", ())))

    def __or__(self, other: Changes) -> Changes:
        return Changes(self.contexts | other.contexts, self.documents or other.documents,
                       self.upgraded or other.upgraded, self.folders or other.folders, self.settings | other.settings,
                       self.searchable and other.searchable, self.notes + other.notes)


NOTHING = Changes()


def context_changed(chunk_id: int, searchable: bool = True) -> Changes:
    return Changes(contexts=frozenset({chunk_id}), searchable=searchable)
