"""Settings: one dataclass, persisted as JSON in the data folder, overridable per run."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field, fields
from collections.abc import Mapping
from pathlib import Path

from desktop_rag.errors import BadInput
from desktop_rag.platform import autostart
from desktop_rag import remedies
from desktop_rag.settings_store import write_settings

SETTINGS_FILE = "settings.json"

DEFAULT_IGNORE_PATTERNS = (
    ".*",  # hidden files and folders: .git, .venv, .DS_Store, editor swap files
    "__pycache__",
    "node_modules",
    "*.tmp",
    "*.temp",
    "*.swp",
    "*~",
    "~$*",  # Office lock files
    "*.part",
    "*.crdownload",
    "Thumbs.db",
)


# How chunk contexts are written (README: `--contexts`).
CONTEXT_CHOICES = ("auto", "llm", "rules", "none")
# Which LLM contexts. A section sentence supplements the document summary (a short document has no sections), so it
# comes with it.
LLM_CONTEXT_LEVELS = ("document", "chunk", "document+chunk", "document+section", "document+section+chunk")
FUSION_METHODS = ("convex", "rrf")  # core/search/fusion.py
EMBEDDING_PRECISIONS = ("auto", "int8", "bfloat16", "float32")  # core/dense/embedding.py


@dataclass(frozen=True)
class Option:
    """What the CLI, the Settings dialog and the library know of one setting, in one place."""

    help: str
    choices: tuple[str, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    # Parts of an open library built from this value: dropped when it changes, rebuilt on next use
    # (core/library/library.py settings_changed). "llm": the language model; "embedder": the embedding model and all
    # built from it (it also re-embeds every chunk); "reranker": the cross-encoder.
    rebuilds: frozenset[str] = frozenset()
    # What a change does to what is already indexed, for a person deciding to make it; "" if nothing.
    effect: str = ""


_LLM = frozenset({"llm"})
_NEW_FILES = f"applies to files indexed from now on; {remedies.CHANGED_FILES_REREAD}"
_DAY_S = 86400.0


def setting(default, help: str, **option):
    """A field of Settings with its Option: one entry per setting."""
    kept = Option(help, **option)
    if isinstance(default, list):  # each Settings gets its own list
        return field(default_factory=lambda: list(default), metadata={"option": kept})
    return field(default=default, metadata={"option": kept})


@dataclass
class Settings:
    """Every setting once: its type, default, help, limits, and what a change does (Option): the dialog, the CLI's
    parsing and "what a change rebuilds" are all derived from these entries (OPTIONS)."""

    # The embedder reads 254 word pieces of text: chunk_tokens + context_max_tokens fill exactly that, so neither
    # the context (placed first: it measured better there) nor the chunk's tail is cut from the dense vector.
    chunk_tokens: int = setting(
        190, "Passage size, in the meaning model's word pieces", minimum=32, maximum=2048, effect=_NEW_FILES)
    chunk_overlap_tokens: int = setting(
        30, "Word pieces each passage repeats from the one before", minimum=0, maximum=512, effect=_NEW_FILES)
    context_max_words: int = setting(40, "Longest context kept, in words", minimum=0, maximum=200, effect=_NEW_FILES)
    context_max_tokens: int = setting(
        64, "Longest context kept, in the meaning model's word pieces", minimum=0, effect=_NEW_FILES)
    contexts: str = setting(
        "auto", "How passage contexts are written: auto (rules at once, the LLM's in the background), "
        "llm, rules or none", choices=CONTEXT_CHOICES, effect=_NEW_FILES)
    # Local model for LLM contexts: a packaged model name (see `desktop_rag.core.llm.models`) or a GGUF file path.
    # The 1.5B model's per-chunk sentences are the LLM level that measured better than rules (docs/benchmarks.md).
    llm_model: str = setting(
        "qwen2.5-coder-1.5b-instruct-q4_k_m",
        "The model that writes contexts: a packaged model's name, or the path of a GGUF file", rebuilds=_LLM)
    llm_threads: int = setting(
        0, "CPU threads the language model uses (0: all cores)", minimum=0, maximum=256, rebuilds=_LLM)
    llm_context_tokens: int = setting(
        4096, "How much text the language model reads at once, in its word pieces", minimum=512, rebuilds=_LLM)
    llm_engine: str = setting("auto", "What runs the local model: auto (llama-cpp-python where installed, else "
                              "xllamacpp)", choices=("auto", "llama-cpp-python", "xllamacpp"), rebuilds=_LLM)
    # Which LLM contexts (LLM_CONTEXT_LEVELS): "document" (one summary per document), "section" (one sentence per
    # section of a long document), "chunk" (one sentence per chunk).
    llm_context_levels: str = setting(
        "chunk", "Which LLM contexts: one summary per document, one sentence per passage, or both "
        "(with sections)", choices=LLM_CONTEXT_LEVELS)
    # Quote at most this many characters of a chunk in its question (0: all of it). Reading the quoted chunk is
    # most of what a chunk context costs once the document is cached; fewer is faster, at some cost in quality.
    llm_chunk_quote_chars: int = setting(
        0, "Quote at most this many characters of a passage to the model (0: all)",
        minimum=0)
    # Questions each chunk answers, written by the model after its chunk sentence and keyword-indexed with the
    # context (doc2query; core/llm/prompts.py CHUNK_QUESTIONS). Measured: docs/benchmarks.md, "Questions…".
    llm_questions: int = setting(
        0, "Questions the LLM writes per passage, keyword-searchable with its context (0: none)", minimum=0, maximum=3,
        effect="applies to passages the LLM writes contexts for from now on")
    # An OpenAI-compatible server (llama.cpp server, vLLM, Ollama: "http://host:port"); empty means llm_model
    # in-process. llm_server_model picks one of the server's models (empty: its first).
    llm_server: str = setting(
        "", "An OpenAI-compatible server for contexts (http://host:port); empty: the local model",
        rebuilds=_LLM)
    llm_server_model: str = setting("", "Which of the server's models (empty: its first)", rebuilds=_LLM)
    start_at_login: bool = setting(
        False, "Start the background service when you log in (an autostart entry): the index of this data folder "
        "stays fresh, and is there for a search, with the window closed")
    keep_fresh_when_closed: bool = setting(
        True, "Keep the index fresh when the window is closed: the background service takes over the folders as "
        f"the window closes, and hands them back when it opens ({remedies.STOP_SERVICE})")
    # Background LLM contexts: the app (and `watch`) write the queued LLM contexts by themselves. Cancel in the
    # progress panel turns this off until the person starts them again; Pause holds them, across restarts.
    llm_upgrade_when_idle: bool = setting(
        True, "Rules contexts are written at once; the language model replaces them later, in "
        "the background, when the conditions below allow. It stops within a second for "
        "anything you do (the app and `watch`)")
    llm_upgrade_paused: bool = setting(False, "The background LLM contexts are paused (Pause in the progress panel)")
    # When they may run (core/runs/schedule.py). Defaults for a 4-core laptop whose owner should never notice them:
    # - only when idle: no keyboard or mouse input, and other programs under a quarter of the CPU, for 3 minutes.
    #   Contexts take hours of CPU for a real folder; a person at the keyboard wants the fan quiet and the CPU
    #   theirs, and an away person's laptop finishes the backlog. Three minutes: past a pause to read or think,
    #   short enough that a lunch break counts. Any input stops the model within a second.
    # - only on mains power: a 1.5B model at full CPU would empty a battery in an hour or two.
    # - no hourly cap: with the two conditions above the work already happens only when nobody is there, and a
    #   cap would only stretch hours of work into days. It is there for those who want the machine cool anyway.
    # - threads (llm_threads above): all cores. The model runs at low priority and only when idle, where more
    #   threads finish sooner; it yields the CPU to anything the person starts.
    llm_only_when_idle: bool = setting(
        True, "Background LLM contexts only when the computer is idle: no keyboard or mouse "
        "input, and other programs using under a quarter of the CPU")
    llm_idle_minutes: float = setting(
        3.0, "Minutes without input and with a low load that count as idle", minimum=0, maximum=120)
    llm_only_on_mains: bool = setting(True, "Background LLM contexts only on mains power")
    llm_cap_minutes_per_hour: float = setting(
        0.0, "At most this many minutes of background LLM work in every hour (0: no "
        "limit); the rest of the hour the machine stays cool",
        minimum=0, maximum=60)
    max_file_mb: float = setting(
        50.0, "Larger files are not read (reported as too large); a mailbox is read message by message, and a "
        "larger message is not", minimum=0, effect=_NEW_FILES)
    # Scanned pages and images are read by OCR (core/files/ocr.py), in these Tesseract languages, except in the
    # folders listed (a folder of photos need not be searched for words).
    ocr: bool = setting(
        True, "Read the text of scanned PDF pages and of images (PNG, JPEG, TIFF, WebP…) by OCR",
        effect="files whose scanned pages were not read are read on the next indexing")
    ocr_languages: str = setting(
        "eng+jpn", "The languages OCR reads, joined by + (Tesseract's names: eng, jpn; more from "
        "tessdata-fast-* packages or the system's tesseract-ocr-* packages)", effect=_NEW_FILES)
    ocr_skip_folders: list[str] = setting(
        [], "Folders whose scans and images are not read by OCR (comma-separated in the CLI)",
        effect="files already read keep their text until they change")
    ignore_patterns: list[str] = setting(
        list(DEFAULT_IGNORE_PATTERNS), "Names never indexed (shell patterns, comma-separated in the CLI)",
        effect="files already indexed stay until they change or their folder is indexed"
        " again")
    # Embedding model: a folder in sentence-transformers layout; empty means the one shipped by PyPI.
    embedding_model: str = setting(
        "", "Meaning model: multilingual-e5-small, ~100 languages (packaged, the default); "
        "all-MiniLM-L6-v2, English only, ~4× faster (packaged); or a sentence-transformers "
        "model folder", rebuilds=frozenset({"embedder"}),
        effect="every passage is made searchable by meaning again with the new model")
    embed_batch_size: int = setting(32, "Texts embedded per call", minimum=1, rebuilds=frozenset({"embedder"}))
    # auto: int8 through ONNX Runtime where the model converts (core/dense/onnx_runtime.py), else torch.
    embedding_precision: str = setting(
        "auto", "How the embedding model runs: auto (int8 through ONNX Runtime where the model "
        "converts, else torch), int8, bfloat16 or float32 (torch)",
        choices=EMBEDDING_PRECISIONS, rebuilds=frozenset({"embedder"}))
    # Search
    candidates: int = setting(100, "Candidates each retriever gives the fusion", minimum=1)
    # How the lists are merged (core/search/fusion.py). 0.65, was 0.6 (issue 48, docs/benchmarks.md "Search quality"):
    # R@1 up on code, Japanese and prose alike, R@5 not lower. A file holding an old default takes the new one.
    fusion: str = setting("convex", "How the keyword and meaning lists are merged", choices=FUSION_METHODS)
    fusion_bm25_weight: float = setting(0.65, "Weight of the keyword list in the fusion (0–1)", minimum=0, maximum=1)
    rrf_k: int = setting(60, "Reciprocal rank fusion's rank offset", minimum=1)
    rerank: bool = setting(False, "Rerank results with the reranking model by default")
    rerank_model: str = setting("", "A reranking model's folder (a CrossEncoder; none ships offline)",
                                rebuilds=frozenset({"reranker"}))
    rerank_candidates: int = setting(30, "Hits the reranking model reorders", minimum=1)
    # Chroma server ("host:port"); empty means the embedded PersistentClient in the data folder.
    chroma_server: str = setting(
        "", "A Chroma server (host:port) instead of the store in the data folder",
        effect=f"{remedies.REBUILD} to fill it")

    @classmethod
    def load(cls, data_dir: Path) -> Settings:
        path = data_dir / SETTINGS_FILE
        if not path.exists():
            return cls()
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise BadInput(f"the settings file {path} is not valid JSON ({exc}): mend it, or delete it to start "
                           "from the defaults") from None
        if not isinstance(raw, dict):
            raise BadInput(f"the settings file {path} holds no settings object: mend it, or delete it")
        # A setting of another version (or a removed one) is ignored; so is a default since changed (every value
        # is saved, so a person who never chose one would keep the old default for good).
        values = {key: _checked(key, value, f" in {path}") for key, value in raw.items()
                  if key in OPTIONS and _RETIRED_DEFAULTS.get(key, _NONE) != value}
        return cls(**values)

    def change(self, values: Mapping[str, object], data_dir: Path) -> list[str]:
        """The one way settings change (the window's dialog and menus, the background's pause, the CLI): every
        value checked as one read from the file is (its type, choices, limits) before any is set, then set in place
        (every part holding this object sees the change at once) and saved. Returns the names whose value
        changed; core/library/library.py's set_settings makes them Changes."""
        unknown = [key for key in values if key not in OPTIONS]
        if unknown:
            raise BadInput(f"unknown setting {unknown[0]!r}; known: {', '.join(OPTIONS)}")
        checked = {key: _checked(key, value) for key, value in values.items()}
        changed = [key for key, value in checked.items() if getattr(self, key) != value]
        for key in changed:
            setattr(self, key, checked[key])
        if changed:
            write_settings(data_dir / SETTINGS_FILE, {key: getattr(self, key) for key in changed}, asdict(self))
        if "start_at_login" in changed:  # the entry follows the setting, whoever changed it (the window, the CLI)
            (autostart.enable if self.start_at_login else autostart.disable)(data_dir)
        return changed

    def save(self, data_dir: Path) -> None:
        """Every value of this copy into the file (a change writes only its own: settings_store.py)."""
        write_settings(data_dir / SETTINGS_FILE, asdict(self), asdict(self))


OPTIONS: dict[str, Option] = {f.name: f.metadata["option"] for f in fields(Settings)}
_RETIRED_DEFAULTS: dict[str, object] = {"fusion_bm25_weight": 0.6}  # setting → the default it had before
_NONE = object()
_DEFAULTS = Settings()


def describe(name: str) -> str:
    """A setting's help and what changing it does, as a tooltip or a CLI line shows it."""
    option = OPTIONS[name]
    return option.help + "." + (f"\nChanging it: {option.effect}." if option.effect else "")


def _checked(key: str, value, where: str = ""):
    """`value` for the setting `key` if it has the setting's type and passes check_setting (an int is taken for a
    float); BadInput saying so otherwise. `where`: " in <file>", for a value read from one."""
    expected = type(getattr(_DEFAULTS, key))
    if expected is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
        raise BadInput(f"the setting {key}{where} should be {expected.__name__}, not {value!r}: "
                       f"{remedies.set_setting(key)}")
    check_setting(key, value)
    return value


def check_setting(name: str, value) -> None:
    """Refuse a value the library could not use, when it is set (or loaded) rather than when it is first needed."""
    option = OPTIONS.get(name)
    if option is None:
        return
    if option.choices is not None and value not in option.choices:
        raise BadInput(f"{name} cannot be {value!r}; pick one of {', '.join(option.choices)}")
    if option.minimum is not None and value < option.minimum:
        raise BadInput(f"{name} cannot be {value!r}: it must be at least {option.minimum:g}")
    if option.maximum is not None and value > option.maximum:
        raise BadInput(f"{name} cannot be {value!r}: it must be at most {option.maximum:g}")
    if name == "ocr_languages" and not re.fullmatch(r"[A-Za-z_]+(\+[A-Za-z_]+)*", value):
        raise BadInput(f"ocr_languages cannot be {value!r}: give Tesseract language names joined by +, as eng+jpn")


def parse_setting(name: str, text: str):
    """A setting's value from its words (the CLI's `settings KEY VALUE`), of the setting's own type, checked."""
    like = getattr(Settings(), name)
    if isinstance(like, bool):
        if text.lower() not in ("true", "false", "1", "0", "yes", "no", "on", "off"):
            raise BadInput(f"{name} is true or false, not {text!r}")
        value: bool | int | float | list[str] | str = text.lower() in ("true", "1", "yes", "on")
    elif isinstance(like, (int, float)):
        try:
            value = type(like)(text)
        except ValueError:
            kind = "a whole number" if isinstance(like, int) else "a number"
            raise BadInput(f"{name} must be {kind}, not {text!r}") from None
    elif isinstance(like, list):
        value = [part.strip() for part in text.split(",") if part.strip()]
    else:
        value = text
    check_setting(name, value)
    return value


def what_changing_does(names) -> list[str]:
    """What each change does to what is indexed, for the window: the setting named by its help's first words
    ("Passage size: applies to…"; it said "chunk_tokens: …", a name only the CLI's users type)."""
    return [f"{setting_words(name)}: {OPTIONS[name].effect}" for name in names
            if name in OPTIONS and OPTIONS[name].effect]


def setting_words(name: str) -> str:
    """A setting as a person names it: its help up to the first comma, colon or bracket."""
    return re.split(r"[,:(]", OPTIONS[name].help, maxsplit=1)[0].strip()

