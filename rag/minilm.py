"""A BERT encoder's forward pass in numpy, for encoding a question without importing torch.

Why: importing torch and sentence-transformers takes several seconds, most of `rag ui`'s start-up, while a
question is one short text that numpy encodes about as fast as torch does (about 12 ms). Loading these weights
takes 0.1 s. Batches (ingest) still go through sentence-transformers, which is several times faster on many texts.
Both compute the same function: tests check that they agree to 1e-6 on the seed sentences.

Only what all-MiniLM-L6-v2 is made of is supported (a BERT with absolute positions, mean pooling, weights in
``model.safetensors``, a ``tokenizer.json``); :func:`load_numpy_encoder` returns None for anything else, and the
caller uses sentence-transformers for everything.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)


@dataclass(slots=True)
class _Layer:
    qkv_w: np.ndarray  # (hidden, 3*hidden): query, key and value projections side by side
    qkv_b: np.ndarray
    out_w: np.ndarray
    out_b: np.ndarray
    norm1: tuple[np.ndarray, np.ndarray]
    up_w: np.ndarray
    up_b: np.ndarray
    down_w: np.ndarray
    down_b: np.ndarray
    norm2: tuple[np.ndarray, np.ndarray]


class NumpyBertEncoder:
    """Tokenize, run the transformer, mean-pool over real tokens, L2-normalise: what sentence-transformers does."""

    def __init__(self, folder: Path, config: dict, max_tokens: int) -> None:
        from safetensors.numpy import load_file
        from scipy.special import erf
        from tokenizers import Tokenizer

        self._erf = erf
        self.max_tokens = max_tokens
        self.heads = int(config["num_attention_heads"])
        self.hidden = int(config["hidden_size"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        # The file's own settings truncate at 128 and pad; we count untruncated and truncate to max_tokens below.
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()
        weights = load_file(str(folder / "model.safetensors"))
        prefix = "bert." if "bert.embeddings.word_embeddings.weight" in weights else ""

        def w(name: str) -> np.ndarray:
            return np.ascontiguousarray(weights[prefix + name], dtype=np.float32)

        def linear(name: str) -> tuple[np.ndarray, np.ndarray]:
            return np.ascontiguousarray(w(f"{name}.weight").T), w(f"{name}.bias")

        def norm(name: str) -> tuple[np.ndarray, np.ndarray]:
            return w(f"{name}.weight"), w(f"{name}.bias")

        self.word = w("embeddings.word_embeddings.weight")
        self.position = w("embeddings.position_embeddings.weight")
        self.token_type = w("embeddings.token_type_embeddings.weight")[0]
        self.embed_norm = norm("embeddings.LayerNorm")
        self.layers: list[_Layer] = []
        for i in range(int(config["num_hidden_layers"])):
            p = f"encoder.layer.{i}."
            qkv = [linear(f"{p}attention.self.{part}") for part in ("query", "key", "value")]
            self.layers.append(
                _Layer(
                    np.ascontiguousarray(np.concatenate([m for m, _ in qkv], axis=1)),
                    np.concatenate([b for _, b in qkv]),
                    *linear(f"{p}attention.output.dense"),
                    norm(f"{p}attention.output.LayerNorm"),
                    *linear(f"{p}intermediate.dense"),
                    *linear(f"{p}output.dense"),
                    norm(f"{p}output.LayerNorm"),
                )
            )

    @property
    def dimension(self) -> int:
        return self.hidden

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def encode(self, texts: list[str]) -> np.ndarray:
        """L2-normalised vectors, one row per text, truncated at ``max_tokens`` word pieces like the original."""
        if not texts:
            return np.zeros((0, self.hidden), np.float32)
        ids_list = []
        for encoding in self.tokenizer.encode_batch(texts):
            ids = encoding.ids
            if len(ids) > self.max_tokens:  # keep [CLS] + the first pieces, end with [SEP]
                ids = ids[: self.max_tokens - 1] + ids[-1:]
            ids_list.append(ids)
        length = max(len(ids) for ids in ids_list)
        ids = np.zeros((len(texts), length), np.int64)
        mask = np.zeros((len(texts), length), np.float32)
        for row, token_ids in enumerate(ids_list):
            ids[row, : len(token_ids)] = token_ids
            mask[row, : len(token_ids)] = 1.0
        hidden = self._forward(ids, mask)
        pooled = (hidden * mask[..., None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        return (pooled / np.linalg.norm(pooled, axis=1, keepdims=True)).astype(np.float32, copy=False)

    def _norm(self, x: np.ndarray, weight_bias: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        mean = x.mean(axis=-1, keepdims=True)
        centred = x - mean
        var = (centred * centred).mean(axis=-1, keepdims=True)
        return centred / np.sqrt(var + self.eps) * weight_bias[0] + weight_bias[1]

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        batch, length = ids.shape
        heads, width = self.heads, self.hidden // self.heads
        x = (self.word[ids] + self.position[:length] + self.token_type).reshape(batch * length, self.hidden)
        x = self._norm(x, self.embed_norm)
        # Padding gets a large negative score, so softmax gives it no weight.
        bias = ((mask[:, None, None, :] - 1.0) * 1e9).astype(np.float32)
        scale = np.float32(1.0 / np.sqrt(width))
        for layer in self.layers:
            qkv = x @ layer.qkv_w + layer.qkv_b
            q, k, v = (
                qkv[:, i * self.hidden : (i + 1) * self.hidden].reshape(batch, length, heads, width) for i in range(3)
            )
            scores = np.matmul(q.transpose(0, 2, 1, 3), k.transpose(0, 2, 3, 1)) * scale + bias
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context = np.matmul(scores, v.transpose(0, 2, 1, 3)).transpose(0, 2, 1, 3).reshape(batch * length, -1)
            x = self._norm(context @ layer.out_w + layer.out_b + x, layer.norm1)
            up = x @ layer.up_w + layer.up_b
            up = 0.5 * up * (1.0 + self._erf(up * np.float32(1.0 / np.sqrt(2.0))))  # exact GELU, as BERT uses
            x = self._norm(up @ layer.down_w + layer.down_b + x, layer.norm2)
        return x.reshape(batch, length, self.hidden)


def load_numpy_encoder(folder: Path) -> NumpyBertEncoder | None:
    """The numpy encoder for a sentence-transformers folder it can run exactly, else None (reason logged)."""
    reason = _unsupported_reason(folder)
    if reason:
        log.info("encoding questions with sentence-transformers: %s", reason)
        return None
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    st_config = _read_json(folder / "sentence_bert_config.json")
    max_tokens = min(int(st_config.get("max_seq_length") or 512), int(config["max_position_embeddings"]))
    try:
        return NumpyBertEncoder(folder, config, max_tokens)
    except Exception as exc:  # a damaged file: sentence-transformers will say what is wrong, or manage
        log.info("encoding questions with sentence-transformers: %s", exc)
        return None


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _unsupported_reason(folder: Path) -> str:
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
