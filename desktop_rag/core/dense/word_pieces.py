"""An embedding model's word pieces: ids for the model, counts and character spans for chunking.

The default model's vocabulary is SentencePiece's (250k pieces with their scores). Read by `tokenizers` from its
tokenizer.json, it held 268 MB in each process that counts or embeds (two: the reader and the embedder); read by
`sentencepiece` from the same pieces, 55 MB, and it tokenizes ~5× faster (3,541 chunks of code, Japanese and mail:
1.5 s → 0.3 s, 2 cores). Both find the likeliest split of each word by the same scores; of those 3,541 chunks, 20
came out differently, each a run of one repeated character ("----", "AAAA") that two splits of equal score cover in
another order. Any other model folder (WordPiece, BPE) is read by `tokenizers` as before.

SentencePiece is given text normalized here as the tokenizer.json says (characters of the model's map dropped or
made spaces, NFKC, runs of spaces made one, a space in front unless there is one), so its pieces are the model's.
Character spans are mapped back to the text as given, through the origin of each normalized character.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path

SENTENCEPIECE_FILE = "sentencepiece.model"  # written beside tokenizer.json by core/dense/multilingual_model.py

class Normalizer:
    """The tokenizer.json's normalizer, for SentencePiece: characters dropped, characters made spaces (both from the
    model's own map: multilingual_model.py), NFKC, runs of spaces made one."""

    def __init__(self, steps: dict):
        replaced = {"": "", " ": ""}
        kinds = [step["type"] for step in steps.get("normalizers", [])]
        for step in steps.get("normalizers", [])[:-2]:
            if step["type"] != "Replace" or step["content"] not in replaced:
                raise ValueError(f"a normalizer step SentencePiece is not given: {step}")
            replaced[step["content"]] = re.sub(r"\\x\{([0-9a-f]+)\}", lambda m: re.escape(chr(int(m[1], 16))),
                                               step["pattern"]["Regex"])
        if kinds[-2:] != ["NFKC", "Replace"] or steps["normalizers"][-1]["content"] != " ":
            raise ValueError(f"a normalizer SentencePiece is not given: {kinds}")
        self._units: dict[str, str] = {}  # with_origins' normalized characters, by character
        self._dropped = re.compile(replaced[""]) if replaced[""] else None
        self._spaced = re.compile(replaced[" "]) if replaced[" "] else None

    def _replaced(self, text: str) -> str:
        if self._dropped is not None:
            text = self._dropped.sub("", text)
        return self._spaced.sub(" ", text) if self._spaced is not None else text

    def __call__(self, text: str) -> str:
        text = _RUNS_OF_SPACES.sub(" ", unicodedata.normalize("NFKC", self._replaced(text)))
        return text if not text or text.startswith(" ") else " " + text

    def with_origins(self, text: str) -> tuple[str, list[int], list[int]]:
        """As a call, and for each character it gives where in `text` the characters it comes from begin and end.
        NFKC goes a base character and its combining marks at a time (what it composes); a run of spaces is its
        last space, and a space put in front comes from the first character (as `tokenizers` has them)."""
        chars: list[str] = []
        starts: list[int] = []
        ends: list[int] = []
        start, end = 0, len(text)
        units = self._units  # one character's (or a base and its marks') normalized form: the same every time
        marks_possible = not text.isascii()
        while start < end:
            stop = start + 1
            while marks_possible and stop < end and unicodedata.combining(text[stop]):
                stop += 1
            unit = text[start:stop]
            normalized = units.get(unit)
            if normalized is None:
                normalized = unicodedata.normalize("NFKC", self._replaced(unit))
                if len(units) < _UNITS_KEPT:
                    units[unit] = normalized
            for char in normalized:
                if char == " " and chars and chars[-1] == " ":
                    starts[-1], ends[-1] = start, stop
                    continue
                chars.append(char)
                starts.append(start)
                ends.append(stop)
            start = stop
        if chars and chars[0] != " ":
            chars.insert(0, " ")
            starts.insert(0, starts[0])
            ends.insert(0, ends[0])
        return "".join(chars), starts, ends


_RUNS_OF_SPACES = re.compile(" {2,}")
# Characters whose normalized form with_origins keeps: a text's alphabet and more (Japanese uses a few thousand).
# Kept, the word pieces of 1,000 mails took 1.9 s in the reader, not 5.0 s (most of it normalizing each character).
_UNITS_KEPT = 20_000


class SentencePieceTokens:
    """Word pieces of a model folder holding SENTENCEPIECE_FILE."""

    def __init__(self, model_path: Path):
        import sentencepiece

        self._processor = sentencepiece.SentencePieceProcessor(model_file=str(model_path / SENTENCEPIECE_FILE))
        self._bos, self._eos = self._processor.bos_id(), self._processor.eos_id()
        self._normalized = Normalizer(_normalizer_of(model_path / "tokenizer.json"))

    def ids(self, texts: list[str]) -> list[list[int]]:
        """Without the model's start and end pieces."""
        return self._processor.encode([self._normalized(text) for text in texts])

    def model_ids(self, texts: list[str], max_pieces: int) -> list[list[int]]:
        """As the model reads them: between its start and end pieces, at most `max_pieces` in all."""
        return [[self._bos, *ids[:max_pieces - 2], self._eos] for ids in self.ids(texts)]

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Each piece's characters in `text` (a piece's leading space is its word's: it begins at that space)."""
        flat, starts, ends = self._normalized.with_origins(text)
        if not flat:
            return []
        proto = self._processor.encode(flat, return_type="proto")
        if flat.isascii():  # SentencePiece gives byte offsets into the UTF-8 of `flat`: here its characters'
            char_at: Sequence[int] = range(len(flat) + 1)
        else:
            byte_chars: list[int] = []
            for index, char in enumerate(flat):
                byte_chars += [index] * len(char.encode("utf-8"))
            byte_chars.append(len(flat))
            char_at = byte_chars
        found = []
        for piece in proto.pieces:
            first, last = char_at[piece.begin], char_at[piece.end]
            if last > first:
                found.append((starts[first], ends[last - 1]))
        return found


class TokenizersTokens:
    """Word pieces of any other model folder, through its tokenizer.json."""

    def __init__(self, model_path: Path):
        from tokenizers import Tokenizer

        self._tokenizer = Tokenizer.from_file(str(model_path / "tokenizer.json"))
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()

    def ids(self, texts: list[str]) -> list[list[int]]:
        return [e.ids for e in self._tokenizer.encode_batch(texts, add_special_tokens=False)]

    def model_ids(self, texts: list[str], max_pieces: int) -> list[list[int]]:
        """Cut as `tokenizers` cuts one text: the pieces that fit before the model's end piece (no setting is
        changed: the embedder's search and indexing lanes call this at once)."""
        return [e.ids if len(e.ids) <= max_pieces else e.ids[:max_pieces - 1] + e.ids[-1:]
                for e in self._tokenizer.encode_batch(texts)]

    def spans(self, text: str) -> list[tuple[int, int]]:
        return list(self._tokenizer.encode(text, add_special_tokens=False).offsets)


def _normalizer_of(tokenizer_json: Path) -> dict:
    """Read from the file's head where it can be: `tokenizers` saves the normalizer before the model's vocabulary,
    and parsing the whole 17 MB file took 0.39 s of the embedder's 1.2 s start (a search after the service's rest
    waits for it)."""
    import json

    with open(tokenizer_json, encoding="utf-8") as file:
        head = file.read(_HEAD_CHARS)
    key = _NORMALIZER_KEY.search(head)
    if key is not None:
        try:
            return json.JSONDecoder().raw_decode(head, key.end())[0]
        except ValueError:
            pass  # cut by the head's end: the whole file then
    return json.loads(tokenizer_json.read_text(encoding="utf-8"))["normalizer"]


_HEAD_CHARS = 65_536  # the default model's normalizer ends within the first 2.5 KB
_NORMALIZER_KEY = re.compile(r'"normalizer":\s*')


def word_pieces(model_path: Path) -> SentencePieceTokens | TokenizersTokens:
    if (model_path / SENTENCEPIECE_FILE).exists():
        return SentencePieceTokens(model_path)
    return TokenizersTokens(model_path)
