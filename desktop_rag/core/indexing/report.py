"""What an indexing run reports: its progress while it runs (phases, counts, the whole run's share done and time
left) and its summary when it ends; read by the CLI, the app, the local endpoint and the agents' run registry."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from collections.abc import Callable

from desktop_rag.core.indexing.changes import Changes
from desktop_rag.documents import duration_words, how_many

PHASES = ("scan", "parse", "ocr", "contextualize", "embed", "index")
# Each phase as a person reads it, in the window's panel and the CLI's progress lines alike.
PHASE_WORDS = {"scan": "Finding files", "parse": "Reading", "ocr": "OCR", "contextualize": "Contexts",
               "embed": "Meaning search", "index": "Keyword search"}
LOADING_NOTE = "Loading the language model…"
# What a run does when its step is no one file's: said in place of the last file read, which stood there for the
# whole of embedding (issue 37: an image's name for 22 minutes; issue 60, 3: "the file-in-hand line froze").
WORK_ON_NO_FILE = {"embed": "Making the passages read so far searchable by meaning…",
                   "index": "Making the files read so far searchable by their words…"}


@dataclass
class Progress:
    phase: str
    done: int
    total: int | None
    path: str | None = None
    note: str | None = None  # what the counts do not say ("Loading the language model…")
    overall: float | None = None  # the whole run's share done, where the run can estimate it
    seconds_left: float | None = None  # and its estimate of the time left
    # Passages made so far, to be made searchable by meaning (those an earlier run left too): the meaning phase's
    # total, a count of real work told with every report (issue 60: "0 / 165,740" when 10,270 were made, the
    # unread files' guess; told only with the embedding's own reports, it stood at "0 / 49" through the reading)
    passages_made: int | None = None
    # What became searchable at this step (the keyword index rebuilt mid-run): a view showing "nothing yet" for a
    # query asks again, without waiting for the run's end (issue 37: a query typed early waited 4½ minutes).
    changes: Changes | None = None


@dataclass
class FileFailure:
    path: str
    reason: str


@dataclass
class IndexSummary:
    indexed: int = 0
    unchanged: int = 0
    failed: list[FileFailure] = field(default_factory=list)
    removed: int = 0
    skipped: int = 0  # not text, or a format nothing here reads (parsers.file_kind)
    moved: int = 0  # recognised by path events or by content: chunks, contexts and vectors kept
    inside: int = 0  # documents read inside files: archive members, mailbox messages, attachments
    without_text: int = 0  # of those indexed or inside: nothing to read in them, found by their names
    copies: int = 0  # of those inside: the same bytes as another document of their file, stored once (members.py)
    busy: list[str] = field(default_factory=list)  # changed while being read: not indexed half-written
    chunks: int = 0
    reused_contexts: int = 0  # found in the context cache: no model call
    kept_contexts: int = 0  # chunks of changed files whose text did not change: context kept, no model call
    embedded: int = 0
    keyword_chunks: int | None = None
    seconds: float = 0.0
    phase_seconds: dict[str, float] = field(default_factory=lambda: {p: 0.0 for p in PHASES})
    cancelled: bool = False
    notices: list[str] = field(default_factory=list)
    # Whether the run wrote any file's row (indexed, failed, skipped, moved, removed): counted by the catalog as
    # SQLite writes them (Catalog.writes), not inferred from the counts above, which miss a file that failed.
    documents_written: bool = False

    @classmethod
    def from_dict(cls, values: dict) -> IndexSummary:
        """The summary again from its dataclasses.asdict (a run of the service, as `index` prints it)."""
        known = {f.name for f in fields(cls)}
        summary = cls(**{k: v for k, v in values.items() if k in known})
        summary.failed = [FileFailure(**failure) for failure in values.get("failed", [])]
        return summary

    def headline(self, stopped: str = "Interrupted") -> str:
        """The run in one sentence, as the CLI and the app both say it ("Done: 3 files indexed (12 passages), …");
        `stopped`: the word for a run cut short (the CLI's Ctrl-C interrupts, the app's button cancels)."""
        inside = f"{how_many(self.inside, 'document')} inside them, " if self.inside else ""
        named = f", {self.without_text:,} without text, found by name" if self.without_text else ""
        return (f"{stopped if self.cancelled else 'Done'}: {self.indexed:,} files indexed "
                f"({inside}{self.chunks:,} passages{named}), "
                f"{self.unchanged:,} unchanged, {len(self.failed):,} failed, {self.removed:,} removed"
                + (f", {self.moved:,} moved" if self.moved else "")
                + (f", {self.skipped:,} skipped (not text, or a format not read)" if self.skipped else "")
                # A catch-up that embedded what a stopped run left said only "0 files indexed (0 passages)"
                + (f", {how_many(self.embedded, 'passage')} made searchable by meaning"
                   if self.embedded > self.chunks else "")
                + f", in {duration_words(self.seconds)}")

    @property
    def changes(self) -> Changes:
        """What a view must show anew: documents, whenever the run wrote a file's row."""
        return Changes(documents=self.documents_written)

    def change_words(self) -> list[str]:
        """What the run changed, in words ("2 indexed", "1 moved", …), the counts that are not zero."""
        counts = ((self.indexed, "indexed"), (self.moved, "moved"), (self.removed, "removed"),
                  (len(self.failed), "failed"), (self.skipped, "skipped"))
        return [f"{n:,} {label}" for n, label in counts if n]


ProgressCallback = Callable[[Progress], None]
