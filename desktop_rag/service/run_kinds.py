"""The runs that index no files, as the service's run queue carries them out (service/runs.py): the indexes
rebuilt from the catalog (`desktop-rag rebuild`), doctor's repair, and LLM contexts written now (`contextualize`).
Each is followed, paused and cancelled as an indexing run is, by whichever client asked and by every window."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dataclasses import asdict

from desktop_rag import remedies
from desktop_rag.core.library import doctor
from desktop_rag.documents import how_many, upgrade_words
from desktop_rag.errors import NoIndexError
from desktop_rag.service.runs import OutcomeWork, RunOutcome

if TYPE_CHECKING:
    from desktop_rag.core.library.library import Library


def rebuild(library: Library) -> OutcomeWork:
    def work(report, control) -> RunOutcome:
        if library.reads.chunk_count() == 0:
            raise NoIndexError(f"the catalog is empty: {remedies.INDEX_FIRST}")
        summary = library.indexes.reindex(on_progress=report, control=control)
        sentence = (f"Rebuilt from the catalog: {how_many(summary.embedded, 'passage')} searchable by meaning, "
                    f"{summary.keyword_chunks or 0:,} by keywords, in {summary.seconds:.1f} s")
        return RunOutcome(sentence, cancelled=summary.cancelled, notices=list(summary.notices),
                          result={"embedded": summary.embedded, "keyword_chunks": summary.keyword_chunks or 0,
                                  "seconds": round(summary.seconds, 1)}, changes=summary.changes)

    return work


def repair(library: Library, because: str | None = None) -> OutcomeWork:
    """doctor --repair: what the checkup finds is rebuilt from the catalog, then looked at again. `because`: why
    the service itself asked for it (an index deleted under it), told with the run's end as its notice."""
    def work(report, control) -> RunOutcome:
        found = doctor.examine(library)
        findings = found.findings()
        repaired = doctor.repair(library, found, report, control) if findings or found.waiting() else []
        after = doctor.examine(library) if repaired else found
        left = after.findings()
        sentence = ("Repaired: " + "; ".join(repaired)) if repaired else (
            "Nothing to repair: the catalog, the meaning index and the keyword index agree" if not findings else
            "Nothing could be repaired here")
        return RunOutcome(sentence, cancelled=control.cancelled, notices=[because] if because else [],
                          result={"found": findings, "repaired": repaired, "left": left,
                                  "damage_advice": found.damage_advice, "holds": after.holdings(),
                                  "waiting": after.waiting()})

    return work


def upgrade(library: Library, limit: int | None) -> OutcomeWork:
    """LLM contexts for documents that have rules contexts, at most `limit` documents (None: all)."""
    def work(report, control) -> RunOutcome:
        summary = library.upgrade_contexts(on_progress=report, limit=limit, control=control)
        sentence = upgrade_words(summary.upgraded_chunks, summary.documents, summary.kept_rules)
        return RunOutcome(sentence if summary.cancelled else f"Done: {sentence}", cancelled=summary.cancelled,
                          notices=list(summary.notices), result=asdict(summary), changes=summary.changes)

    return work
