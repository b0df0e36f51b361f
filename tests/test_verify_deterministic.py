"""A rejected claim gets the same reason on every run: the checks do not follow a set's order, which changes with
Python's hash seed from one process to the next."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

_SCRIPT = """
from tests.support.fake_similarity import check_with_fake_similarity
abstract = "In non-stationary environments with sparse rewards, agents learn social cues without a dedicated mechanism."
claim = "In stationary environments with dense rewards, agents learn social cues without a dedicated mechanism."
print(check_with_fake_similarity(abstract, claim).reason)
"""


def _reason(seed: int) -> str:
    env = {**os.environ, "PYTHONHASHSEED": str(seed), "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", _SCRIPT], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=120, check=True)  # fmt: skip
    return done.stdout.strip()


def test_a_claim_with_two_opposites_gets_the_same_reason_whatever_the_hash_seed():
    reasons = {_reason(seed) for seed in range(1, 9)}
    assert len(reasons) == 1, reasons
    assert next(iter(reasons))  # it is rejected, with a reason
