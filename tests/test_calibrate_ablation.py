"""The per-check ablation of eval.calibrate: tallies from made-up verdicts, and real checks on a tiny abstract."""

from __future__ import annotations

from eval.calibrate import Claim, Prepared, firing, per_set, tally
from rag.settings import VerifyPolicy
from rag.text import sentence_spans


def _claim(kind: str, supported: bool, n: int = 0) -> Claim:
    return Claim(f"t{n}", "dev", kind, supported, "text", "a")


def test_a_faithful_claim_rejected_by_one_check_is_a_cost_it_alone_carries():
    claims = [_claim("paraphrase", True)]
    table = tally(claims, [{"polarity"}], ["polarity", "scope"])
    assert table["polarity"].costs == {"paraphrase": 1}
    assert table["polarity"].sole_costs == {"paraphrase": 1}
    assert table["scope"].costs == {}


def test_a_faithful_claim_rejected_by_two_checks_costs_both_but_neither_alone():
    table = tally([_claim("summary", True)], [{"polarity", "scope"}], ["polarity", "scope"])
    assert table["polarity"].costs == table["scope"].costs == {"summary": 1}
    assert table["polarity"].sole_costs == table["scope"].sole_costs == {}


def test_only_an_unsupported_claim_caught_by_one_check_is_its_unique_catch():
    claims = [_claim("overclaim", False, 1), _claim("overclaim", False, 2), _claim("wrong_scope", False, 3)]
    table = tally(claims, [{"overclaim"}, {"overclaim", "scope"}, set()], ["overclaim", "scope"])
    assert table["overclaim"].unique == {"overclaim": 1}
    assert table["scope"].unique == {}
    assert table["overclaim"].costs == {}  # catching unsupported claims costs nothing


ABSTRACT = ("We introduce Lumen, a benchmark of 40 tasks for reading charts. "
            "Fine-tuning on synthetic charts improves accuracy on real charts.")  # fmt: skip


def _prepared(claim: str, kind: str, supported: bool, best: int) -> Prepared:
    spans = sentence_spans(ABSTRACT)
    sims = [0.9 if k == best else 0.2 for k in range(len(spans))]
    return Prepared(Claim("t", "dev", kind, supported, claim, "a"), ABSTRACT, spans, sims)


def test_firing_names_the_number_check_for_a_changed_count_and_nothing_for_a_restatement():
    prepared = [_prepared("Lumen is a benchmark of 40 chart reading tasks.", "paraphrase", True, 0),
                _prepared("We introduce Lumen, a benchmark of 50 tasks for reading charts.", "number_changed", False, 0)]  # fmt: skip
    fired = firing(prepared, VerifyPolicy())
    assert fired[0] == set()
    assert "numbers" in fired[1]


def test_firing_reports_the_support_threshold_for_an_unrelated_claim():
    fired = firing([_prepared("Protein folding is solved by diffusion models.", "wrong_paper", False, 1)], VerifyPolicy())
    assert fired[0] == {"support"}


class _FakeVerdict:
    def __init__(self, verified: bool) -> None:
        self.verified = verified


def test_per_set_groups_claims_by_the_first_letter_of_their_id():
    def item(cid: str, supported: bool, verified: bool, split: str = "dev"):
        return Prepared(Claim(cid, split, "k", supported, "t", "a"), "", [], []), _FakeVerdict(verified)

    judged = [item("a1", True, True), item("a2", True, False), item("a3", False, False), item("b1", False, True),
              item("b2", True, True, split="test")]  # fmt: skip
    assert per_set(judged) == {"a": (1, 2, 1, 1), "b": (0, 0, 0, 1)}
