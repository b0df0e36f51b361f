"""The result of asking a question: one type used by the CLI, the UI and the eval runner."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Literal

from rag.corpus import Abstract

Backend = Literal["extractive", "ollama"]
# What a sentence's citation vouches for, and nothing more: "quoted" is the exact text of the cited abstract (an
# extractive answer); "supported"/"unsupported" is the verifier's verdict on a generated sentence. Neither says the
# sentence answers the question.
SupportLabel = Literal["quoted", "supported", "unsupported"]


@dataclass(slots=True)
class Citation:
    """One ``[n]`` on a sentence: which source, how well it supports the sentence, and where the evidence is."""

    number: int  # 1-based index into Answer.sources
    abstract_id: str
    support: float  # 0..1 support score of the sentence by this abstract
    evidence_start: int  # character offsets of the best supporting sentence in the abstract text
    evidence_end: int


@dataclass(slots=True)
class AnswerSentence:
    text: str  # the sentence without its citation markers
    citations: list[Citation] = field(default_factory=list)
    verified: bool = False  # at least one citation backs it (quoted, or supported by the verifier)
    note: str = ""  # e.g. "re-cited from [2] to [1]" or "unsupported"
    support_label: SupportLabel | None = None  # None: "supported" when verified, else "unsupported"
    reason: str = ""  # when unsupported: why the cited abstract does not support it, readable by a person

    def __post_init__(self) -> None:
        if self.support_label is None:
            self.support_label = "supported" if self.verified else "unsupported"

    @property
    def label_text(self) -> str:
        """The label as a person reads it: "quoted", "supported", or "unsupported: <reason>"."""
        if self.support_label == "unsupported" and self.reason:
            return f"unsupported: {self.reason}"
        return self.support_label


@dataclass(slots=True)
class Source:
    number: int
    abstract: Abstract

    def to_dict(self) -> dict:
        return {"number": self.number, **self.abstract.to_dict()}


@dataclass(slots=True)
class Timings:
    retrieve_s: float = 0.0
    generate_s: float = 0.0
    verify_s: float = 0.0
    total_s: float = 0.0
    first_token_s: float | None = None


@dataclass(slots=True)
class Answer:
    question: str
    text: str  # the answer with its [n] markers, as shown to the user
    sentences: list[AnswerSentence]
    sources: list[Source]
    abstained: bool
    backend: Backend
    model: str | None
    timings: Timings = field(default_factory=Timings)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    standalone_question: str | None = None  # the follow-up rewritten to stand alone, when it was rewritten
    notices: list[str] = field(default_factory=list)  # e.g. "Ollama is not running; answered extractively"
    nearest: list[Source] = field(default_factory=list)  # when abstaining: the closest abstracts
    interrupted: bool = False  # generation stopped part-way; text holds what arrived
    abstention_score: float = 0.0  # 0..1, higher = more likely to abstain (computed for every question)
    reason: str = ""  # why it abstained (empty when it answered)
    shape: str = ""  # the question's shape (fact, number, name, list, compare, summary, how_why, yes_no, followup)
    suggestions: list[str] = field(default_factory=list)  # "did you mean" names for mistyped ones
    abstention_features: dict[str, float] = field(default_factory=dict)  # the signals behind abstention_score

    @property
    def cited_ids(self) -> list[str]:
        seen: list[str] = []
        for sentence in self.sentences:
            for c in sentence.citations:
                if c.abstract_id not in seen:
                    seen.append(c.abstract_id)
        return seen

    @property
    def verified_share(self) -> float:
        return sum(s.verified for s in self.sentences) / len(self.sentences) if self.sentences else 0.0

    @property
    def label_counts(self) -> dict[str, int]:
        """How many sentences are quoted, supported and unsupported (zero counts left out)."""
        counts = {label: 0 for label in ("quoted", "supported", "unsupported")}
        for sentence in self.sentences:
            counts[sentence.support_label] += 1
        return {k: v for k, v in counts.items() if v}

    @property
    def tokens_per_s(self) -> float | None:
        if self.completion_tokens and self.timings.generate_s > 0:
            return self.completion_tokens / self.timings.generate_s
        return None

    def to_dict(self) -> dict:
        return {
            "question": self.question,
            "standalone_question": self.standalone_question,
            "answer": self.text,
            "abstained": self.abstained,
            "backend": self.backend,
            "model": self.model,
            "sentences": [
                {
                    "text": s.text,
                    "support_label": s.support_label,
                    "reason": s.reason,
                    "verified": s.verified,
                    "note": s.note,
                    "citations": [asdict(c) for c in s.citations],
                }
                for s in self.sentences
            ],
            "sources": [s.to_dict() for s in self.sources],
            "nearest": [s.to_dict() for s in self.nearest],
            "cited_ids": self.cited_ids,
            "verified_share": round(self.verified_share, 4),
            "support_labels": self.label_counts,
            "timings": {k: (None if v is None else round(v, 4)) for k, v in asdict(self.timings).items()},
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "tokens_per_s": None if self.tokens_per_s is None else round(self.tokens_per_s, 2),
            "notices": self.notices,
            "interrupted": self.interrupted,
            "abstention_score": round(self.abstention_score, 4),
            "reason": self.reason,
            "shape": self.shape,
            "suggestions": self.suggestions,
            "abstention_features": {k: round(v, 4) for k, v in self.abstention_features.items()},
        }


@dataclass(slots=True)
class TextDelta:
    """A piece of streamed answer text."""

    text: str


StreamEvent = TextDelta | Answer  # a stream yields TextDelta pieces and ends with the verified Answer


@dataclass(slots=True)
class BackendStatus:
    """What answering will use right now, and how to enable generation when it is unavailable."""

    ollama_reachable: bool
    ollama_host: str
    models: list[str]
    backend: Backend  # what "auto" resolves to
    model: str | None
    message: str
