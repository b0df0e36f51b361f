"""What each sentence of an abstract does: background, gap, contribution, method, result or availability.

Cues general to scientific abstracts (not to this corpus): "we propose/introduce/present" states the contribution;
"existing/prior/recent ... however ... remain" sets the background or the gap; "outperforms/improves/achieves" and
percentages report results; URLs and "code is available" are availability lines; "we use/train/model/design"
describes the method. Position breaks ties: openings are usually background, endings results. Pure and fast.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

Role = Literal["background", "gap", "contribution", "method", "result", "availability"]
ROLES: tuple[Role, ...] = ("background", "gap", "contribution", "method", "result", "availability")

_AVAILABILITY = re.compile(
    r"https?://|www\.|github\.com|\b(?:code|data|dataset|benchmark|models?|weights|implementation|resources?)\b"
    r"[^.]{0,60}\b(?:is|are|will\s+be|have\s+been|has\s+been)\s+(?:publicly\s+|freely\s+|openly\s+)?"
    r"(?:available|released|open[- ]sourced)|\b(?:we|to)\s+(?:will\s+|also\s+|plan\s+to\s+)?(?:release|open[- ]source)\b|"
    # "available at <a link>", not "a resource available at the beginning of the horizon"
    r"\bavailable\s+(?:at|from|on|via)\s*:?\s*(?:\[|<|https?://|www\.|github|huggingface|\S+\.(?:com|org|io|net|ai|app)\b)",
    re.I,
)
_CONTRIBUTION = re.compile(
    r"\b(?:we|this\s+(?:paper|work|study)|here,?\s+we|in\s+this\s+(?:paper|work),?\s+we)\s+"
    r"(?:first\s+|also\s+|further\s+)?(?:propose|introduce|present|develop|design|build|construct|curate|release|"
    r"formulate|establish|offer|contribute|create|put\s+forward|describe|study|investigate|address|tackle|"
    r"provide|derive|prove|show\s+how)\b"
    r"|\b(?:to\s+(?:address|bridge|fill|close|tackle)\s+(?:this|these|the)\b)"
    r"|\bwe\s+(?:address|bridge|fill|close|tackle)\s+(?:this|these|the)\s+(?:\w+\s+)?(?:gaps?|challenges?|"
    r"limitations?|problems?|issues?)\s+(?:with|by|via|through)\b"
    # "FooNet, a graph learner that …" names the work; "Finally, a module …" is a discourse opener, not a name
    r"|^(?!(?:\w+ly|Then|Here|Thus|Hence|Moreover|However|Instead|First|Second|Third|Next|Also|Furthermore|"
    r"Overall|Together|Meanwhile|Therefore|Consequently|Additionally|Crucially|Similarly|Likewise|Conversely|"
    r"In\s+\w+|To\s+\w+)\b)(?-i:[A-Z][\w&+-]*(?:\s[A-Z][\w&+-]*)?),\s+(?:a|an|the)\s",
    re.I,
)
_RESULT = re.compile(
    r"\b(?:outperform\w*|improv\w*|achiev\w*|surpass\w*|reduc\w*(?!\s+(?:the|this|a|an)\s+(?:\w+\s+)?(?:problem|task)\b)|increas\w*|exceed\w*|yield\w*|gain\w*|"
    r"state-of-the-art|sota|significantly|consistently|experiments?\s+(?:show|demonstrate|reveal)|"
    r"results?\s+(?:show|demonstrate|reveal|indicate|suggest)|we\s+(?:find|found|observe|show|demonstrate)|"
    r"evaluat\w+\s+(?:on|across)|empirically|accuracy|speed-?up|by\s+up\s+to|(?:main|key|central|primary)\s+"
    r"findings?|reveal(?:s|ed)?\s+that|more\s+accurate|orders?[- ]of[- ]magnitude)\b|\d+(?:\.\d+)?\s*(?:%|×|x\b)",
    re.I,
)
_GAP = re.compile(
    r"\b(?:however|but|yet|remain\w*|lack\w*|limited|limitation\w*|fail\w*|struggl\w*|challeng\w*|unclear|"
    r"understudied|underexplored|overlook\w*|ignore\w*|costly|expensive|insufficient|bottleneck|unknown|brittle|"
    r"prone\s+to|suboptimal|falls?\s+short|"
    r"little\s+(?:is|work)|few\s+(?:works|studies|methods))\b",
    re.I,
)
_BACKGROUND = re.compile(
    r"\b(?:existing|prior|previous|current|recent|conventional|traditional|typically|commonly|widely|"
    r"increasingly|has\s+become|have\s+become|is\s+a\s+(?:key|fundamental|central|critical)|are\s+(?:widely|"
    r"increasingly|often))\b",
    re.I,
)
# A background cue counts near the sentence's start ("Existing methods …", "Recent work has …"), not in a clause
# about something else ("… adapts them to the current workflow").
_BACKGROUND_REACH = 60
_METHOD = re.compile(
    r"\b(?:we\s+(?:use|train|fine-tune|model|learn|leverage|employ|combine|compute|apply|encode|decompose|"
    r"optimi[sz]e|sample|construct|represent|formulate|parameteri[sz]e|map)|by\s+(?:\w+ing)\b|"
    r"(?:our|the)\s+(?:method|approach|framework|model|algorithm|key\s+idea|pipeline)\s+(?:\w+\s+){0,2}"
    r"(?:uses?|relies|leverages?|combines?|learns?|consists|works|builds|maps|treats)|consists\s+of|"
    r"based\s+on|via|through|using|which\s+(?:uses|learns|combines))\b",
    re.I,
)


# How the work does it, said without "we": "Specifically, FooNet combines…", "To do so, …", "FooNet leverages …",
# "the scores are aggregated into …". A sentence opening like this details the method, whatever words of
# limitation ("insufficient", "bottleneck") it goes on to use.
_HOW = re.compile(
    r"^(?i:specifically|concretely|to\s+(?:do\s+so|achieve\s+this)),"
    # the name as the subject (at the start, after a comma, "then", "and", "which"), not a modifier ("MoE models")
    r"|(?:^|[,;:]\s*|\b(?:then|and|which|first)\s+)(?:[A-Z][\w-]*[A-Z][\w-]*|[Ii]t)\s+(?:first\s+|then\s+|also\s+)?"
    r"(?:leverages|uses|employs|combines|learns|"
    r"encodes|decomposes|computes|applies|constructs|builds|trains|samples|aggregates|estimates|models|represents|"
    r"maps|injects|integrates)\b"
    r"|\b(?:is|are)\s+(?:then\s+|first\s+)?(?:aggregated|combined|computed|encoded|fed|mapped|projected|"
    r"decomposed|fused|passed|converted|injected)\s+(?:into|to|through|with|by|via)\b",
)


# "We further employ …", "Then, we train …", "To speed up decoding, we reuse …": the work describing a step of its
# method, even when the step is said to reduce or improve something ("…, which reduces the solver calls").
_METHOD_OPENER = re.compile(
    r"^(?:[^,]{0,80},\s+)?we\s+(?:also\s+|further\s+|then\s+|first\s+|additionally\s+|instead\s+)?(?:use|train|"
    r"fine-tune|employ|leverage|exploit|reuse|incorporate|combine|apply|adopt|encode|decompose|sample|represent|"
    r"parameteri[sz]e|map|inject|feed|compute|optimi[sz]e)\b",
    re.I,
)
_MEASURED = re.compile(r"\d+(?:\.\d+)?\s*(?:%|×|x\b)|\b(?:outperform\w*|surpass\w*|state-of-the-art)\b", re.I)


_PRIOR = re.compile(
    r"^(?:\w+\s+){0,3}?(?:existing|prior|previous|current|conventional|traditional|most|many|recent)\b"
    r"|\b(?:however|but|yet|despite|although|while)\b[^.]{0,80}\b(?:remain\w*|lack\w*|fail\w*|limited|struggl\w*)\b",
    re.I,
)


# Early in an abstract, what a technique "can" or "may" do, said without "we"/"our", is the field's knowledge.
_CAN_CLAIM = re.compile(
    r"^(?!.*\b(?:we|our|this\s+(?:paper|work))\b).*\b(?:can|could|may|might)\s+(?:\w+\s+)?(?:reduc|improv|increas|"
    r"achiev|yield|boost|enabl|accelerat|lower)\w*",
    re.I,
)


# The sentence names the difficulty ("One such challenge is X", "The main bottleneck lies in Y"), whatever result
# words ("increases", "accuracy") its explanation uses.
_CHALLENGE = re.compile(
    r"^(?:\w+\s+){0,3}?(?:challenges?|difficult(?:y|ies)|bottlenecks?|obstacles?|limitations?|problems?)\s+"
    r"(?:is|are|lies|lie|stems|stem|arises|arise)\b",
    re.I,
)


def sentence_role(sentence: str, position: int, count: int) -> Role:
    """The role of one sentence, given its 0-based position among ``count`` sentences."""
    available = _AVAILABILITY.search(sentence)
    if available:
        before = sentence[: available.start()]
        # "… outperforms X by 11%. Code is available at …": a code line glued to a longer sentence (the splitter
        # kept them together) does what that sentence does
        glued = re.search(r"[.!?]\s+(?:[^\s.!?]+\s+){0,3}$", before)
        if glued is None or len(before[: glued.start()].split()) < 8:
            return "availability"
        sentence = before[: glued.start() + 1]
    contribution = bool(_CONTRIBUTION.search(sentence))
    result = bool(_RESULT.search(sentence))
    if contribution and not (result and position >= count - 2 and position > 0):
        return "contribution"
    if _PRIOR.search(sentence) and position < count - 1:  # what others did or could not do
        return "gap" if _GAP.search(sentence) else "background"
    if position <= 2 and _CAN_CLAIM.search(sentence):  # "X can substantially reduce Y": what the field knows
        return "background"
    if _CHALLENGE.search(sentence) and position < count - 1:  # "One such challenge is …", "The key difficulty lies"
        return "gap"
    if position > 0 and (_HOW.search(sentence) or (_METHOD_OPENER.search(sentence) and not _MEASURED.search(sentence))):
        return "method"
    if result and position > 0:
        return "result"
    if _GAP.search(sentence) and position < count - 1:
        return "gap"
    if _METHOD.search(sentence) and position > 0:
        return "method"
    if _BACKGROUND.search(sentence[:_BACKGROUND_REACH]) or position == 0:
        return "background"
    if contribution:
        return "contribution"
    return "result" if position >= count - 1 else "method"


def abstract_roles(sentences: Sequence[str]) -> list[Role]:
    return [sentence_role(s, i, len(sentences)) for i, s in enumerate(sentences)]


def role_codes(sentences: Sequence[str]) -> list[int]:
    """``abstract_roles`` as indexes into ``ROLES`` (what the index stores, one byte per sentence)."""
    return [_CODE[role] for role in abstract_roles(sentences)]


_CODE: dict[Role, int] = {role: i for i, role in enumerate(ROLES)}


def signature() -> str:
    """What stored role codes are valid for: this file (the cues and the order of ``ROLES``), hashed rather than
    versioned by hand, so a changed cue never leaves stale roles in use; "" (matching nothing) without a source."""
    try:
        return f"roles {hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]}"
    except (OSError, TypeError):
        return ""


_WANTS_AVAILABILITY = re.compile(
    r"\b(?:code|github|url|link|download|available|availability|release[ds]?|open[- ]source\w*|repository|"
    r"checkpoints?)\b|\bwhere\s+(?:can|could|do|does|should)\s+(?:i|we|one|you)\s+(?:get|find|access|obtain)\b",
    re.I,
)


def asks_for_availability(question: str) -> bool:
    return bool(_WANTS_AVAILABILITY.search(question))


def states_availability(sentence: str) -> bool:
    """Whether the sentence says where a work's code, data or models are, or that they are (to be) released."""
    return bool(_AVAILABILITY.search(sentence))


_FINDING = re.compile(
    r"\bwe\s+(?:\w+\s+)?(?:show|prove|find|establish|reveal|demonstrate)\s+that\b"
    r"|\b(?:formali[sz]ation|analysis|theory|bound|characteri[sz]ation)\s+(?:\w+\s+)?(?:reveals|shows|establishes|implies)"
    r"\s+that\b",
    re.I,
)


def states_finding(sentence: str) -> bool:
    """Whether the sentence states what the work shows or proves ("We show that every X is Y", "The analysis reveals
    that …"), not how it was evaluated ("Experiments on A show gains"): the explanation a why- or how-question asks
    for."""
    return bool(_FINDING.search(sentence))


_EVALUATION = re.compile(
    r"\b(?:evaluat\w*|experiment\w*|tested|tests?\s+on|benchmark\w*|validat\w*|corroborat\w*|datasets?|"
    r"empirical\w*|results?\s+on|trained\s+on|across|test\s*beds?)\b",
    re.I,
)


def states_evaluation(sentence: str) -> bool:
    """Whether the sentence says where something is evaluated ("Experiments on A and B show…", "Evaluated on C",
    "we corroborate this across D and E"). Callers also check that it names the data (rag.evidence)."""
    return bool(_EVALUATION.search(sentence))


# A name the work gives to what it introduces: a token shaped like a name (CamelCase, ALLCAPS, letters with digits,
# a capitalised hyphenated token), a run of two or more capitalised words ("Posted Pricing Rule"), or an
# emphasised term ("*bottleneck role*", "\emph{…}").
_NAME_SHAPE = (
    r"(?:[A-Za-z]*[A-Z][a-z0-9]*[A-Z0-9][\w-]*|[A-Z][a-z]+-[A-Za-z][\w-]*"
    r"|[A-Z][a-z][\w-]*(?:\s+(?:of\s+|for\s+|and\s+)?[A-Z][\w-]*)+"
    r"|\*{1,2}[^*]{2,60}\*{1,2}|\\(?:emph|textit|textbf)\{[^}]{2,60}\})"
)
_COINS = re.compile(
    "|".join(
        (
            # "which we term the *bottleneck role*", "a method called FooNet", "dubbed BarNet"
            r"(?<![\w-])(?i:we\s+(?:term|call|dub|name|coin|refer\s+to)\w*|called|termed|dubbed|named|coined)\b",
            # "We propose FooNet", "we also introduce the Bar-Set benchmark", "we present **BazBench**"
            r"\b(?i:(?:we|this\s+(?:paper|work))\s+(?:also\s+|further\s+|first\s+|then\s+)?(?:propose|introduce|"
            r"present|develop|design|define|derive|construct|release|build)s?\s+(?:\w+\s+){0,3}?)" + _NAME_SHAPE,
            # "Our *Foo Bar* (FB) policy …", "Our method, FooNet, …", "our Foo Index"
            r"\b(?i:our\s+(?:\w+\s*,?\s+){0,2}?)" + _NAME_SHAPE,
            # "we show that a Foo Bar Index …": a named quantity the work defines
            r"\b(?:a|an)\s+(?:[A-Z][a-z][\w-]*\s+){1,4}(?:Index|Score|Metric|Measure|Criterion|Test|Loss|Rule|Bound)\b",
        )
    )
)


def names_contribution(sentence: str) -> bool:
    """Whether the sentence gives a name to something the work introduces ("We propose FooNet", "which we term the
    *bottleneck role*", "Our Throttled Menu Pricing (TMP) policy", "a method called BarNet"): the name a good answer
    about the work states."""
    return bool(_COINS.search(sentence))


_CONCLUDES = re.compile(
    r"^(?:together|overall|in\s+summary|in\s+sum|in\s+conclusion|taken\s+together|collectively|altogether|"
    r"more\s+broadly|ultimately|these\s+(?:results|findings|observations)|our\s+(?:results|findings)\s+"
    r"(?:suggest|show|indicate|establish|reveal|demonstrate|highlight))\b",
    re.I,
)


def concludes(sentence: str) -> bool:
    """Whether the sentence draws the work's conclusion ("Together, these results establish …", "Overall, …",
    "Our findings suggest …"): what a question about the main takeaway asks for."""
    return bool(_CONCLUDES.search(sentence.strip()))


def states_shortcoming(sentence: str) -> bool:
    """Whether the sentence speaks of a failure or limitation ("fails", "lacks", "struggles", "remains limited"):
    a finding that does is a diagnosis ("we reveal that when X fails, the breakdown stems from Y")."""
    return bool(_GAP.search(sentence))
