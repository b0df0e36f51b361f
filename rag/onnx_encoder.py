"""MiniLM (a BERT sentence encoder) on ONNX Runtime: the graph written from the packaged weights, tokenized with the
model's own fast tokenizer. No torch, transformers or sentence-transformers anywhere, not even to export.

Why the graph is written here instead of by ``torch.onnx.export``: that needs torch and transformers imported and the
model traced, 15-29 s measured on a 2-core machine, which alone would blow a fresh `rag ui`'s start-up budget; this
writes the same function from ``model.safetensors`` in well under a second (tests check its vectors against
sentence-transformers' on the seed sentences). The file is cached under the data folder, named by the model and
:data:`EXPORTER_VERSION`, so any change to the graph below or to the weights writes a new one.

Supported: what all-MiniLM-L6-v2 is made of (a BERT with absolute positions and exact GELU, mean pooling, optional
normalisation, a ``tokenizer.json``). :func:`unsupported_reason` says why another folder is not.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

# Bump when the graph written by build_model changes (its file name changes with it, so old files are not reused).
# 2: int8 weights (see build_model). ONNX Runtime's fused BERT kernels (com.microsoft Attention, SkipLayerNormalization,
# BiasGelu), written here or by onnxruntime.transformers' optimizer, measured no faster than this plain graph (whose
# MatMul+Add, LayerNorm and GELU ONNX Runtime fuses itself), so the graph stays plain ONNX plus one contrib op.
# 3: the cached file's weights in a file beside it (write_cached), the graph unchanged.
# 4: the word-embedding table outside the graph (WordTable): the graph takes the token vectors, not the token ids.
EXPORTER_VERSION = 4
OPSET = 17  # LayerNormalization is standard from 17; every op used here is plain ONNX
EXTERNAL_MIN_BYTES = 4096  # initializers from this size on are written to the weights file


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def unsupported_reason(folder: Path) -> str:
    """Why the sentence-transformers folder cannot be run by this encoder ('' when it can)."""
    for name in ("config.json", "model.safetensors", "tokenizer.json", "modules.json"):
        if not (folder / name).exists():
            return f"no {name}"
    config = _read_json(folder / "config.json")
    if config.get("model_type") != "bert" or config.get("hidden_act") != "gelu":
        return "not a BERT model with GELU"
    if config.get("position_embedding_type", "absolute") != "absolute":
        return "not absolute position embeddings"
    modules = _read_json(folder / "modules.json")
    kinds = [m.get("type", "").rsplit(".", 1)[-1] for m in modules] if isinstance(modules, list) else []
    if kinds not in (["Transformer", "Pooling", "Normalize"], ["Transformer", "Pooling"]):
        return f"modules {kinds}"
    pooling_path = next((m.get("path", "") for m in modules if m.get("type", "").endswith("Pooling")), "")
    pooling = _read_json(folder / pooling_path / "config.json")
    modes = {k for k, v in pooling.items() if k.startswith("pooling_mode") and v}
    if modes != {"pooling_mode_mean_tokens"}:
        return f"pooling {sorted(modes)}"
    return ""


@dataclass(frozen=True, slots=True)
class ModelShape:
    """What the graph and the flop count need to know about the transformer."""

    layers: int
    hidden: int
    heads: int
    intermediate: int
    max_tokens: int
    eps: float

    @classmethod
    def of(cls, folder: Path) -> ModelShape:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        st_config = _read_json(folder / "sentence_bert_config.json")
        return cls(
            layers=int(config["num_hidden_layers"]),
            hidden=int(config["hidden_size"]),
            heads=int(config["num_attention_heads"]),
            intermediate=int(config["intermediate_size"]),
            max_tokens=min(int(st_config.get("max_seq_length") or 512), int(config["max_position_embeddings"])),
            eps=float(config.get("layer_norm_eps", 1e-12)),
        )

    def flops_per_sequence(self, length: int) -> int:
        """Floating-point operations (multiply and add counted apart) of one forward pass over ``length`` tokens:
        the six weight matmuls of each layer plus the two attention products; norms, softmax and GELU are left out
        (a few per cent)."""
        weights = 4 * self.hidden * self.hidden + 2 * self.hidden * self.intermediate  # q, k, v, out; up, down
        attention = 2 * length * self.hidden  # scores = q·k over all positions, context = p·v
        return 2 * self.layers * length * (weights + attention)


def model_file_name(folder: Path, int8: bool = True) -> str:
    """The cache file's name: the model folder's name plus a digest of the exporter version, config and weights
    file (size and modification time: hashing 90 MB on every start would cost more than writing the graph)."""
    digest = hashlib.sha256(f"exporter {EXPORTER_VERSION} opset {OPSET} int8 {int8}\n".encode())
    digest.update((folder / "config.json").read_bytes())
    stat = (folder / "model.safetensors").stat()
    digest.update(f"{stat.st_size} {stat.st_mtime_ns}".encode())
    slug = "".join(ch if ch.isalnum() else "-" for ch in folder.resolve().name.lower()).strip("-")[:40] or "model"
    return f"{slug}-{digest.hexdigest()[:16]}.onnx"


def quantize_columns(weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric int8 weights with one scale per output column (``weight`` is [in, out]): ``q * scale ≈ weight``."""
    scale = np.abs(weight).max(axis=0) / np.float32(127)
    scale = np.where(scale > 0, scale, np.float32(1)).astype(np.float32)
    return np.clip(np.rint(weight / scale), -127, 127).astype(np.int8), scale


def word_record(hidden: int, int8: bool) -> np.dtype:
    """One row of the word table as stored: the float32 vector, or (int8) its int8 values and their scale."""
    if int8:
        return np.dtype([("q", np.int8, (hidden,)), ("scale", "<f4")])
    return np.dtype([("v", "<f4", (hidden,))])


def build_model(folder: Path, int8: bool = True):
    """The ONNX model of the sentence-transformers folder and its word table (:class:`WordTable` records, one per
    token id): token vectors (the table's rows, looked up outside the graph) and mask in, L2-normalised
    mean-pooled vectors out, what SentenceTransformer.encode(normalize_embeddings=True) computes.

    ``int8``: the weight matmuls run on int8 weights (one scale per output column) and int8 activations quantised
    per call (ONNX Runtime's DynamicQuantizeMatMul, what its dynamic quantisation writes): about twice as fast on
    a CPU with int8 dot products. All but the feed-forward down projections, whose inputs (GELU outputs) have the
    outliers that per-tensor activation scales handle worst: measured on the seed sentences against float32,
    cosine min 0.992 (all matmuls: 0.983). ``int8=False``: float32 throughout (cosine 0.99999 to
    sentence-transformers)."""
    from onnx import TensorProto, helper, numpy_helper
    from safetensors.numpy import load_file

    shape = ModelShape.of(folder)
    weights = load_file(str(folder / "model.safetensors"))
    prefix = "bert." if "bert.embeddings.word_embeddings.weight" in weights else ""
    nodes: list = []
    initializers: list = []

    def w(name: str) -> np.ndarray:
        return np.ascontiguousarray(weights[prefix + name], dtype=np.float32)

    def const(name: str, value: np.ndarray) -> str:
        initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def node(op: str, inputs: list[str], output: str, **attrs) -> str:
        nodes.append(helper.make_node(op, inputs, [output], name=output, **attrs))
        return output

    def linear(x: str, name: str, out: str, scale: float = 1.0, quantize: bool = True) -> str:
        weight = w(f"{name}.weight").T * np.float32(scale)
        bias = const(f"{out}.b", w(f"{name}.bias") * np.float32(scale))
        if int8 and quantize:
            q, q_scale = quantize_columns(weight)
            return node("DynamicQuantizeMatMul", [x, const(f"{out}.wq", q), const(f"{out}.ws", q_scale), "", bias],
                        out, domain="com.microsoft")  # fmt: skip
        return node("Add", [node("MatMul", [x, const(f"{out}.w", weight)], f"{out}.mm"), bias], out)

    def layer_norm(x: str, name: str, out: str) -> str:
        gamma, beta = const(f"{out}.g", w(f"{name}.weight")), const(f"{out}.beta", w(f"{name}.bias"))
        return node("LayerNormalization", [x, gamma, beta], out, axis=-1, epsilon=shape.eps)

    heads, width = shape.heads, shape.hidden // shape.heads
    # Embeddings: word + position + token type 0 (one sentence), the last two summed once here. The word vectors
    # come in as the graph's input "words" (WordTable.lookup): the table stays out of the graph.
    table = w("embeddings.word_embeddings.weight")
    records = np.empty(table.shape[0], word_record(shape.hidden, int8))
    if int8:  # the word table (half the weights) as int8 rows with one scale each: a smaller file and process
        table_q, table_scale = quantize_columns(table.T)
        records["q"], records["scale"] = table_q.T, table_scale
    else:
        records["v"] = table
    words = "words"
    positions_table = w("embeddings.position_embeddings.weight") + w("embeddings.token_type_embeddings.weight")[0]
    seq_len = node("Shape", ["attention_mask"], "seq_len", start=1, end=2)  # 1-D: [sequence]
    positions = node("Slice", [const("positions_table", positions_table), const("zero1", np.array([0], np.int64)),
                               seq_len], "positions")  # fmt: skip
    x = layer_norm(node("Add", [words, positions], "embedded"), "embeddings.LayerNorm", "x0")
    # Padding gets a large negative score before softmax: (mask - 1) * 1e9, shaped (batch, 1, 1, seq).
    mask = node("Cast", ["attention_mask"], "mask_f", to=TensorProto.FLOAT)
    bias = node("Mul", [node("Sub", [mask, const("one_f", np.array(1.0, np.float32))], "mask_m1"),
                        const("big", np.array(1e9, np.float32))], "mask_bias_2d")  # fmt: skip
    bias = node("Unsqueeze", [bias, const("axes12", np.array([1, 2], np.int64))], "mask_bias")
    split_heads = const("split_heads", np.array([0, 0, heads, width], np.int64))
    merge_heads = const("merge_heads", np.array([0, 0, shape.hidden], np.int64))
    inv_sqrt2 = const("inv_sqrt2", np.array(1 / np.sqrt(2.0), np.float32))
    half, one = const("half", np.array(0.5, np.float32)), const("one_g", np.array(1.0, np.float32))
    for i in range(shape.layers):
        p, o = f"encoder.layer.{i}.", f"l{i}"

        def heads_of(t: str, perm: list[int], name: str) -> str:
            return node("Transpose", [node("Reshape", [t, split_heads], f"{name}.split")], name, perm=perm)

        # The 1/sqrt(width) score scale is folded into the query projection.
        q = heads_of(linear(x, f"{p}attention.self.query", f"{o}.q", 1 / np.sqrt(width)), [0, 2, 1, 3], f"{o}.qh")
        k = heads_of(linear(x, f"{p}attention.self.key", f"{o}.k"), [0, 2, 3, 1], f"{o}.kh")
        v = heads_of(linear(x, f"{p}attention.self.value", f"{o}.v"), [0, 2, 1, 3], f"{o}.vh")
        scores = node("Add", [node("MatMul", [q, k], f"{o}.qk"), bias], f"{o}.scores")
        probs = node("Softmax", [scores], f"{o}.probs", axis=-1)
        context = node("Transpose", [node("MatMul", [probs, v], f"{o}.ctx_h")], f"{o}.ctx_t", perm=[0, 2, 1, 3])
        context = node("Reshape", [context, merge_heads], f"{o}.ctx")
        attended = linear(context, f"{p}attention.output.dense", f"{o}.attn")
        x = layer_norm(node("Add", [attended, x], f"{o}.res1"), f"{p}attention.output.LayerNorm", f"{o}.x1")
        up = linear(x, f"{p}intermediate.dense", f"{o}.up")
        erf = node("Erf", [node("Mul", [up, inv_sqrt2], f"{o}.up_s")], f"{o}.erf")
        gelu = node("Mul", [node("Mul", [up, half], f"{o}.up_h"), node("Add", [erf, one], f"{o}.erf1")],
                    f"{o}.gelu")  # exact GELU, as BERT uses  # fmt: skip
        down = linear(gelu, f"{p}output.dense", f"{o}.down", quantize=False)
        x = layer_norm(node("Add", [down, x], f"{o}.res2"), f"{p}output.LayerNorm", f"{o}.x2")
    # Mean over real tokens, then L2 normalisation.
    mask3 = node("Unsqueeze", [mask, const("axis2", np.array([2], np.int64))], "mask3")
    summed = node("ReduceSum", [node("Mul", [x, mask3], "masked"), const("axis1", np.array([1], np.int64))],
                  "summed", keepdims=0)  # fmt: skip
    count = node("Max", [node("ReduceSum", [mask3, const("axis1b", np.array([1], np.int64))], "count_raw",
                              keepdims=0), const("tiny", np.array(1e-9, np.float32))], "count")  # fmt: skip
    pooled = node("Div", [summed, count], "pooled")
    norm = node("Max", [node("ReduceL2", [pooled], "norm_raw", axes=[1], keepdims=1),
                        const("tiny2", np.array(1e-12, np.float32))], "norm")  # fmt: skip
    node("Div", [pooled, norm], "embedding")
    graph = helper.make_graph(
        nodes,
        "sentence_encoder",
        [
            helper.make_tensor_value_info("words", TensorProto.FLOAT, ["batch", "sequence", shape.hidden]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "sequence"]),
        ],
        [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", shape.hidden])],
        initializers,
    )
    opsets = [helper.make_opsetid("", OPSET)] + ([helper.make_opsetid("com.microsoft", 1)] if int8 else [])
    model = helper.make_model(graph, opset_imports=opsets, producer_name="rag")
    model.ir_version = 8  # readable by any onnxruntime of the last few years (which also validates it on load)
    return model, records


class WordTable:
    """The word-embedding table, kept out of the ONNX graph: :meth:`lookup` gives the vectors of a batch's token
    ids, read from the table's file a row at a time (``os.pread``: a few hundred bytes a token).

    Inside the graph, ONNX Runtime maps the table's file into the process and gathers rows from the mapping, so
    every row any question has touched stays resident: ~11 MiB of the int8 table in a serving process after a
    few hundred questions, to save reading ~20 rows per question. Read per call, the process holds none of it
    (the file stays in the page cache). Rows are decoded as the graph did: int8 values cast to float32 times
    the row's scale, so vectors are bit for bit the same.
    """

    def __init__(self, dtype: np.dtype, *, records: np.ndarray | None = None, path: Path | None = None) -> None:
        self.dtype = dtype
        self.int8 = "q" in (dtype.names or ())
        self._records = records
        self._file = None
        self.rows = 0 if records is None else len(records)
        if path is not None:
            size = path.stat().st_size
            if size == 0 or size % dtype.itemsize:
                raise ValueError(f"{path.name} is {size} bytes, not whole rows of {dtype.itemsize}")
            self.rows = size // dtype.itemsize
            if hasattr(os, "pread"):
                self._file = open(path, "rb")  # noqa: SIM115 - held for the encoder's life, closed with it
            else:  # no positional reads (Windows): the table in memory
                self._records = np.fromfile(path, dtype)

    @classmethod
    def open(cls, path: Path, dtype: np.dtype, rows: int) -> WordTable:
        """The table in ``path``; ValueError unless it holds exactly ``rows`` rows (a damaged or foreign file)."""
        table = cls(dtype, path=path)
        if table.rows != rows:
            table.close()
            raise ValueError(f"{path.name} holds {table.rows} rows, not {rows}")
        return table

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def _read(self, ids: np.ndarray) -> np.ndarray:
        if self._records is not None:
            return self._records[ids]
        assert self._file is not None
        fd, size = self._file.fileno(), self.dtype.itemsize
        chunks = [os.pread(fd, size, int(i) * size) for i in ids]
        if any(len(chunk) != size for chunk in chunks):
            raise OSError(f"{self._file.name}: a short read (the file was truncated)")
        return np.frombuffer(b"".join(chunks), self.dtype)

    def lookup(self, ids: np.ndarray) -> np.ndarray:
        """float32 vectors of ``ids`` (any shape): shape ``ids.shape + (hidden,)``."""
        if ids.size and (int(ids.min()) < 0 or int(ids.max()) >= self.rows):
            raise ValueError(f"token ids outside the table's {self.rows} rows")
        unique, inverse = np.unique(ids, return_inverse=True)
        records = self._read(unique)
        if self.int8:
            vectors = records["q"].astype(np.float32) * records["scale"][:, None]
        else:
            vectors = np.array(records["v"], np.float32)
        return vectors[inverse.reshape(ids.shape)]


def weights_file_name(model_name: str) -> str:
    """The file beside a cached model that holds its weights (ONNX external data)."""
    return model_name + ".weights"


def words_file_name(model_name: str) -> str:
    """The file beside a cached model that holds its word table (:class:`WordTable`)."""
    return model_name + ".words"


def _write_replacing(path: Path, write) -> None:
    """``write(handle)`` into a temporary file beside ``path``, then rename it to ``path``."""
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)


def write_cached(model, path: Path, words: np.ndarray | None = None) -> None:
    """Write ``model`` to ``path`` with its larger weights in a file beside it (:func:`weights_file_name`) and its
    word table in another (:func:`words_file_name`), each file written under a temporary name and renamed, the
    model last: a process that finds the model finds its weights and word table. ONNX Runtime reads external weights straight into the tensors it runs; from a single file it holds
    the parsed file as well, measured ~25 MiB more resident for the int8 graph (a serving process's share)."""
    from onnx import TensorProto

    if words is not None:
        _write_replacing(path.parent / words_file_name(path.name), lambda handle: handle.write(words.tobytes()))
    weights_name = weights_file_name(path.name)

    def write_weights(handle) -> None:
        for tensor in model.graph.initializer:
            raw = tensor.raw_data
            if len(raw) < EXTERNAL_MIN_BYTES:
                continue
            offset = handle.tell()
            handle.write(raw)
            tensor.ClearField("raw_data")
            tensor.data_location = TensorProto.EXTERNAL
            del tensor.external_data[:]
            for key, value in (("location", weights_name), ("offset", str(offset)), ("length", str(len(raw)))):
                entry = tensor.external_data.add()
                entry.key, entry.value = key, value

    _write_replacing(path.parent / weights_name, write_weights)
    _write_replacing(path, lambda handle: handle.write(model.SerializeToString()))


def cached_model(folder: Path, cache_dir: Path | None, int8: bool = True) -> tuple[str | bytes, WordTable]:
    """The model's file under ``cache_dir`` (its weights and word table in files beside it), written when missing
    or when its word table is damaged, and the word table; the model's bytes and the table in memory when there is
    no cache folder or it cannot be written (building takes well under a second)."""
    shape = ModelShape.of(folder)
    dtype = word_record(shape.hidden, int8)
    vocab = int(_read_json(folder / "config.json").get("vocab_size") or 0)
    if cache_dir is not None:
        path = cache_dir / model_file_name(folder, int8)
        words = cache_dir / words_file_name(path.name)
        if path.is_file() and (cache_dir / weights_file_name(path.name)).is_file() and words.is_file():
            try:
                return str(path), WordTable.open(words, dtype, vocab)
            except (OSError, ValueError) as exc:
                log.warning("the cached word table %s is unusable (%s); writing the encoder again", words.name, exc)
    model, records = build_model(folder, int8)
    if cache_dir is None:
        return model.SerializeToString(), WordTable(dtype, records=records)
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        write_cached(model, path, records)
        log.info("wrote the ONNX encoder %s", path.name)
        return str(path), WordTable.open(words, dtype, len(records))
    except OSError as exc:  # a read-only data folder still encodes, from memory
        log.warning("cannot cache the ONNX encoder in %s (%s); building it in memory", cache_dir.name, exc.strerror)
        model, records = build_model(folder, int8)  # write_cached moved the weights out of the first ``model``
        return model.SerializeToString(), WordTable(dtype, records=records)


@lru_cache(maxsize=4)
def shared_tokenizer(folder: Path):
    """The fast tokenizer of a model folder, loaded once per process (~4 MiB of vocabulary tables in Rust) and
    shared read-only: by the encoder's graphs, and by rag.lexicon, which reads its vocabulary as the list of common
    English words."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def all_cores() -> int:
    """CPUs this process may run on (its affinity, not the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


class OnnxSentenceEncoder:
    """Tokenize (batched, in Rust), run the graph, return L2-normalised float32 vectors, one row per text.

    One ONNX Runtime session, on ``threads`` intra-op threads (1: fastest for one short text on a busy machine).
    Bulk work is data-parallel instead: ``encode(..., workers=n)`` runs n batches at once on the same session, one
    per core (onnxruntime's ``run`` is thread-safe and releases the GIL). Measured on 2 shared cores: as fast as
    two intra-op threads on an idle machine and about twice as fast when another process is busy, since no batch
    waits for a thread that the other process holds; and no second copy of the weights.
    """

    def __init__(
        self, folder: Path, cache_dir: Path | None, threads: int = 1, *, int8: bool = True, tokenizer=None
    ) -> None:
        reason = unsupported_reason(folder)
        if reason:
            raise ValueError(f"this encoder runs BERT models with mean pooling only ({reason})")
        self.folder = folder
        self.shape = ModelShape.of(folder)
        self.max_tokens = self.shape.max_tokens
        self.threads = max(1, threads)
        self.tokenizer = tokenizer if tokenizer is not None else self.load_tokenizer(folder)  # shareable: read-only
        self.int8 = int8
        self.model, self.words = cached_model(folder, cache_dir, int8)
        try:
            self.session = self._open()
        except Exception as exc:  # onnxruntime raises its own exception types
            if not isinstance(self.model, str):
                raise
            # A damaged cache file (a full disk, a crash mid-copy): write it again from the weights, once.
            log.warning("the cached ONNX encoder %s is unusable (%s); writing it again", Path(self.model).name, exc)
            Path(self.model).unlink(missing_ok=True)
            Path(self.model).with_name(weights_file_name(Path(self.model).name)).unlink(missing_ok=True)
            self.words.close()
            Path(self.model).with_name(words_file_name(Path(self.model).name)).unlink(missing_ok=True)
            self.model, self.words = cached_model(folder, cache_dir, int8)
            self.session = self._open()

    @staticmethod
    def load_tokenizer(folder: Path):
        """The model's fast tokenizer, untruncated and unpadded (the file's own settings truncate at 128 and pad;
        we count untruncated and truncate to max_tokens in :meth:`token_ids`). One per folder and process
        (:func:`shared_tokenizer`)."""
        return shared_tokenizer(folder.resolve())

    @property
    def dimension(self) -> int:
        return self.shape.hidden

    def _open(self):
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        if self.threads > 1:  # idle worker threads sleep instead of spinning: the machine may be shared
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return ort.InferenceSession(self.model, options, providers=["CPUExecutionProvider"])

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def token_ids(self, texts: list[str]) -> list[list[int]]:
        """Each text's ids with [CLS] and [SEP], truncated at ``max_tokens`` like sentence-transformers."""
        ids_list = []
        for encoding in self.tokenizer.encode_batch(texts):
            ids = encoding.ids
            if len(ids) > self.max_tokens:  # keep [CLS] + the first pieces, end with [SEP]
                ids = ids[: self.max_tokens - 1] + ids[-1:]
            ids_list.append(ids)
        return ids_list

    def encode(
        self, texts: list[str], batch_size: int = 16, workers: int = 1, progress: Callable[[int], None] | None = None
    ) -> np.ndarray:
        """Vectors in input order. Texts are encoded in batches of similar length (less padding), ``workers``
        batches at a time; ``progress(n)`` is called in this thread as each batch of n texts is done."""
        if not texts:
            return np.zeros((0, self.dimension), np.float32)
        ids_list = self.token_ids(texts)
        order = sorted(range(len(texts)), key=lambda i: len(ids_list[i]))
        batches = [order[start : start + max(1, batch_size)] for start in range(0, len(order), max(1, batch_size))]
        out = np.empty((len(texts), self.dimension), np.float32)

        def run(rows: list[int]) -> int:
            length = len(ids_list[rows[-1]])
            ids = np.zeros((len(rows), length), np.int64)
            mask = np.zeros((len(rows), length), np.int64)
            for r, i in enumerate(rows):
                ids[r, : len(ids_list[i])] = ids_list[i]
                mask[r, : len(ids_list[i])] = 1
            out[rows] = self.session.run(["embedding"], {"words": self.words.lookup(ids), "attention_mask": mask})[0]
            return len(rows)

        workers = min(workers, len(batches))
        if workers <= 1:
            done = map(run, batches)
        else:
            from concurrent.futures import ThreadPoolExecutor

            pool = ThreadPoolExecutor(workers, thread_name_prefix="encode")
            done = pool.map(run, batches[::-1])  # longest first, so no core is left with a long batch at the end
        try:
            for n in done:
                if progress is not None:
                    progress(n)
        finally:
            if workers > 1:
                pool.shutdown(cancel_futures=True)
        return out
