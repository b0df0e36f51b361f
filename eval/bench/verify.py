"""Checking one generated sentence against its abstract (the eval claims), no model."""

from __future__ import annotations

from .measure import QUICK_QUERIES
from .targets import TARGETS


class VerifySection:
    """Bench step: claim checks."""

    def measure_verify(self) -> None:
        """Per-sentence claim checking on the seed index (the eval claims; MiniLM encoding + checks, no model)."""
        from ..calibrate import DEFAULT_CLAIMS, load_claims, timing

        try:
            claims = load_claims(DEFAULT_CLAIMS, self.pipeline)
        except SystemExit as exc:  # another corpus than ./seeds: the claims name abstracts it does not have
            self.result["verify"] = {"skipped": f"eval/claims.jsonl does not fit this corpus ({exc})"}
            return
        if self.quick:
            claims = claims[:QUICK_QUERIES]
        policy = self.pipeline.settings.verify
        timing(claims[:5], self.pipeline, policy)  # warm: tokenizer caches, wordfreq's table
        p50, p95, checks_p95 = timing(claims, self.pipeline, policy)
        self.result["verify"] = {"claims": len(claims), "p50_ms": round(p50, 1), "p95_ms": round(p95, 1),
                                 "checks_alone_p95_ms": round(checks_p95, 1),
                                 "target_p95_ms": TARGETS["verify_p95_ms"]}  # fmt: skip
