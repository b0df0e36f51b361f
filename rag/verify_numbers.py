"""The numbers check: every number of the claim is one the abstract gives, for the same thing. Pure text.

Catches: a number the abstract does not state; the abstract's value in another unit ("45 ms" for "45%"); a count
the abstract gives for something else ("4 benchmarks" where it has "11 benchmarks" and "4 corpora"); a number of
the abstract put where it gives another number (the words around it match another number's clearly better); a
bound turned round ("more than 50%" for "up to 50%"); asymptotic bounds and fractions with a Greek letter that
differ once LaTeX is normalised ("O(n log n)" for "O(log n)"). Accepts a number the claim derives from two of one
sentence (a difference in the same unit, a ratio for a factor) and an estimate within tolerance ("about 30%").

Cannot catch: a number attached to another quantity when the words around it are paraphrased away; a count in
words with nothing the abstract counts the same way ("three of the tasks" where the abstract counts no tasks); a
number put in the wrong place when it is an estimate ("about 30") or written in words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from rag.text import NUMBER_WORDS as _NUMBER_WORDS
from rag.verify_tokens import CheckContext, Token, is_content, stem, stems_of, tokenize

_SCALE = {"thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "billion": 1e9, "b": 1e9, "trillion": 1e12, "t": 1e12}
_UNITS = {
    "%": "%", "percent": "%", "percentage": "%", "pp": "%", "points": "%", "point": "%",
    "x": "x", "×": "x", "times": "x", "fold": "x",
    "ms": "ms", "milliseconds": "ms", "s": "s", "sec": "s", "seconds": "s", "second": "s", "minutes": "min",
    "min": "min", "hours": "h", "hour": "h", "h": "h", "days": "d", "day": "d",
    "gb": "GB", "mb": "MB", "tb": "TB", "kb": "KB", "gpus": "GPU", "gpu": "GPU",
}  # fmt: skip
_NUM = re.compile(
    r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)(?:\s*(%|×|x\b|-?fold\b|[KMBTkmb]\b))?(?:\s*-?\s*(percent(?:age)?|points?|pp|times"
    r"|fold|thousand|million|billion|trillion|ms|milliseconds|seconds?|sec|min(?:utes)?|hours?|h|days?|[GMTK]B"
    r"|GPUs?)\b)?"
)


@dataclass(frozen=True, slots=True)
class Quantity:
    value: float
    unit: str  # normalized unit or ""
    text: str
    counted: frozenset[str] = frozenset()  # stems of the words right after it: "five broad classes" -> broad, class
    bound: str = ""  # "lower" (over, at least, more than), "upper" (up to, at most, below), "approx" (about), ""
    bound_text: str = ""  # the words that make it one: "more than"
    decimals: int = 0  # digits after the point as written ("21.9" -> 1), for a rounded restatement
    start: int = -1  # where a number written in digits stands in the text (-1 for words)


_COUNTED_WORDS = 2


def _counted_after(tokens: Sequence[Token], end: int) -> frozenset[str]:
    after = [t for t in tokens if t.start >= end and not t.is_punct][: _COUNTED_WORDS + 1]
    return frozenset(s for t in after if is_content(t) and not _PLAIN_NUMBER.match(t.lower) for s in stems_of(t))


_PLAIN_NUMBER = re.compile(r"^[\d.,]+%?$")  # "12", "0.5": not "1b-scale", which describes what is counted


# The words before a number that make it a bound or an estimate ("more than 50%", "up to 3x", "about 30").
_BOUND_WORDS: dict[tuple[str, ...], str] = {
    ("more", "than"): "lower", ("over",): "lower", ("above",): "lower", ("at", "least"): "lower",
    ("exceeding",): "lower", ("exceeds",): "lower", ("beyond",): "lower", ("greater", "than"): "lower",
    ("no", "fewer", "than"): "lower", ("no", "less", "than"): "lower", (">",): "lower", ("≥",): "lower",
    ("up", "to"): "upper", ("at", "most"): "upper", ("below",): "upper", ("under",): "upper",
    ("less", "than"): "upper", ("fewer", "than"): "upper", ("no", "more", "than"): "upper", ("within",): "upper",
    ("<",): "upper", ("≤",): "upper",
    ("about",): "approx", ("roughly",): "approx", ("around",): "approx", ("approximately",): "approx",
    ("nearly",): "approx", ("almost",): "approx", ("~",): "approx", ("∼",): "approx", ("≈",): "approx",
    ("close", "to"): "approx", ("some",): "approx", ("circa",): "approx",
}  # fmt: skip
_BOUND_SPAN = max(len(k) for k in _BOUND_WORDS)
# Multiplying words read as a factor ("doubles" = 2x), so "2x" in the abstract agrees with "twice" in the claim.
_FACTOR_WORDS = {"twice": 2.0, "double": 2.0, "doubles": 2.0, "doubled": 2.0, "doubling": 2.0, "triple": 3.0,
                 "triples": 3.0, "tripled": 3.0, "tripling": 3.0, "quadruple": 4.0, "quadruples": 4.0,
                 "quadrupled": 4.0, "halve": 0.5, "halves": 0.5, "halved": 0.5, "halving": 0.5}  # fmt: skip
_FRACTION_WORDS = {"half": 0.5, "halves": 0.5, "third": 1 / 3, "thirds": 1 / 3, "quarter": 0.25, "quarters": 0.25,
                   "fourth": 0.25, "fourths": 0.25, "fifth": 0.2, "fifths": 0.2, "tenth": 0.1, "tenths": 0.1}  # fmt: skip


def bound_before(text: str, start: int) -> tuple[str, str]:
    """Whether the number at ``start`` is a lower or upper bound or an estimate, from the words right before it:
    ('lower', 'more than'), ('upper', 'up to'), ('approx', 'about') or ('', '')."""
    before = re.findall(r"[A-Za-z]+|[<>≤≥~∼≈]", text[max(0, start - 24) : start].lower().replace("\\sim", "~"))
    for n in range(_BOUND_SPAN, 0, -1):
        if len(before) >= n and tuple(before[-n:]) in _BOUND_WORDS:
            return _BOUND_WORDS[tuple(before[-n:])], " ".join(before[-n:])
    return "", ""


def _fraction_value(word: str) -> float | None:
    """'three-quarters' -> 0.75, 'one-third' -> 1/3, 'two thirds' is read from its hyphenated form only."""
    head, _, rest = word.partition("-")
    if rest in _FRACTION_WORDS:
        count = 1.0 if head in ("one", "a") else _NUMBER_WORDS.get(head)
        return round(count * _FRACTION_WORDS[rest], 6) if count else None
    return None


_MATH_NUMBER = re.compile(r"\$\s*\d{1,3}(?:\s*(?:\{,\}|,)\s*\d{3})+\s*\$")
_MATH_SEPARATOR = re.compile(r"\s*(?:\{,\}|,)\s*")


def _math_thousands(text: str) -> str:
    """A number alone in LaTeX math with its thousands separated ('$7, 402$', '$12{,}500$': LaTeX prints 7,402)
    written '7,402', padded with spaces so that every offset stays where it was."""
    def one(m: re.Match[str]) -> str:
        number = _MATH_SEPARATOR.sub(",", m.group(0)[1:-1].strip())
        return f" {number}".ljust(len(m.group(0)))

    return _MATH_NUMBER.sub(one, text) if "$" in text else text


@lru_cache(maxsize=20_000)
def quantities(text: str) -> tuple[Quantity, ...]:
    """Numbers written in ``text`` with their scale and unit: '1.2M' = 1,200,000; '45 percent' = 45 %; the bound
    before each ('more than 50%') and a factor or fraction in words ('doubles' = 2x, 'three-quarters' = 75%)."""
    found: list[Quantity] = []
    text = _math_thousands(text)
    tokens = tokenize(text)
    # Digits inside a name ("GPT-4o", "CIFAR-100", "Llama-3.1") are the name's, which the names check compares.
    in_names = [(t.start, t.end) for t in tokens if t.text[:1].isalpha() and any(c.isdigit() for c in t.text)]
    for m in _NUM.finditer(text):
        if any(start < m.start(1) < end for start, end in in_names):
            continue
        if text[max(0, m.start(1) - 2) : m.start(1)].endswith(("^", "^{")):
            continue  # an exponent ("$R^2$", "$n^{3}$"): part of a symbol, not a quantity
        if not (m.group(2) or m.group(3)) and text[m.end(1) : m.end(1) + 1].isalpha():
            continue  # "3D", "2nd": a term, not a quantity (the names check compares it)
        try:
            value = float(m.group(1).replace(",", ""))
        except ValueError:
            continue
        unit = ""
        for part in (m.group(2), m.group(3)):
            if not part:
                continue
            key = part.lower().lstrip("-").strip()
            if key in _SCALE and not (key in ("m", "b", "k", "t") and part.islower() and key != "k"):
                value *= _SCALE[key]
            elif key in _UNITS:
                unit = _UNITS[key]
        end = m.end()
        latex = re.match(r"\s*\$?\s*\\(%|times\b)", text[end:])  # LaTeX "$50\\%$", "$6\\times$"
        if not unit and latex:
            unit, end = ("%" if latex.group(1) == "%" else "x"), end + latex.end()
        decimals = len(m.group(1).partition(".")[2])
        counted = _counted_after(tokens, end)
        joined = re.match(r"-([A-Za-z]{3,})", text[m.end() :])
        if joined:  # "a 310-prompt benchmark" counts prompts
            counted |= {stem(joined.group(1).lower())}
        found.append(Quantity(round(value, 6), unit, m.group(0).strip(), counted,
                              *bound_before(text, m.start()), decimals, m.start()))  # fmt: skip
    for token in tokens:
        if not token.lower[:1].isalpha():
            continue
        bound = bound_before(text, token.start)
        following = next((t.lower for t in tokens if t.start >= token.end), "")  # "five percent", "ten times"
        unit = _UNITS[following] if following in ("percent", "%", "times", "fold") else ""
        if token.lower in _NUMBER_WORDS or (token.lower == "one" and unit):  # "one" alone is mostly a pronoun
            found.append(Quantity(float(_NUMBER_WORDS.get(token.lower, 1)), unit, token.text,
                                  _counted_after(tokens, token.end), *bound))  # fmt: skip
        if token.lower in _FACTOR_WORDS:
            found.append(Quantity(_FACTOR_WORDS[token.lower], "x", token.text, _counted_after(tokens, token.end),
                                  *bound))  # fmt: skip
        fraction = 0.5 if token.lower == "half" else _fraction_value(token.lower)
        if fraction is not None:
            found.append(Quantity(round(fraction * 100, 4), "%", token.text, _counted_after(tokens, token.end),
                                  *bound, 2))  # fmt: skip
            continue
        head, _, rest = token.lower.partition("-")
        if rest and head in _NUMBER_WORDS and rest.isalpha():  # "seven-family": seven, counting families
            counted = frozenset({stem(rest)}) | _counted_after(tokens, token.end)
            found.append(Quantity(float(_NUMBER_WORDS[head]), "", head, counted, *bound))
    return tuple(found)


_GREEK = {"epsilon": "ε", "varepsilon": "ε", "delta": "δ", "alpha": "α", "beta": "β", "gamma": "γ", "lambda": "λ",
          "mu": "μ", "sigma": "σ", "theta": "θ", "eta": "η", "rho": "ρ", "tau": "τ", "phi": "φ", "kappa": "κ",
          "omega": "ω", "pi": "π", "Theta": "Θ", "Omega": "Ω"}  # fmt: skip
_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_BIG_O = re.compile(r"(?<![A-Za-z])([OΘΩ]|\\Theta|\\Omega|\\mathcal\{O\})\s*\(")
_FRACTION = re.compile(r"(\([^()]*\)|[\w\u03b1-\u03c9]+)\s*/\s*(\([^()]*\)|[\w\u03b1-\u03c9]+)")


_SUPERSCRIPTS = str.maketrans({"\u00b2": "^2", "\u00b3": "^3", "\u00b9": "^1", "\u2070": "^0", "\u2074": "^4"})


def _math_normal(text: str) -> str:
    """LaTeX and plain math in one spelling: '$\\tfrac{1-\\epsilon}{2}$' reads '(1-ε)/(2)'."""
    text = text.translate(_SUPERSCRIPTS)  # "(log n)²" = "(\\log n)^2"
    text = text.replace("$", " ").replace("\\left", "").replace("\\right", "").replace("\\mathcal{O}", "O")
    text = text.translate(_SUPERSCRIPTS)  # "(log n)²" = "(log n)^2"
    text = _FRAC.sub(lambda m: f"({m.group(1)})/({m.group(2)})", text)
    text = re.sub(r"\\([A-Za-z]+)", lambda m: _GREEK.get(m.group(1), m.group(1)), text)
    text = re.sub(r"√\s*(\w+)", r"sqrt(\1)", text.replace("√(", "sqrt("))
    return text.replace("{", "(").replace("}", ")").replace("\u2212", "-")


def _expr_key(expr: str) -> str:
    """One spelling of an expression: no spaces, no brackets around a single term ('(1-ε)/(2)' -> '(1-ε)/2')."""
    key = re.sub(r"\s+", "", expr)
    return re.sub(r"(?<![A-Za-zΘΩ])\((\w+)\)", r"\1", key)


def _balanced(text: str, open_at: int) -> str | None:
    depth = 0
    for k in range(open_at, len(text)):
        depth += {"(": 1, ")": -1}.get(text[k], 0)
        if depth == 0:
            return text[open_at : k + 1]
    return None


def math_expressions(text: str) -> list[tuple[str, str]]:
    """(kind, key) for asymptotic bounds ('O(log n)') and fractions with a digit and a Greek letter ('(1-ε)/3'),
    after LaTeX is normalized."""
    norm = _math_normal(text)
    found = []
    for m in re.finditer(r"(?<![A-Za-z])([OΘΩ])\s*\(", norm):
        expr = _balanced(norm, m.end() - 1)
        if expr:
            found.append(("bound", _expr_key(m.group(1) + expr)))
    for m in _FRACTION.finditer(norm):
        expr = _expr_key(m.group(0))
        if re.search(r"\d", expr) and re.search(r"[α-ωΑ-Ω]", expr):
            found.append(("fraction", expr))
    return found


def _check_math(ctx: CheckContext) -> str | None:
    claim = math_expressions(ctx.claim)
    if not claim:
        return None
    abstract = math_expressions(ctx.abstract)
    written = {e for _, e in abstract}
    for kind, expr in claim:
        if expr in written:
            continue
        others = [e for k, e in abstract if k == kind]
        if others:
            return f"the abstract gives {others[0]}, not {expr}"
    return None


def _same_value(a: Quantity, q: Quantity, tolerance: float) -> bool:
    """The abstract's number ``a`` is the claim's ``q``: equal, or, when the claim marks it as an estimate ('about
    22 points', 'roughly 30%'), equal once rounded as the claim writes it or within ``tolerance`` of it."""
    if a.value == q.value:
        return True
    if {a.unit, q.unit} == {"", "%"} and max(a.decimals, q.decimals) <= 4:  # "0.91" and "91%"
        fraction, percent = (a, q) if a.unit == "" else (q, a)
        if 0 < fraction.value < 1 and round(fraction.value * 100, 6) == percent.value:
            return True
    if q.bound != "approx" or (a.unit and q.unit and a.unit != q.unit):
        return False
    if round(a.value, q.decimals) == q.value:
        return True
    return abs(a.value - q.value) <= tolerance * max(abs(a.value), abs(q.value))


def _in_words(q: Quantity) -> bool:
    return not q.text[:1].isdigit()


def _is_count(q: Quantity) -> bool:
    """A whole number of things ('14 benchmarks', 'five backbones'), which the words after it name."""
    return not q.unit and q.value == int(q.value) and q.value >= 2 and bool(q.counted)


_CONTEXT_WORDS = 4


@lru_cache(maxsize=20_000)
def number_contexts(text: str) -> tuple[tuple[Quantity, frozenset[str], frozenset[str]], ...]:
    """Each number written in digits with the content words that describe it: up to four before it and four after
    it, not reaching past another number or a ';' ("ROC-AUC 0.95 in-distribution, but drops to 0.87 for unseen
    molecules": 0.87 has 'in-distribution', 'drops' before it and 'unseen', 'molecules' after)."""
    tokens = tokenize(text)
    out = []
    # numbers in words too ("seven models", "seven-family"), placed by their token, so that "7 models" in a claim
    # finds its own number there rather than another number with similar words around it
    worded = [(q, t.start, t.end) for t in tokens for q in _word_number(t)]
    for q, start, end in [*((q, q.start, q.start + len(q.text)) for q in quantities(text) if q.start >= 0), *worded]:
        before: list[str] = []
        for t in reversed([t for t in tokens if t.end <= start]):
            if t.lower[:1].isdigit() or t.text == ";" or len(before) >= _CONTEXT_WORDS:
                break
            if t.content:
                before.append(t.stem)
        after: list[str] = []
        for t in (t for t in tokens if t.start >= end):
            if t.lower[:1].isdigit() or t.text == ";" or len(after) >= _CONTEXT_WORDS:
                break
            if t.content and t.lower not in _UNITS:
                after.append(t.stem)
        out.append((q, frozenset(before), frozenset(after)))
    return tuple(out)


def _word_number(token: Token) -> tuple[Quantity, ...]:
    """A count written in words, alone ("seven") or as the head of a hyphenated word ("seven-family")."""
    head = token.lower.partition("-")[0]
    if head not in _NUMBER_WORDS:
        return ()
    return (Quantity(float(_NUMBER_WORDS[head]), "", token.text),)


def _misplaced_number(ctx: CheckContext, q: Quantity) -> str | None:
    """A number of the abstract attached to what the abstract gives another number for: the words around it in the
    claim match those around another number of the abstract clearly better than those around any of its own."""
    claim = next(((b, a) for x, b, a in number_contexts(ctx.claim) if x.start == q.start), None)
    if claim is None or not (claim[0] or claim[1]):
        return None
    before, after = claim
    own, best, best_score = 0, None, 0
    for text in ctx.sentence_texts:
        for a, a_before, a_after in number_contexts(text):
            score = len(before & a_before) + len(after & a_after)
            if a.value == q.value:
                own = max(own, score)
            elif a.unit == q.unit and score > best_score and a.start >= 0:  # a count in words only as its own
                best, best_score = a, score
    if best is not None and best_score >= own + ctx.policy.number_context_margin:
        return f"the abstract gives {best.text} there, not {q.text}"
    return None


def check_numbers(ctx: CheckContext) -> str | None:
    math = _check_math(ctx)
    if math:
        return math
    claim_q = quantities(ctx.claim)
    if not claim_q:
        return None
    abstract_q = quantities(ctx.abstract)
    tolerance = ctx.policy.number_estimate_tolerance
    for q in claim_q:
        same = [a for a in abstract_q if _same_value(a, q, tolerance)]
        if not same and not _in_words(q) and _derived_number(ctx, q):
            continue  # "rises by 7.2 points" where the abstract gives 61.2% and 68.4%
        if not same:
            if _in_words(q):  # "three of the tasks", "doubles": only when the abstract gives another value for it
                if q.unit == "x":
                    other = next((a for a in abstract_q if a.unit == "x"), None)
                else:
                    other = next((a for a in abstract_q if a.counted & q.counted and a.unit == q.unit), None)
                if other is None:
                    continue
                return f"the abstract gives {other.text} {_counted_text(ctx, other)}, not {q.text}".replace("  ", " ")
            return f"the abstract does not state {q.text}"
        units = {a.unit for a in same}
        if q.unit and "" not in units and q.unit not in units:
            return f"the abstract gives {same[0].text}, not {q.text}"
        if _is_count(q) and not any(a.counted & q.counted for a in same):
            # The value is the abstract's, but it counts something else there ("4 benchmarks" where the abstract
            # has "11 benchmarks" and "4 corpora").
            other = next((a for a in abstract_q if _is_count(a) and a.counted & q.counted and a.value != q.value), None)
            if other is not None:
                return f"the abstract gives {other.text} {_counted_text(ctx, other)}, not {q.text}"
        misplaced = _misplaced_number(ctx, q) if q.start >= 0 and q.bound != "approx" else None
        if misplaced:
            return misplaced
        named = [a for a in same if a.counted & q.counted] or same
        if q.bound in ("lower", "upper") and all(a.bound in ("lower", "upper") and a.bound != q.bound for a in named):
            a = named[0]
            return f"the abstract says {a.bound_text} {a.text}, not {q.bound_text} {q.text}"
    return None


def _derived_number(ctx: CheckContext, q: Quantity) -> bool:
    """The claim's number is the difference of two numbers of one sentence of the abstract in the same unit ("a gain
    of 7.2 points" for "from 61.2% to 68.4%"), or their ratio for a factor ("3x faster" for "40 ms against 120 ms"),
    as the claim rounds it."""
    if q.value <= 0 or q.bound in ("lower", "upper"):
        return False
    for text in ctx.sentence_texts:
        numbers = [a for a in quantities(text) if a.start >= 0]
        for a, b in ((a, b) for i, a in enumerate(numbers) for b in numbers[i + 1 :]):
            if a.unit != b.unit or a.value == b.value:
                continue
            if q.unit == a.unit and round(abs(a.value - b.value), q.decimals) == q.value:
                return True
            low, high = sorted((a.value, b.value))
            if q.unit == "x" and low > 0 and round(high / low, q.decimals) == q.value:
                return True
    return False


def _counted_text(ctx: CheckContext, q: Quantity) -> str:
    """The words the abstract counts after ``q`` ('broad classes'), for the reason."""
    found = re.search(rf"(?<![\w.]){re.escape(q.text)}(?!\w)", ctx.abstract)
    if found is None:
        return ""
    at = found.start()
    after = [t for t in tokenize(ctx.abstract) if t.start >= at + len(q.text) and not t.is_punct][:_COUNTED_WORDS]
    return " ".join(t.text for t in after)
