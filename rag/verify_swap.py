"""The swap and roles checks: one term put in place of another, and two terms trading what is said of them.
Pure text; the crossing of roles and parts is measured in rag/verify_binding.py.

``check_swap`` catches a part of the claim that reads as a sentence (or a part of one) of the abstract with one
term (up to three words) replaced by a term the abstract uses elsewhere but not there, or by its listed opposite:
"we adapt A to X" said as "we adapt B to X", where B is the other method the abstract mentions; "early layers cause
X, late layers Y" said the other way round. Through ``_replaced_slot`` it also catches the term of one slot
replaced by a term the abstract never names ("on linear attention and state-space models" where the sentence has
"on linear attention and softmax attention models", "in social budgerigars" where it has "in social zebra
finches"), when both are terms (hyphenated, written as a name, or rare) filling the same slot.
``check_roles`` catches two terms of the evidence trading what is said of them ("A segments, B labels" for "B
segments, A labels"), two terms put in each other's place, and two parts of the claim that each mix what two parts
of the abstract say.

Never a swap: a term that stands for a name said before ("the model achieves ..." for "ZedNet achieves ..."); the
same comparison said the other way round ("B is outperformed by A"); another sentence that uses the claim's term
and says as much of the claim. Cannot catch: a swap phrased differently enough that the rest of the sentence does not match word for word; the
subject of a sentence renamed (a subject may be named many ways, so only an opposite or a hyphenated kind counts
there); a replaced slot filled with everyday words ("for a given model" for "for a fixed model" passes on purpose);
for roles, the misses of rag/verify_binding.py (terms from two different sentences in a one-part claim, a
"respectively" list, ...).
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher
from functools import lru_cache

from rag.text import _STOPWORDS
from rag.verify_binding import _key as _role_key
from rag.verify_binding import contrast_parts, crossed_parts, crossed_roles, exchanged_terms
from rag.verify_clauses import FRAGMENT_START, clauses, is_negated
from rag.verify_direction import _is_adverb, comparisons
from rag.verify_entities import _is_abbreviation
from rag.verify_novelty import _judged_elsewhere
from rag.verify_polarity import _ANTONYM_WORDS
from rag.verify_scope import SETTING_OPENERS
from rag.verify_tokens import (
    META_WORDS,
    CheckContext,
    Token,
    content_stems,
    derived,
    english_frequency,
    is_content,
    quote_text,
    stem,
)

_SWAP_MAX_WORDS = 3
_DISCOURSE = {stem(w) for w in "first second third finally moreover furthermore also further additionally "
              "specifically then next lastly overall together".split()}  # fmt: skip


def _swap_word(token: Token) -> bool:
    return is_content(token) and token.stem not in META_WORDS and token.stem not in _DISCOURSE


@lru_cache(maxsize=20_000)  # an abstract's sentences, against every part of every claim checked on it
def _swap_words_of(tokens: tuple[Token, ...]) -> tuple[tuple[Token, ...], frozenset[str]]:
    """The words of ``tokens`` that can trade places (_swap_word) and their stems."""
    words = tuple(t for t in tokens if _swap_word(t))
    return words, frozenset(t.stem for t in words)


def _matched(ops) -> int:
    return sum(op[2] - op[1] for op in ops if op[0] == "equal")


def _exchanged(inner, mine: Sequence[Token], theirs: Sequence[Token], sentence: Sequence[Token]) -> bool:
    """Terms of the sentence trading places in the claim ("from A to B" -> "from B to A"): what the claim leaves out
    at one place is exactly what it adds at another. Coordinated terms ("A and B" -> "B and A") say the same."""
    if len(inner) < 2:
        return False
    removed = sorted(t.stem for op in inner if op[0] in ("delete", "replace") for t in mine[op[1] : op[2]])
    added = sorted(t.stem for op in inner if op[0] in ("insert", "replace") for t in theirs[op[3] : op[4]])
    if not removed or removed != added:
        return False
    first, last = theirs[max(0, inner[0][3] - 1)], theirs[min(len(theirs) - 1, inner[-1][4])]
    at = [k for k, t in enumerate(sentence) if t is first or t is last]
    between = sentence[at[0] : at[-1] + 1] if at else []
    lo, hi = min(op[3] for op in inner), max(op[4] for op in inner)
    moved = [k for k, t in enumerate(sentence) if any(t is x for x in theirs[lo:hi])]
    span = sentence[moved[0] : moved[-1] + 1] if moved else []
    if len(removed) == 1 and any(t.lower == "of" for t in span) and not any(t.lower in _DIRECTED for t in span):
        return False  # "virus entry" for "entry of the virus": a compound turned round
    return not any(t.lower in ("and", "or", ",", "&", "nor") for t in between)


_DIRECTED = {"to", "from", "than", "over", "into", "versus", "vs", "against", "toward", "towards"}


def _parts(tokens: Sequence[Token]) -> set[str]:
    """Stems of the words, a hyphenated word by its parts ('late-middle' -> late, middl)."""
    out: set[str] = set()
    for t in tokens:
        if "-" in t.lower:
            out |= {stem(p) for p in t.lower.split("-") if p and p not in _STOPWORDS}
        else:
            out.add(t.stem)
    return out


# Terms that stand for a name said before ("the model achieves..." for "ZedNet achieves..."): never a swap.
_GENERIC = {stem(w) for w in "model framework approach system network algorithm architecture agent technique "
            "pipeline procedure estimator learner benchmark dataset variant tool solution design".split()}  # fmt: skip
_SWAP_OPPOSITES = (
    ("small", "large"), ("short", "long"), ("early", "late"), ("high", "low"), ("first", "last"), ("more", "less"),
    ("more", "fewer"), ("before", "after"), ("minimum", "maximum"), ("upper", "lower"), ("input", "output"),
    ("encoder", "decoder"), ("positive", "negative"), ("increase", "decrease"), ("strong", "weak"), ("fast", "slow"),
    ("best", "worst"), ("easy", "hard"), ("amplify", "suppress"), ("small", "big"), ("coarse", "fine"),
    ("up", "down"), ("upweight", "downweight"), ("upsample", "downsample"), ("inner", "outer"), ("left", "right"),
    ("head", "tail"), ("top", "bottom"), ("begin", "end"), ("start", "end"), ("min", "max"),
)  # fmt: skip


@lru_cache(maxsize=1)
def _swap_opposites() -> frozenset[frozenset[str]]:
    return frozenset(frozenset((stem(a), stem(b))) for a, b in (*_SWAP_OPPOSITES, *_ANTONYM_WORDS))


def _said_elsewhere(ctx: CheckContext, mine: set[str], said: set[str], sentence: Sequence[Token]) -> bool:
    """Another sentence of the abstract uses the claim's term and says at least as much of the claim's part as the
    sentence it seemed to be swapped from ("A is more sample-efficient than B", said in the next sentence)."""
    here = len(mine & content_stems(sentence))
    for toks in ctx.sentence_tokens:
        if toks is sentence:
            continue
        stems = content_stems(toks) | _parts(toks)
        if said <= stems and len(mine & stems) >= max(here, ctx.policy.swap_min_share * len(mine)):
            return True
    return False


def _opposite_words(said: set[str], instead: set[str]) -> bool:
    return any(frozenset((x, y)) in _swap_opposites() for x in said for y in instead)


def _same_comparison(claim_clause: Sequence[Token], sentence: Sequence[Token]) -> bool:
    """The claim part compares the same two sides the same way as the sentence, in other words: "B is outperformed
    by A" or "B trails A" for "A outperforms B" (the sides trade places in the text, not in the comparison)."""
    for c in comparisons(claim_clause):
        for e in comparisons(sentence):
            same = len(c.near_better & e.near_better) + len(c.near_worse & e.near_worse)
            swapped = len(c.near_better & e.near_worse) + len(c.near_worse & e.near_better)
            if same >= 2 and not swapped and c.near_better & e.near_better and c.near_worse & e.near_worse:
                return True
    return False


def _replaced_term(ops, n_mine: int) -> tuple[int, int, int, int, str] | None:
    """The one term replaced: inside, with the ends free to differ; or at an end when nothing inside differs (the
    subject swapped: "B causes X" for "A causes X")."""
    inner = [op for k, op in enumerate(ops) if op[0] != "equal" and 0 < k < len(ops) - 1]
    replaced = [op for op in inner if op[0] == "replace"]
    # besides the term, at most one word added or left out elsewhere ("the most stable UQ family")
    extra = [op for op in inner if op[0] != "replace"]
    if len(replaced) == 1 and (not extra or (len(extra) == 1 and max(extra[0][2] - extra[0][1], extra[0][4] - extra[0][3]) == 1)):
        return (*replaced[0][1:], "inner")
    if inner:
        return None
    edges = [op for op in (ops[0], ops[-1]) if op[0] == "replace"]
    return (*edges[0][1:], "edge") if len(edges) == 1 and len(ops) > 1 else None


def _opposite_replaced(ops, mine, theirs, need: int, share: float) -> tuple[str, str] | None:
    """Where the part differs from the sentence in more than one place: a word replaced by its listed opposite
    ("up-weights already safe examples" for "down-weights already safe examples"), the rest matching as for a swap."""
    equal = _matched(ops)
    if equal < need or equal < share * (len(mine) - sum(op[2] - op[1] for op in ops if op[0] != "equal")):
        return None
    for op in ops:
        if op[0] != "replace" or op[2] - op[1] > _SWAP_MAX_WORDS or op[4] - op[3] > _SWAP_MAX_WORDS:
            continue
        said, instead = mine[op[1] : op[2]], theirs[op[3] : op[4]]
        said_p, instead_p = _parts(said) - _parts(instead), _parts(instead) - _parts(said)
        if any(frozenset((x, y)) in _swap_opposites() for x in said_p for y in instead_p):
            return " ".join(t.text for t in said), " ".join(t.text for t in instead)
    return None


def _modifier_swap(said, instead, mine, theirs, i2: int, j2: int) -> bool:
    """At the start of a part, a hyphenated modifier replaced before the same word ("reconstruction-based scores"
    for "probabilistic scores"): another kind of the same thing, not the subject named another way."""
    if i2 >= len(mine) or j2 >= len(theirs) or mine[i2].stem != theirs[j2].stem:
        return False
    adjacent = said[-1].end + 1 == mine[i2].start or said[-1].end == mine[i2].start
    return adjacent and any("-" in t.lower for t in said)


def check_swap(ctx: CheckContext) -> str | None:
    """A part of the claim reads as a sentence (or a part of one) of the abstract with one term (up to three words)
    replaced by a term the abstract uses elsewhere but not there, or by its opposite: "we adapt A to X" said as "we
    adapt B to X", where B is the other method the abstract mentions; "early layers cause X, late layers Y" said the
    other way round. A synonym the abstract never uses is left to the other checks."""
    need = ctx.policy.swap_min_context
    abstract_parts = _parts([t for t in ctx.abstract_tokens if is_content(t)])
    abstract_words = {w for t in ctx.abstract_tokens for w in (t.lower, *t.lower.split("-"))}
    claim_parts = _parts([t for t in ctx.claim_tokens if is_content(t)])
    for clause in clauses(ctx.claim_tokens):
        mine = [t for t in clause if _swap_word(t)]
        if len(mine) < need + 1:
            continue
        mine_parts = _parts(mine)
        mine_stems = {t.stem for t in mine}
        for toks, text in zip(ctx.sentence_tokens, ctx.sentence_texts, strict=True):
            if len(mine_stems & content_stems(toks)) < need:
                continue  # too little in common for one term swapped
            parts_of = clauses(toks)
            for k, unit in enumerate([toks, *(parts_of if len(parts_of) > 1 else [])]):
                theirs = [t for t in unit if _swap_word(t) and not (t.start and text[t.start - 1] == "\\")]
                if len(theirs) < need or len(mine_stems & {t.stem for t in theirs}) < need:
                    continue
                ops = SequenceMatcher(None, [t.stem for t in mine], [t.stem for t in theirs], autojunk=False).get_opcodes()
                inner = [op for j, op in enumerate(ops) if op[0] != "equal" and 0 < j < len(ops) - 1]
                if k == 0 and _exchanged(inner, mine, theirs, toks) and _matched(ops) >= need:
                    if _same_comparison(clause, toks):
                        continue  # "B is outperformed by A", "B trails A" for "A outperforms B": the direction check's
                    return f"the abstract says it the other way round: {quote_text(text)}"
                term = _replaced_term(ops, len(mine))
                if term is None:
                    flipped = _opposite_replaced(ops, mine, theirs, need, ctx.policy.swap_min_share)
                    if flipped and is_negated(clause) == is_negated(unit):  # "not robust" for "brittle" says the same
                        return f"the abstract says '{flipped[1]}' here, not '{flipped[0]}': {quote_text(text)}"
                    continue
                i1, i2, j1, j2, where = term
                equal = _matched(ops)
                if i2 - i1 > _SWAP_MAX_WORDS or j2 - j1 > _SWAP_MAX_WORDS:
                    continue
                if equal < need or equal < ctx.policy.swap_min_share * (len(mine) - (i2 - i1)):
                    continue
                said, instead = mine[i1:i2], theirs[j1:j2]
                said_p, instead_p = _parts(said) - _parts(instead), _parts(instead) - _parts(said)
                if not said_p or not instead_p or said_p & _parts(theirs) or instead_p & mine_parts:
                    continue
                if any(derived(x, y) for x in said_p for y in _parts(theirs)):
                    continue  # "reusable rules" for "reuses rules": the same word in another form
                if any(t.lower[0].isdigit() for t in (*said, *instead)) or instead_p & _GENERIC:
                    continue  # numbers are the numbers check's; "the model" may stand for the claim's name
                if any(_is_abbreviation(t) for t in (*said, *instead)):
                    continue  # "LMs" for "language models"
                if all(_is_adverb(t) for t in (*said, *instead)) and not _opposite_words(said_p, instead_p):
                    continue  # "reliably" for "consistently": how it holds, not what it is about
                if all(_judged_elsewhere(t) for t in (*said, *instead)) and not _opposite_words(said_p, instead_p):
                    continue  # "is better than" for "outperforms": comparison words are the direction check's
                opposite = _opposite_words(said_p, instead_p)
                if opposite and is_negated(clause) != is_negated(unit):
                    continue  # "is not robust" for "is brittle": the negation takes the opposite back
                kind = where == "edge" and _modifier_swap(said, instead, mine, theirs, i2, j2)
                if not opposite and ((where == "edge" and not kind) or not said_p <= abstract_parts - _parts(theirs)):
                    continue  # at an end of the part only an opposite counts (a subject may be named many ways)
                if not opposite and k > 0 and said_p & _parts(toks) and not instead_p <= claim_parts:
                    continue  # in one sentence, a swap is two terms trading places, not a synonym
                if not opposite and len(said) == 1 and "-" not in said[0].lower and said[0].lower not in abstract_words:
                    continue  # "spans" where the abstract has only "the span": another word (a verb), not its term
                if not opposite and _said_elsewhere(ctx, mine_stems, said_p, toks):
                    continue  # another sentence says the part with the claim's own term (a combined claim)
                a = " ".join(t.text for t in instead)
                b = " ".join(t.text for t in said)
                return f"the abstract says '{a}' here, not '{b}': {quote_text(text)}"
    return _replaced_slot(ctx)


_SLOT_SKIPPED = {"a", "an", "the", "its", "their", "our", "single"}


def _term_like(tokens: Sequence[Token], rare: float) -> bool:
    """A term rather than a word of the language: hyphenated ('state-space'), written as a name ('GPT-4o', 'ResNet'),
    or rare (Zipf below ``rare``: 'softmax', 'finches')."""
    return any("-" in t.lower for t in tokens) or _rare_or_named(tokens, rare)


def _raw_around(tokens: Sequence[Token], first: Token, last: Token) -> tuple[Token | None, Token | None]:
    """The word before a term (past articles: 'on the X' -> 'on') and the token after it."""
    i = next(k for k, t in enumerate(tokens) if t is first)
    j = next(k for k, t in enumerate(tokens) if t is last)
    k = i - 1
    while k > 0 and tokens[k].lower in _SLOT_SKIPPED:
        k -= 1
    return (tokens[k] if k >= 0 else None), (tokens[j + 1] if j + 1 < len(tokens) else None)


def _term_run(sentence: Sequence[Token], term: Sequence[Token]) -> list[Token]:
    """The sentence's term cut at its first function word or punctuation ('zebra finches' of 'zebra finches: it
    comprises ...'), for a claim that ends where the sentence goes on (given reversed: one that starts later)."""
    i = next(k for k, t in enumerate(sentence) if t is term[0])
    run = [sentence[i]]
    for t in sentence[i + 1 :]:
        if t.is_punct or not any(t is x for x in term) or len(run) == _SWAP_MAX_WORDS:
            break
        run.append(t)
    return run


def _rare_or_named(tokens: Sequence[Token], rare: float) -> bool:
    """A term by its form or rarity alone ('finches', 'ResNet'), not by a hyphen ('stand-ins' is a word of the
    language)."""
    return any(any(c.isupper() or c.isdigit() for c in t.text[1:]) or english_frequency(t.lower) < rare for t in tokens)


def _slot_frame(said, instead, claim_tokens, sentence, rare: float) -> bool:
    """The two terms fill the same slot: after the same setting word ('on', 'under', 'in'), or after the same
    'and'/'or', with the same head word after them or both ending their text there; or, as two hyphenated terms
    that share a part ('text-to-video' / 'text-to-image'), before the same head word; or after the same content word,
    both ending their text there and both rare or written as names ('in social budgerigars' / 'in social zebra
    finches:'; not 'imperfect stand-ins' / 'imperfect surrogates', a paraphrase's synonym)."""
    cb, ca = _raw_around(claim_tokens, said[0], said[-1])
    eb, ea = _raw_around(sentence, instead[0], instead[-1])
    if cb is None or eb is None:
        return False
    same_head = ca is not None and ea is not None and ca.content and ca.stem == ea.stem
    ends = (ca is None or ca.is_punct) and (ea is None or ea.is_punct)
    same_before = cb.lower == eb.lower
    if same_before and cb.lower in SETTING_OPENERS and (same_head or ends):
        return True
    if same_before and cb.lower in ("and", "or") and same_head:
        return True
    if same_before and cb.content and ends and _rare_or_named(said, rare) and _rare_or_named(instead, rare):
        return True
    a, b = said[0].lower, instead[0].lower
    shared_part = len(said) == len(instead) == 1 and "-" in a and "-" in b and set(a.split("-")) & set(b.split("-"))
    if shared_part and same_head:
        return True
    hyphenated = len(said) == len(instead) == 1 and "-" in a and "-" in b  # "fine-tuned" / "zero-shot": modifiers
    return hyphenated and same_head and _next_word(claim_tokens, said[-1], 2) == _next_word(sentence, instead[-1], 2) is not None


def _next_word(tokens: Sequence[Token], last: Token, k: int) -> str | None:
    """The stem of the k-th token after ``last`` when it is a content word."""
    i = next(j for j, t in enumerate(tokens) if t is last) + k
    return tokens[i].stem if i < len(tokens) and tokens[i].content else None


def _replaced_slot(ctx: CheckContext) -> str | None:
    """A part of the claim reads as a sentence of the abstract with the term of one slot replaced by another term:
    at least slot_min_context content words match in order around it, the claim's term is not in that sentence
    and the sentence's is not in the claim, both are terms (_term_like), and they fill the same slot
    (_slot_frame). Unlike check_swap, the claim's term need not occur elsewhere in the abstract: a dataset, species
    or model the abstract never names is as wrong as one it names in another role."""
    need = ctx.policy.slot_min_context
    rare = ctx.policy.slot_rare_zipf
    terms = {t.stem for t in ctx.claim_tokens if _swap_word(t) and _term_like((t,), rare)}
    if not terms:
        return None  # no term of the claim could be the replaced one
    claim_parts = _parts([t for t in ctx.claim_tokens if is_content(t)])
    found = clauses(ctx.claim_tokens)
    for clause in ([ctx.claim_tokens, *found] if len(found) > 1 else found):
        mine = [t for t in clause if _swap_word(t)]
        if len(mine) < need + 1:
            continue
        mine_stems = {t.stem for t in mine}
        for toks, text in zip(ctx.sentence_tokens, ctx.sentence_texts, strict=True):
            theirs, theirs_stems = _swap_words_of(tuple(toks))
            if len(mine_stems & theirs_stems) < need or not (mine_stems & terms) - theirs_stems:
                continue  # too little in common, or every term of the part is in the sentence
            sentence_parts = _parts(theirs)
            ops = SequenceMatcher(None, [t.stem for t in mine], [t.stem for t in theirs], autojunk=False).get_opcodes()
            equal = _matched(ops)
            for op in ops:
                if op[0] != "replace":
                    continue
                i1, i2, j1, j2 = op[1:]
                at_end, at_start = i2 == len(mine), i1 == 0
                if i2 - i1 > _SWAP_MAX_WORDS or (j2 - j1 > _SWAP_MAX_WORDS and not (at_end or at_start)):
                    continue
                if equal < need or equal < ctx.policy.slot_min_share * (len(mine) - (i2 - i1)):
                    continue
                said, instead = mine[i1:i2], theirs[j1:j2]
                if at_end:
                    instead = _term_run(toks, instead)
                elif at_start:
                    instead = _term_run(toks[::-1], instead[::-1])[::-1]
                said_p = _parts(said) - _parts(instead) - sentence_parts
                instead_p = _parts(instead) - _parts(said) - claim_parts
                if not said_p or not instead_p:
                    continue
                if any(t.lower[0].isdigit() for t in (*said, *instead)):
                    continue  # numbers are the numbers check's
                if any(t.lower.endswith("ing") for t in (said[0], instead[0])):
                    continue  # "without needing" for "without requiring": an action, not a slot's term
                if any(derived(x, y) for x in said_p for y in sentence_parts | instead_p):
                    continue
                if any(_judged_elsewhere(t) or _is_adverb(t) or _is_abbreviation(t) for t in (*said, *instead)):
                    continue  # comparison words are the direction check's; "LMs" for "language models"
                if not (_term_like(said, rare) and _term_like(instead, rare)):
                    continue  # "for a given model" for "for a fixed model": words of the language, not terms
                if not _slot_frame(said, instead, ctx.claim_tokens, toks, rare):
                    continue
                a = " ".join(t.text for t in instead)
                b = " ".join(t.text for t in said)
                return f"the abstract says '{a}' here, not '{b}': {quote_text(text)}"
    return None


def _fronted(tokens: Sequence[Token]) -> tuple[Token, ...]:
    """The content words of a setting put before the sentence's first comma ("At equal compute, ...", "On X, ..."):
    a restatement may move it to the other end of the sentence, which does not make it trade roles."""
    words = [t for t in tokens if t.text not in "()"]
    if not words or words[0].lower not in FRAGMENT_START:
        return ()
    end = next((k for k, t in enumerate(words) if t.is_punct), None)
    return tuple(t for t in words[:end] if t.content) if end is not None and end <= 10 else ()


def check_roles(ctx: CheckContext) -> str | None:
    """Two terms of the evidence trading what is said of them ("A segments, B labels" for "B segments, A labels")."""
    settings = frozenset(_role_key(t.stem) for toks in (ctx.claim_tokens, *ctx.evidence_tokens) for t in _fronted(toks))
    crossing = crossed_roles(
        ctx.claim_tokens,
        ctx.evidence_tokens,
        min_crossed_words=ctx.policy.roles_min_crossed_words,
        punct_weight=ctx.policy.roles_punctuation_distance,
        settings=settings,
    )
    if crossing is None or any(_same_comparison(c, toks) for c in clauses(ctx.claim_tokens) for toks in ctx.evidence_tokens):
        return _exchanged_terms(ctx) or _crossed_parts(ctx)  # "B is outperformed by A" for "A outperforms B" trades places, not roles
    quote = quote_text(" ".join(ctx.evidence_texts))
    return f"the abstract says of '{crossing.first}' what the claim says of '{crossing.second}' (and the other way round): {quote}"


def _exchanged_terms(ctx: CheckContext) -> str | None:
    """Two terms of the evidence put in each other's place ("under the latent pipeline ... under the pixel pipeline"
    for the other way round; rag/verify_binding.py)."""
    # the evidence as a whole, then each part of it (a term said twice in the sentence may be said once in a part)
    parts = [p for toks in ctx.evidence_tokens for p in contrast_parts(toks)]
    found = None
    for evidence in (ctx.evidence_tokens, *([p] for p in (parts if len(parts) > 1 else []))):
        found = exchanged_terms(
            ctx.claim_tokens,
            evidence,
            min_gain=ctx.policy.exchange_min_gain,
            min_share=ctx.policy.exchange_min_share,
            punct_weight=ctx.policy.roles_punctuation_distance,
        )
        if found is not None:
            break
    if found is None or any(_same_comparison(c, toks) for c in clauses(ctx.claim_tokens) for toks in ctx.evidence_tokens):
        return None  # "B is outperformed by A" for "A outperforms B": the same comparison
    quote = quote_text(" ".join(ctx.evidence_texts))
    return f"the abstract has '{found.second}' where the claim has '{found.first}' (and the other way round): {quote}"


def _crossed_parts(ctx: CheckContext) -> str | None:
    """Two parts of the claim that each mix what two parts of the abstract say (rag/verify_binding.py)."""
    parts, texts = [], []
    for toks, text in zip(ctx.sentence_tokens, ctx.sentence_texts, strict=True):
        for part in contrast_parts(toks):
            parts.append(part)
            texts.append(text)
    crossing = crossed_parts(ctx.claim_tokens, parts, ctx.policy.roles_min_crossed_words,
                             ctx.policy.crossed_parts_min_coverage)  # fmt: skip
    if crossing is None:
        return None
    a, b = crossing.evidence
    quote = quote_text(texts[a] if texts[a] == texts[b] else f"{texts[a]} … {texts[b]}", 300)
    return f"the claim mixes up what two parts of the abstract say ({', '.join(crossing.crossed[:4])}): {quote}"
