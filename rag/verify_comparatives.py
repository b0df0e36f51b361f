"""The words of comparison and change, each with the dimension it speaks of and its sign: comparative verbs
("outperforms", "lags"), comparative adjectives ("faster than") and words of change or degree ("reduces",
"higher"). The direction check (rag/verify_direction.py) reads them; clause splitting (a verb of result starts a
second predicate) and the novelty check (these words are not new details) use them too. Word lists only.
"""

from __future__ import annotations

# Comparative verbs: +1 "A <verb> B" means A is better; -1 means B is.
COMPARE_VERBS = {"outperform": 1, "surpass": 1, "beat": 1, "exceed": 1, "outpac": 1, "outscor": 1, "outrank": 1,
                  "overtak": 1, "dominat": 1, "underperform": -1, "trail": -1, "lag": -1}  # fmt: skip
VERB_PREFIXES = tuple(COMPARE_VERBS)  # matched against the stem and the word ("dominates" stems to "domin")
# Comparative adjectives before "than"/"to": (dimension, sign).
COMPARATIVES = {
    "better": ("good", 1), "worse": ("good", -1), "superior": ("good", 1), "inferior": ("good", -1),
    "higher": ("amount", 1), "lower": ("amount", -1), "more": ("amount", 1), "less": ("amount", -1),
    "fewer": ("amount", -1), "greater": ("amount", 1), "larger": ("amount", 1), "smaller": ("amount", -1),
    "faster": ("speed", 1), "slower": ("speed", -1), "stronger": ("strength", 1), "weaker": ("strength", -1),
    "longer": ("length", 1), "shorter": ("length", -1), "cheaper": ("cost", -1), "costlier": ("cost", 1),
    "closer": ("distance", -1), "nearer": ("distance", -1), "farther": ("distance", 1), "easier": ("difficulty", -1),
    "harder": ("difficulty", 1), "simpler": ("complexity", -1),
    "bigger": ("amount", 1), "deeper": ("depth", 1), "shallower": ("depth", -1), "wider": ("width", 1),
    "narrower": ("width", -1), "denser": ("density", 1), "sparser": ("density", -1),
}  # fmt: skip
# Words of change or degree: (dimension, sign). The same dimension with the other sign is the opposite claim.
TRENDS = {
    "increas": ("amount", 1), "decreas": ("amount", -1), "reduc": ("amount", -1), "rais": ("amount", 1),
    "rise": ("amount", 1), "grow": ("amount", 1), "boost": ("amount", 1), "drop": ("amount", -1),
    "declin": ("amount", -1), "shrink": ("amount", -1), "diminish": ("amount", -1), "lower": ("amount", -1),
    "higher": ("amount", 1), "more": ("amount", 1), "less": ("amount", -1), "fewer": ("amount", -1),
    "larger": ("amount", 1), "smaller": ("amount", -1), "greater": ("amount", 1), "high": ("amount", 1),
    "low": ("amount", -1), "improv": ("quality", 1), "degrad": ("quality", -1), "wors": ("quality", -1),
    "worsen": ("quality", -1), "hurt": ("quality", -1), "harm": ("quality", -1), "better": ("quality", 1),
    "worse": ("quality", -1), "enhanc": ("quality", 1), "impair": ("quality", -1), "faster": ("speed", 1),
    "slower": ("speed", -1), "acceler": ("speed", 1), "slow": ("speed", -1), "speed": ("speed", 1),
    "maxim": ("extreme", 1), "minim": ("extreme", -1), "overestim": ("estimate", 1), "underestim": ("estimate", -1),
    "gain": ("gain", 1), "loss": ("gain", -1), "posit": ("sign", 1), "negat": ("sign", -1),
    "strengthen": ("strength", 1), "weaken": ("strength", -1), "stronger": ("strength", 1),
    "weaker": ("strength", -1), "outperform": ("good", 1), "underperform": ("good", -1), "superior": ("good", 1),
    "inferior": ("good", -1), "earlier": ("time", -1), "later": ("time", 1), "wider": ("width", 1),
    "narrower": ("width", -1), "upper": ("amount", 1), "above": ("amount", 1), "below": ("amount", -1),
    "amplif": ("amount", 1), "suppress": ("amount", -1), "attenu": ("amount", -1), "dampen": ("amount", -1),
    "upweight": ("weight", 1), "up-weight": ("weight", 1), "downweight": ("weight", -1), "down-weight": ("weight", -1),
    "expand": ("amount", 1), "closer": ("distance", -1), "farther": ("distance", 1), "easier": ("difficulty", -1),
    "harder": ("difficulty", 1), "simpler": ("complexity", -1),
}  # fmt: skip
