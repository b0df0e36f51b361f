"""What a question asks for: its kind (list, number, name, general), its focus words and its specific terms.

Pure functions over the question text; used to pick evidence, shape extractive answers and decide abstention.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Literal

from rag.roles import states_availability
from rag.text import NUMBER_WORDS, content_words, has_name_capitals, name_singular, plural_s

Kind = Literal["list", "number", "name", "general"]
Shape = Literal["fact", "number", "name", "list", "compare", "summary", "how_why", "yes_no", "followup"]

_LIST = re.compile(
    r"^\s*(?:(?:which|what)\s+(?:other\s+|of\s+the\s+)?(?:(?:two|three|four|five|six|\d+)\s+)?(?:research\s+)?(?:papers?|works?|abstracts?|studies|articles|approaches|"
    r"methods|publications|contributions|submissions)\b"
    r"|(?:list|name|find|show|identify|enumerate|collect|gather|fetch)\s+(?:all\s+|the\s+|any\s+)?(?:papers?|works?|abstracts?|"
    r"studies)\b"
    # "can you find work on X", "show me research related to X", "point me to the literature on X"
    r"|(?:(?:can|could|would)\s+you\s+)?(?:find|show|point|get|pull\s+up)\s+(?:me\s+|us\s+)?(?:to\s+)?(?:some\s+|any\s+|"
    r"the\s+|all\s+)?(?:work|research|literature)\s+(?:on|about|regarding|into|in|related\s+to)\b"
    r"|(?:are|is)\s+there\s+(?:any\s+|a\s+|an\s+)?(?:papers?|works?|abstracts?|studies|study)\b"
    r"|(?:are|is)\s+there\s+(?:anything|something)\s+(?:on|about)\b"
    r"|what\s+(?:work|research)\b|which\s+research\b"
    r"|(?:any\s+)?papers?\s+(?:on|about|that|using|with|w/)(?!\w)"
    # "papers dealing with X", "studies evaluating on Y" (one "paper where …" is a lookup of one paper)
    r"|(?:any\s+)?(?:papers|studies)\s+(?:which|where|in|for|(?!(?:bring|sing|thing)(?!\w))\w+ing)(?!\w)"
    # a keyword query naming what it wants: "neurosymbolic AI papers", "diffusion model studies?"
    r"|(?!(?:how|what|which|why|when|where|who|whose|do|does|did|is|are|was|were|can|could)\b)"
    r"(?![^?]*\b(?:how|why|whether)\b)(?:[\w/+-]+\s+){1,5}"
    r"(?:papers|studies|research|literature|stuff|(?<!\bit\s)(?<!\bthis\s)(?<!\bthat\s)works"
    # "FooNet work?" as the work on FooNet, not the verb: "does not work", "it doesn't work", "will work"
    r"|(?<!\bit\s)(?<!\bthis\s)(?<!\bthat\s)(?<!\bnot\s)(?<!n't\s)(?<!\bdo\s)(?<!\bdoes\s)(?<!\bdid\s)(?<!\bto\s)"
    r"(?<!\bwill\s)(?<!\bcan\s)(?<!\bcould\s)(?<!\bwould\s)(?<!\bmight\s)(?<!\bmay\s)(?<!\bshould\s)(?<!\bmust\s)work)"
    r"(?:\s+(?:with|w/)\s*[\w/+-]+)?"  # "drug discovery papers w/ code?"
    r"(?:\s+(?:pls|plz|please))?\s*[?.!]?\s*$"
    # "works on X", "all papers about X" (plural: several papers; "research on X" may describe one paper's topic)
    r"|(?:all\s+|the\s+)?(?:papers|works|studies|articles|publications)\s+(?:on|about|regarding|into|for|"
    r"related\s+to|w/)(?!\w)"
    # "which ones use X", "who works on X", "what's out there on X", "what do we have on X"
    r"|which\s+ones\b|who\s+(?:else\s+)?(?:works?|is\s+working|stud(?:y|ies)|is\s+studying|is\s+doing|tackles?)\b"
    r"|what(?:'s|\s+is)?\s+(?:out\s+there|(?:do\s+)?we\s+have|there\s+is)\s+(?:on|about|for|regarding)\b"
    # "give me everything on X", "who has looked at X", "where is X discussed?"
    r"|(?:give\s+(?:me|us)\s+)?everything\s+(?:on|about|regarding|related\s+to)\b"
    r"|who\s+(?:else\s+)?(?:has|have)\s+(?:looked\s+(?:at|into)|stud\w+|worked\s+on|tackled|addressed|explored|"
    r"investigated)\b|where\s+(?:is|are)\s+[^?]{1,60}?\s+(?:discussed|addressed|covered|studied|treated|"
    r"mentioned|tackled)\b)"
    # a request for papers anywhere in it: "give me all the X papers", "i need papers on X", "pls list papers on X",
    # "what are the X papers"
    r"|\b(?:list|give\s+me|show\s+me|get\s+me|find(?:\s+me)?|need|want|looking\s+for|search(?:ing)?\s+for)\s+"
    r"(?:(?:all|the|any|some|every|of|me)\s+)*(?:[\w/+-]+\s+){0,4}?(?:papers|works|studies|abstracts|articles|"
    r"publications)\b"
    r"|\b(?:papers|works|studies|abstracts|articles)\s+(?:are\s+there|exist)\b"
    # a request whose object is papers, whatever the verb: "please give the papers which …", "provide studies on X",
    # "recommend some articles about X" ("works" left out: "give an example of how it works")
    r"|\b(?:give|provide|present|recommend|suggest|mention|cite|name|show|list|see|return|retrieve|fetch|tell|"
    r"point\s+(?:me|us)\s+to)\s+(?:(?:all|the|any|some|every|of|"
    r"me|us|relevant|main|key)\s+)*(?:[\w/+-]+\s+){0,3}?(?:papers|studies|abstracts|articles|publications)\b"
    # "paper(s)": one or several; "do you have papers on X"; "X: any papers?"
    r"|\bpaper\(s\)|\b(?:do|does)\s+(?:you|the\s+(?:corpus|collection))\s+(?:have|hold|contain)\s+(?:any\s+)?"
    r"(?:papers|works|studies|abstracts|articles)\b|\bany\s+(?:papers|works|studies|abstracts|articles)\s*\?"
    # "every paper that …", "list every abstract on X": every one of them is several papers
    r"|\bevery\s+(?:single\s+)?(?:paper|work|study|abstract|article|publication)\s+(?:that|which|where|whose|on|"
    r"about|in|using|with|for)\b"
    # the papers asked for inside the sentence: "could you tell me which papers …", "among the papers, which …", "which
    # of these papers …", "in which studies is X …", "are any of the papers about X", "all work on X"
    r"|(?:^\W*|[,;:]\s*|\b(?:me|us|know|wonder(?:ing)?|asking)\s+)(?:which|what)\s+(?:of\s+(?:the|these|those)\s+)?"
    r"(?:papers|studies|abstracts|articles|publications|researches)\b|\bamong\s+(?:the|these|those|all)\s+(?:papers|"
    r"works|studies|abstracts)\b|\bin\s+which\s+(?:papers|works|studies|abstracts|articles)\b"
    r"|\bare\s+any\s+of\s+(?:the|these|those)\s+(?:papers|works|studies|abstracts|articles)\b"
    # "which of these involve X", "which of them deal with X": with no noun after it, "these" are the papers
    r"|^\W*which\s+of\s+(?:these|those|them)\s+(?:(?:also|actually|even|really)\s+)?(?:involve|use|deal|stud(?:y|ies)|"
    r"address|discuss|propose|introduce|tackle|focus|concern|mention|relate|apply|work|look|touch|cover|consider|"
    r"evaluate|explore|investigate|examine|are|have|do|talk|treat|include)\b"
    # "could you tell me which works use X" ("which works", unlike "what works", names the papers)
    r"|\b(?:me|us|know|wonder(?:ing)?|asking)\s+which\s+works\b"
    r"|\ball\s+(?:the\s+)?(?:work|research)\s+(?:on|about|regarding|into)\b"
    r"|\bwhat\s+(?:are|were)\s+(?:all\s+)?the\s+(?:[\w/+-]+\s+){0,5}?(?:papers|works|studies|abstracts|articles)\b"
    # "which LLM papers deal with agents?", "which diffusion studies use FLUX?": the words before the plural noun say
    # what the papers are about ("which LLM" alone asks for a model's name; "works" may be the verb)
    r"|^\W*which\s+(?:(?!(?:of|the|these|those|two|three|both|one|ones|is|are|was|were|do|does)\b)[\w/+-]+\s+){1,3}"
    r"(?:papers|studies|abstracts|articles|publications)\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(
    r"\b(?:how\s+many|how\s+much|how\s+large|how\s+big|how\s+long|how\s+fast|by\s+how|what\s+(?:percentage|fraction|"
    r"proportion|number|share|ratio|speed-?up|size|rate|accuracy|score)|what\s+is\s+the\s+(?:number|size|"
    r"percentage))\b",
    re.IGNORECASE,
)
# Quantities a number question names ("what accuracy"), as opposed to generic ones ("what number", "what size").
_QUANTITY = re.compile(r"\b(?:accuracy|score|rate|speed-?up|ratio)\b", re.I)
# "how long is/are X" asks how long X takes or how long X is ("the prompts average ~14k words"); "how long does X
# take" asks a duration
_EXTENT_ASKED = re.compile(r"\bhow\s+long\s+(?:is|are|was|were)\b", re.I)
_TIME_ASKED = re.compile(r"\bhow\s+long\b|\bhow\s+much\s+time\b|\b(?:latency|runtime|run\s+time|wall-?clock)\b", re.I)
_PERCENT_ASKED = re.compile(r"\bwhat\s+(?:percentage|percent|fraction|proportion|share)\b|\bby\s+what\s+percent", re.I)
_TIME_STATED = re.compile(
    r"\b(?:\d[\d.,]*\s*(?:ms|s|sec|h|hrs?|min)|milliseconds?|seconds?|minutes?|hours?|days?|weeks?|months?)\b", re.I
)
_LENGTH_STATED = re.compile(
    r"\b\d[\d.,]*\s*[kKM]?\s*(?:words?|tokens?|lines?|characters?|pages?|sentences?|steps?|turns?|frames?)\b"
)
_PERCENT_STATED = re.compile(r"%|\bpercent\w*\b|\bfraction\b|\bhalf\b|\bthird\b|\bquarter\b", re.I)


# A size a quantity must reach for something to hold ("how large must the penalty be so that …", "how strong does the
# term need to be"): a condition, which a theory abstract states as a bound, not as a number
_BOUND_ASKED = re.compile(
    r"\bhow\s+(?:large|big|small|high|low|strong|weak)\s+(?:\S+\s+){0,8}?(?:must|should|needs?\s+to|has\s+to|have\s+to)"
    r"\s+(?:\S+\s+){0,6}?be\b",
    re.I,
)
_BOUND_STATED = re.compile(
    r"\b(?:lower|upper)\s+bounds?\b|\bthresholds?\b|\bat\s+(?:least|most)\b|\bexceed\w*|\babove\b|\bbelow\b|"
    r"\b(?:larger|greater|smaller|less)\s+than\b|\bsufficiently\s+(?:large|small)\b|[\u2265\u2264]|\\[gl]eq?\b",
    re.I,
)


def asks_bound(question: str) -> bool:
    """Whether the question asks how large (or small) something must be for something to hold: a condition,
    answered by a bound ("any penalty above this threshold", "at least 2k"), not only by a number."""
    return bool(_BOUND_ASKED.search(question))


def states_bound(sentence: str) -> bool:
    """Whether the sentence states a bound: "a lower bound on", "above this threshold", "at least", "exceeds",
    "sufficiently large", "≥"."""
    return bool(_BOUND_STATED.search(sentence))


def unit_asked(question: str) -> str | None:
    """The kind of quantity a number question asks for when its answer needs a unit: "time", "extent" (a duration
    or a length: "how long are the prompts") or "percent"."""
    if _EXTENT_ASKED.search(question):
        return "extent"
    if _TIME_ASKED.search(_PHASE.sub(" ", question)):  # not "what happens at run time"
        return "time"
    if _PERCENT_ASKED.search(question):
        return "percent"
    return None


def states_unit(sentence: str, unit: str) -> bool:
    """Whether a sentence states a quantity of that kind (a duration; a duration or a length in words, tokens,
    lines, steps …; a percentage or share)."""
    if unit == "extent":
        return bool(_TIME_STATED.search(sentence) or _LENGTH_STATED.search(sentence))
    return bool((_TIME_STATED if unit == "time" else _PERCENT_STATED).search(sentence))


_NAME = re.compile(
    r"\b(?:which|what)\s+(?:\w+\s+)?(?:dataset|datasets|benchmark|benchmarks|model|models|method|algorithm|metric|"
    r"metrics|framework|architecture|baseline|baselines|library|tool|environment|environments)\b"
    r"|\bwhat\s+is\s+(?:it|the\s+\w+)\s+called\b|\bwhat\s+name\b",
    re.IGNORECASE,
)
# Words that carry the question's grammar or generic research vocabulary rather than its topic.
_QUESTION_WORDS = frozenset(
    content_words(
        "how many much which what paper papers work works study studies abstract abstracts propose proposed "
        "introduce method approach use uses used report reports reported does do did is are was were model models "
        "result results show find found author authors achieve achieves specific specifically exactly number "
        "compare comparison contrast difference differences differ summarize summarise summary overview tell more "
        "explain list any there give provide please kindly elaborate detail details am looking wonder "
        "interested want know whether pls plz thanks thank thx"
    )
)


def lexical_words(question: str) -> list[str]:
    """The question's content words for lexical matching (BM25), without the words of the request itself ("which
    papers", "summarize", "overview", "study", "propose"): those say what kind of answer is wanted, and matching
    them ranks an abstract for saying "we study" or "our results" rather than for its topic. All of its content
    words when nothing else is left (a question made only of such words)."""
    words = content_words(question)
    topic = content_words(_THE_COLLECTION.sub(" ", question))
    return [w for w in topic if w not in _QUESTION_WORDS and w not in _ABOUT_WORDS] or words


_PHRASE_TOKEN = re.compile(r"[\w'&/+.-]*\w")


def topic_phrase(question: str, topic_words: Sequence[str]) -> str:
    """The words of a request for papers that say its topic, as written and in order: the tokens holding one of
    its ``topic_words`` (content-word stems, see list_topic), so "Which papers help doctors read medical scans?"
    -> "help doctors read medical scans" and "Give me an overview of the work on X" -> "X". The request's own words
    ("which papers", "an overview of the work on") say nothing of the topic but weigh in an encoding of the whole
    question. The question itself when none is left."""
    wanted = set(topic_words)
    tokens = [m.group(0) for m in _PHRASE_TOKEN.finditer(question) if wanted & set(content_words(m.group(0)))]
    return " ".join(tokens) or question


# A request pointing at the collection itself ("the papers in this set", "what do the abstracts here say"): its
# words ("set", "here") are not words of the topic (a "data set" or "training set" still is).
_THE_COLLECTION = re.compile(
    r"\b(?:in|of|from|across)\s+(?:this|the|these|your|our)\s+(?:set|corpus|collection|index|database|list)\b|"
    r"(?<=\bpapers)\s+here\b|(?<=\babstracts)\s+here\b|(?<=\bworks)\s+here\b|"
    r"\b(?:do|does)\s+(?:you|the|this|your)\s+(?:corpus|collection|index|database|library)\b|"
    # whether the collection treats it anywhere: "is X addressed anywhere?", "… covered in any of the papers", "any X
    # stuff?"
    r"\b(?:(?:addressed|covered|discussed|studied|tackled|treated|explored|investigated|mentioned)\s+)?(?:anywhere|at\s+all|"
    r"in\s+any\s+(?:of\s+the\s+)?(?:papers?|abstracts?|works?))\b|\bstuff\b",
    re.I,
)


# How a request points at its topic or at the collection ("papers related to X", "the privacy-related papers in the
# collection", "the literature regarding X", "papers relevant to X"): not words of the topic.
_ABOUT_WORDS = frozenset(
    content_words(
        "collection related regarding concerning relevant pertaining pertinent relating literature everything got "
        "application applications"
    )
)


# A request for what to read on a topic ("what should I read on X", "where do I start reading about X", "bring me up
# to speed on X"): an overview of the papers on it.
_READING_LIST = (
    r"\bwhat\s+(?:should|would|could|can|do)\s+(?:i|we|you)\s+(?:recommend\s+(?:i\s+|we\s+)?)?read(?:ing)?\b|"
    r"\bwhere\s+(?:should|do|can|could)\s+(?:i|we)\s+start(?:\s+reading)?\b|\brecommend\s+reading\b|"
    r"\bbring\s+(?:me|us)\s+up\s+to\s+speed\b|"
    r"\b(?:i|we)\s+(?:want|would\s+like|'d\s+like|need|wish)\s+to\s+read\s+(?:up\s+)?(?:on|about)\b|"
    # what the papers (plural) found or what is known from them: "the key takeaways from the papers on X", "what do we
    # know about X from these papers", "what is the research here on X", "the gist of the papers on X"
    r"\b(?:(?:key|main)\s+)?(?:takeaways?|findings|lessons|conclusions|insights|gist)\s+(?:from|of|in)\s+"
    r"(?=(?:the\s+|these\s+|those\s+|all\s+)?(?:papers|works|studies|abstracts|research|literature)\b)|"
    r"\bwhat\s+do\s+(?:we|you)\s+know\s+about\b(?=.*\b(?:papers|abstracts|works|studies|here|collection|corpus)\b)|"
    r"\bwhat(?:'s|\s+is)\s+the\s+(?:research|work|literature)\s+(?:here\s+|in\s+(?:this|the)\s+(?:set|collection|"
    r"corpus)\s+)?(?:on|about|regarding)\b"
)


# what is new in a field ("recent advances in X", "the latest work on X"): an overview's words, never its topic
_PROGRESS = r"(?:advances?|developments?|progress|work|research|trends?|directions?)"


# How a request for papers frames its topic rather than names it: "papers that involve / deal with X", "what are the
# papers doing with X", "papers that run experiments with X", "use X in their experiments", "the X-related papers",
# "has anyone / is there anything on X", "any research on X", "what do the papers say about X", "X, Y etc.".
_FRAME_WORDS = frozenset(
    content_words(
        "involve involves involving involved deal deals dealing doing anyone anybody anything someone somebody "
        "something research say says etc every"
    )
)
_FRAME = re.compile(
    r"\b(?:run|ran|runs|running|conduct\w*|perform\w*)\s+(?:their\s+|its\s+)?experiments?\b|"
    # hedges and intensifiers ("anything on X in general?", "is there really work on X at all?"): how the question
    # is put, never its topic
    r"\b(?:in\s+general|at\s+all|whatsoever|(?:more\s+)?generally|broadly(?:\s+speaking)?|actually|really|"
    r"basically|essentially|perhaps|maybe|somehow)\b|"
    r"\bin\s+(?:their|its|the|our)\s+experiments?\b|(?<=\w)-related\b|"
    # the answer's length or form ("a one-line summary of each paper on X", "summarize them in one sentence",
    # "as a table"): how to answer, not what about
    r"\b(?:(?:one|a|single|two|three|few|[123])[-\s]?(?:line|sentence|paragraph|word)s?|short|brief|quick|concise|"
    r"tl;?dr)\s+(?=(?:summar\w*|overviews?|descriptions?|rundowns?|recaps?|explanations?|blurbs?|answers?)\b)|"
    r"\bin\s+(?:(?:a\s+)?(?:one|single|two|three|few|[123])|a)\s+(?:line|sentence|word|paragraph)s?\b|"
    r"\b(?:as|in)\s+(?:a\s+)?(?:table|bullet(?:\s+points?|s)?)\b|"
    # the kind of answer an overview asks for ("a rundown of X", "the state of the art on X", "what should I read on
    # X"): the request's words, not the topic's
    r"\b(?:(?:brief|short|quick)\s+)?(?:rundown|recap|synopsis|round-?up|digest|survey|review|landscape)\s+"
    r"(?:of|on|in|for)\b|\b(?:broad|big|overall|general|full|rough)\s+(?:picture|view|sense)\s+of\b|\bsum\s+up\b|"
    r"\b(?:i|we)\s+(?:would|'d)\s+like\b|\b(?:has|have|'s)\s+(?:the|this|you)\s*(?:corpus|collection|set|library|index)?"
    r"\s+got\b|\b(?:did|do|does)\s+(?:the\s+|these\s+|those\s+|this\s+year's\s+)?(?:papers|works|studies|abstracts|"
    r"field|literature|community)\s+(?:say|find|show|report|conclude|contribute|offer|propose)\b|\bstate\s+of\s+(?:the\s+)?(?:research|art|field|work)\b|" + _READING_LIST + r"|"
    # when the work is from or what is new in it ("what's new this year in X", "recent advances in X", "the latest
    # papers on X", "trends in X"): the collection is one year's papers, so these frame the topic, never say it
    r"\b(?:this|last|past)\s+year(?:'s)?\b|\bwhat(?:'s|\s+is|\s+are)\s+(?:new|happening|hot)\b|"
    r"\b(?:recent(?:ly)?|latest|newest|current|cutting[-\s]edge)\b(?=\s+(?:" + _PROGRESS + r"|papers?|studies|"
    r"results|findings|ideas|in|on|about)\b)|"
    r"\b(?:trends?|advances?|developments?|progress)\s+(?=(?:in|on|with|about)\b)|"
    # what kind of use is asked for ("real-world medical applications", "practical uses in X"): how, not what about
    r"\b(?:real[-\s]world|practical|everyday|concrete)\s+(?=(?:[\w-]+\s+){0,3}(?:applications?|uses?|use\s+cases?|impact)\b)",
    re.I,
)


def list_topic(question: str) -> list[str]:
    """The topic words of a request for papers: its content words without the request's own words ("which papers",
    "summarize"), the collection ("in this set", "the papers here"), the words pointing at a topic ("related to",
    "regarding") and those framing it ("papers that involve X", "run experiments with X", "X-related papers"), which
    no paper on X need use. Empty when nothing else is left."""
    text = _FRAME.sub(" ", _THE_COLLECTION.sub(" ", question))
    words = dict.fromkeys(content_words(text))
    return [w for w in words if w not in _QUESTION_WORDS and w not in _ABOUT_WORDS and w not in _FRAME_WORDS]


_ANSWER_CATEGORIES = frozenset(
    content_words(
        "which what dataset datasets benchmark benchmarks model models method methods metric metrics algorithm "
        "framework architecture baseline baselines tool library environment environments"
    )
)
_FOCUS_STOP = re.compile(
    r"\b(?:does|do|did|is|are|was|were|can|could|will|would|has|have|had|in|on|of|for|from|by|with|at|to|used|"
    r"reported|the\s+paper)\b",
    re.IGNORECASE,
)
_SPECIFIC = re.compile(r"(?<![\w-])([A-Za-z0-9][\w]*(?:[-&.][\w]+)*)")


@dataclass(frozen=True, slots=True)
class QuestionProfile:
    text: str
    kind: Kind
    topic_words: tuple[str, ...]  # stemmed content words without question grammar
    focus_words: tuple[str, ...] = ()  # for number/name questions: what is counted or named ("screen", "gpu")
    specific_terms: tuple[str, ...] = field(default=())  # name-like tokens as written ("AssayBench", "GPT-4o")
    shape: Shape = "fact"  # the answer plan: see classify_shape
    wants_names: bool = False  # the answer is a list of names (datasets, benchmarks, models): see asks_for_names
    asks_evaluation: bool = False  # what the work is evaluated on (datasets, benchmarks): see asks_for_evaluation
    explains_failure: bool = False  # a why-question about a shortcoming: see explains_failure
    asks_problem: bool = False  # what problem a work remedies: see asks_problem_addressed
    terse: bool = False  # a keyword query: see is_terse
    asks_remedy: bool = False  # also asks how a shortcoming is fixed: see asks_remedy
    asks_count: bool = False  # a number question asking how many or how large: see asks_count
    asks_findings: bool = False  # asks what the work found or how well it does: see asks_findings
    asks_takeaway: bool = False  # asks for the work's main takeaway or conclusion: see asks_takeaway
    asks_paper: bool = False  # asks which one paper does something: see asks_for_one_paper
    asks_significance: bool = False  # asks why a work or its result matters: see asks_significance
    asks_brief: bool = False  # asks for a one-line answer ("a one-sentence summary of …"): see asks_brief


def is_specific_term(token: str, first_word: bool) -> bool:
    """Acronyms, CamelCase, names with digits, and capitalised words that do not start the sentence."""
    if len(token) < 2 or token.isdigit():
        return False
    if has_name_capitals(token):
        return True
    return token[0].isupper() and not first_word and token.lower() not in {"i"}


_SENTENCE_END = re.compile(r"[.!?]\s*$|\n\s*$")


def specific_terms(question: str) -> list[str]:
    terms = []
    for i, match in enumerate(_SPECIFIC.finditer(question)):
        token = match.group(1).rstrip(".")
        # A capital at the start of any sentence of the question is grammar, not a name ("Ignore the… How many…").
        starts_sentence = i == 0 or bool(_SENTENCE_END.search(question, 0, match.start()))
        if is_specific_term(token, first_word=starts_sentence):
            terms.append(token)
    return terms


# "which/what <noun>" asks for a thing by name; not "what happens / makes / causes …", where "what" is the subject
# of a verb and a description answers, nor an auxiliary ("what does", "what would"), nor a determiner ("what the
# authors claim", the auxiliary left out)
_WHICH_THING = re.compile(
    r"^\s*(?:which|what)\s+(?!(?:does|do|did|is|are|was|were|can|could|would|will|should|might|must|has|have|had|"
    r"about|if|happens?|happened|makes?|made|causes?|caused|drives?|determines?|explains?|allows?|enables?|limits?|changes?|"
    r"changed|goes|went|matters?|helps?|helped|leads?|led|prevents?|governs?|controls?|occurs?|occurred|"
    r"the|a|an|this|these|those|its|their|his|her|our|my|your)\b)\w+",
    re.I,
)
# "in <unit>": a general list of units of time, size and share (not one question's unit)
_UNIT = re.compile(
    r"\bin\s+(?:(?:milli|micro|nano|kilo|centi)?(?:seconds?|meters?|metres?|grams?)|minutes|hours|days|ms|percent|"
    r"percentage|bits|bytes|[kmgt]b|tokens)\b",
    re.I,
)


def classify(question: str, one_paper: bool = True) -> Kind:
    """The kind of answer asked for; when several cues appear, the earliest one in the question wins. ``one_paper``
    False reads "Which paper proposes X?" as a request for papers (a list), as abstention does (see profile)."""
    if _LIST.search(question):
        if not (one_paper and asks_for_one_paper(question)):
            return "list"
        question = _ONE_PAPER.sub("", question, count=1)  # "Which paper proposes X?": what X is, not a name
    elif asks_for_one_paper(question):  # "Which study shows X?": the study is asked for, not a name of X's kind
        question = _ONE_PAPER.sub("", question, count=1)
    if asks_problem_addressed(question):  # "what problem does X address?": a description of the problem, not a name
        return "general"
    cues: list[tuple[int, int, Kind]] = []  # (position, priority, kind): at a tie a number cue wins
    for priority, (pattern, kind) in enumerate(
        ((_NUMBER, "number"), (_UNIT, "number"), (_NAME, "name"), (_WHICH_THING, "name"))
    ):
        match = pattern.search(question)
        if match and kind == "number" and _DECIDES.search(question[: match.start()]):
            continue  # "How does X decide how many bits …": how it decides, not a count
        if match and kind == "number" and _DEGREE.match(question, match.start()):
            continue  # "how much does precision matter": a degree
        if match:
            cues.append((match.start(), priority, kind))
    return min(cues)[2] if cues else "general"


# "Which paper proposes …?", "What paper introduced …?", "Which work shows …?": one paper asked for (singular), unless
# the question asks for papers in the plural elsewhere ("which paper or papers …", "… and other works")
_ONE_PAPER = re.compile(r"^\s*(?:which\s+(?:paper|work|study|article|publication)|what\s+(?:paper|study|article))\b(?!s)", re.I)
_SEVERAL_PAPERS = re.compile(r"\b(?:papers|articles|publications|abstracts|ones)\b|\bpaper\(s\)", re.I)


def asks_for_one_paper(question: str) -> bool:
    """The question asks which one paper does something ("Which paper proposes X?", "What paper introduced Y?"): its
    answer is that paper, quoted like any question about one work, not a list of every paper near the topic."""
    return bool(_ONE_PAPER.search(question)) and not _SEVERAL_PAPERS.search(question)


# One work asked for by what it does or finds ("which work shows that X …", "is there a paper showing X", "any study
# that Y", "a paper on why Z", "something about when W"): a singular noun for a work, then a clause (a relative or
# wh-word, a verb ending in -s/-ed or -ing) rather than a noun phrase ("a paper on FooNet pruning")
_WORK_NOUN = r"(?:paper|work|study|article|publication|preprint|research|approach|method|something|anything)"
# what a work is said to find or argue ("a paper showing that …"), unlike what it is on ("a paper measuring X")
_FINDING_ING = r"(?:show|argu|find|demonstrat|prov|suggest|claim|explain|reveal|establish|report)ing\b"
_DESCRIBED_WORK = re.compile(
    r"(?:^\s*(?:(?:which|what)\s+)?|\b(?:is\s+there|are\s+there|any|a|an|one|some|the)\s+(?:\w+\s+)?)"
    + _WORK_NOUN
    + r"\b(?!s)\s+(?:(?:on|about|into|of)\s+(?=(?:why|how|when|whether|what)\b|\w+ing\b)|"
    r"(?=(?:that|which|who|where|why|how|when|whether)\b|\w+ing\b|\w+(?<![s'\u2019])s\b|\w+ed\b))"
    r"(?P<clause>\w)",
    re.I,
)
# works asked for in the plural ("which papers", "any studies"); "works" and "studies" only after a determiner, as
# elsewhere they are verbs ("a method that works", "a paper that studies X")
_SEVERAL_WORKS = re.compile(
    r"\b(?:papers|articles|publications|abstracts|preprints)\b|\bpaper\(s\)|"
    r"\b(?:which|what|any|some|the|all|other|these|those)\s+(?:works|studies)\b",
    re.I,
)


def described_work_words(question: str) -> int:
    """How many content words describe the one work a question asks for by what it does or finds ("which work
    shows that deeper FooNets help only up to a point on toy data" -> 9; "is there a paper showing X", "any study
    that …", "a paper on why …"); 0 when it asks for works in the plural or names a topic by a noun phrase ("is
    there a paper on FooNet pruning?"). A long description of a finding or mechanism paraphrases one paper, whose
    own words it need not use; a short one reads as a topic."""
    match = _DESCRIBED_WORK.search(question)
    if match is None or _SEVERAL_WORKS.search(question):
        return 0
    return len(content_words(question[match.start("clause") :]))


# An indirect question after a verb of deciding ("how does X decide how many …", "… determine how much …") or
# of studying ("theory on how much data …").
_DECIDES = re.compile(
    r"\b(?:decid(?:e|es|ed|ing)|determin(?:e|es|ed|ing)|choos(?:e|es|ing)|chose|select(?:s|ed|ing)?|"
    r"estimat(?:e|es|ed|ing)|allocat(?:e|es|ed|ing)|predict(?:s|ed|ing)?|learn(?:s|ed|ing)?|know(?:s|ing)?|"
    # "theory on how much data you need …", "a study of how many …": the topic, not a question for a number
    r"(?:theory|work|paper|study|studies|research|analysis|results?)\s+(?:on|about|of|into)|"
    r"stud(?:y|ies|ying)|analy[sz](?:e|es|ing)"
    # an indirect question after a preposition or an auxiliary: "reasons tied to how long they live", "does how
    # much X overlaps predict …", "whether how many …"
    r"|whether|if|does|do|did"
    # "a sweet spot for how long X should run", "tied to how long": after a word, not opening the question ("For how
    # long is X trained?", "On how many outputs is it based?")
    r"|(?<=\w\s)(?:for|to|on|of|about|into|upon|from))\s+$",
    re.I,
)
# "how much does X matter / help …": a degree, not a number
_DEGREE = re.compile(
    r"\bhow\s+much\s+(?:does|do|did|can|could|will|would|should)\s+(?:[\w'-]+\s+){1,6}?"
    r"(?:matter|help|hurt|affect|influence|contribute|change|depend|improve|benefit)\b",
    re.I,
)
# A quantity named by a noun in a keyword query or a comparison's aspect: "FooBench size", "number of prompts".
_QUANTITY_NOUN = re.compile(r"\b(?:sizes?|(?:number|count|amount)\s+of)\b", re.I)


_COUNT_ASKED = re.compile(
    r"\bhow\s+(?:many|large|big)\b|\b(?:number|count)\s+of\b|\bsizes?\b|\bwhat\s+is\s+the\s+(?:number|size)\b", re.I
)
_COUNT_STATED = re.compile(
    r"(?<![\w.$^{/-])(?:\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?\s*[KMB]\b|\d+)(?![\w.,]*\d)(?!\s*(?:%|×|\\%|x\b))"
    r"\+?\s+(?:[a-zA-Z][\w/-]*\s+){0,2}?[a-z][\w-]*"
    r"|(?<![\w.$^{/-])\d[\d,]*-[a-z]{3,}\b(?<!-based)(?<!-scale)"
    r"|\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|dozens?|hundreds?|thousands?|millions?)\s+"
    r"(?:[a-zA-Z][\w/-]*\s+){0,2}?[a-z][\w-]*",
)


def asks_count(question: str) -> bool:
    """Whether a number question asks how many or how large ("how many prompts", "the size of", "number of …"),
    as opposed to a measured value ("what accuracy", "how fast"): its answer is a count of things."""
    return bool(_COUNT_ASKED.search(question))


def states_count(sentence: str) -> bool:
    """Whether the sentence counts things: a whole number (or a word for one) followed by what it counts ("6,289
    pairs", "310-prompt" aside, "12 tasks", "six datasets", "10K assets"), not a score ("0.95"), a percentage
    ("45%"), a factor ("4×") or a number inside a name ("GPT-4", "1B-scale")."""
    return bool(_COUNT_STATED.search(sentence))


def asks_quantity(text: str) -> bool:
    """Whether ``text`` asks for a number: a number question ("how many …", "what accuracy …") or a quantity
    named by a noun ("size", "number of …")."""
    return classify(text) == "number" or bool(_QUANTITY_NOUN.search(text))


def focus_words(question: str, kind: Kind) -> list[str]:
    return [w for w in _focus_words(question, kind) if w not in _name_words(question)]


def _name_words(question: str) -> set[str]:
    """Content words of the question's name-like terms: the subject, not what is counted or named."""
    # CamelCase, digits or hyphens mark a work's name ("FooNet", "X-9"); acronyms ("GPUs", "DNA") are things
    works = [t for t in specific_terms(question) if re.search(r"[a-z][A-Z]|\d|\w-\w", t)]
    return {w for term in works for w in content_words(term)}


def _focus_words(question: str, kind: Kind) -> list[str]:
    """The noun phrase a number/name question asks about: 'How many CRISPR screens does…' -> crispr, screen."""
    pattern = _NUMBER if kind == "number" else _NAME if kind == "name" else None
    if pattern is None:
        return []
    match = pattern.search(question)
    if match is None:  # e.g. "What is the latency of X in milliseconds?": the topic minus the names
        names = {w for term in specific_terms(question) for w in content_words(term)}
        return [w for w in content_words(question) if w not in _QUESTION_WORDS and w not in names]
    tail = question[match.end() :] if kind == "number" else question[match.start() :]
    stop = _FOCUS_STOP.search(tail)
    phrase = tail[: stop.start()] if stop else tail
    words = [w for w in content_words(phrase) if w not in _QUESTION_WORDS and w not in _COMPARATIVES]
    quantity = _QUANTITY.search(match.group(0)) if kind == "number" else None
    if quantity:  # "what accuracy does X reach": the measured quantity is what the answer must state
        words = content_words(quantity.group(0)) + words
    if kind == "name":  # the category of the answer ("which dataset") is not something the abstract must say
        words = [w for w in words if w not in _ANSWER_CATEGORIES]
    return words


# "how much faster/smaller …": the direction of a change, which an abstract states as a speed-up, a ratio or a
# percentage ("6x", "40% fewer"), not a word it must use
_COMPARATIVES = frozenset(
    content_words(
        "faster slower quicker smaller larger bigger better worse cheaper higher lower fewer longer shorter "
        "stronger weaker"
    )
)


_NAMED_THINGS = re.compile(
    r"\b(?:which|what)\s+(?:[\w-]+\s+){0,3}?(?:datasets?|benchmarks?|data|models?|networks?|architectures?|baselines?|"
    r"backbones?|environments?|games?|llms?|vlms?|mllms?|famil(?:y|ies)|encoders?)\b"
    r"|\b(?:evaluat\w*|test(?:ed|s)?|validat\w*|experiments?|benchmark(?:ed|s)?|compared?)\s+(?:on|against|with)\b"
    r"|\bwhere\s+(?:is|are|was|were)\b.*\b(?:evaluated|tested|validated|applied)\b"
    r"|\b(?:what|which)\b.*\b(?:called|named|termed|dubbed)\b",
    re.I,
)


_POLAR = re.compile(r"^\W*(?:and\s+|so\s+)?(?:do|does|did|is|are|was|were|has|have|had|can|could)\b", re.I)


# How a question sets works side by side ("which of X and Y", "between X and Y", "X and Y: similarities", "what does
# each …", "how does X differ from Y"), rather than asking whether one relates to the other ("Does X use Y?")
_SIDE_BY_SIDE = re.compile(
    r"\b(?:which|what)\s+(?:one|of)\b|\bbetween\b|\beach\b|\bboth\b|\bsimilar\w*|\bdiffer\w*|\bdistinct\w*|"
    r"\brelat(?:e|es|ed|ion|ionship)\b|\bin\s+common\b|\bcontrast\w*|\bcompar\w*|\bversus\b|\bvs\b|"
    # "who did better, X or Y?": the works named are the ones set against each other
    r"\bwho\s+(?:[\w-]+\s+){0,2}?(?:better|worse|best|worst|faster|slower|stronger|weaker)\b|"
    # the works named together are the subject: "X and Y: what do they measure?", "what do X and Y measure?"
    r"\b(?:they|them|their)\b|^\W*(?:what|how|which|why|where)\s+(?:[\w-]+\s+){0,3}?(?:do|are|have|were)\s",
    re.I,
)


_ASKS_YOU = re.compile(r"^\W*(?:can|could)\s+you\b", re.I)


# a choice between works: "FooNet or BarNet, which should I use?", "Is FooNet or BarNet better for X?" (not "Does
# FooNet use X or Y?", which asks about one)
_CHOOSING = (
    r"(?:which|better|best|worse|prefer\w*|choose|pick|recommend\w*|bigger|larger|smaller|faster|slower|cheaper|"
    r"stronger|weaker|higher|lower|more|less|fewer)"
)
_CHOICE = re.compile(rf"\bor\b.*\b{_CHOOSING}\b|\b(?:{_CHOOSING}|should)\b.*\bor\b", re.I)


def sets_side_by_side(question: str) -> bool:
    """Whether a question naming several works asks about them side by side (a comparison however worded, or a
    choice between them), not whether one relates to another (a polar question such as "Does FooNet outperform
    BarNet?")."""
    if choice_parts(question):
        return True
    polar = _POLAR.match(question) and not _ASKS_YOU.match(question)  # "could you …" is a request
    return bool(_SIDE_BY_SIDE.search(question)) and not polar


def asks_for_names(question: str) -> bool:
    """The answer is names: "which datasets …", "what is X evaluated on", "where is X tested"; not a yes/no question,
    which names what it asks about itself ("do they compare against proprietary models?"; one naming a work asks
    whether the abstract names it, so its sentence naming things is still wanted)."""
    polar = _POLAR.search(question) and not specific_terms(question.split("?")[0])  # "does X test on FooBench?"
    return bool(_NAMED_THINGS.search(question)) and not polar


# A question asking for names ("what backbone …", "which architecture …") about the work's experiments asks what it
# is evaluated with: "what backbone is used for the experiments", "which network is used to empirically validate X".
_EVALUATION_WORD = re.compile(r"\b(?:experiment\w*|empirical\w*|validat\w*|evaluat\w*)\b", re.I)
_EVALUATION_ASKED = re.compile(
    r"\b(?:which|what)\s+(?:[\w-]+\s+){0,3}?(?:datasets?|benchmarks?|data|environments?|tasks?|test\s*beds?)\b"
    r"|\b(?:evaluat\w*|test(?:ed|s)?|validat\w*|experiments?|benchmark(?:ed|s)?|corroborat\w*|verif\w*)\s+"
    r"(?:\w+\s+){0,2}?(?:on|across|using|with)\b"
    r"|\b(?:evaluat\w*|tested|validated|corroborat\w*|experiments?)\s*\??\s*$",
    re.I,
)


# do-support after the wh-word ("what does the score combine?"): the measure word after it is the clause's subject,
# not the value asked
_AUXILIARY = r"(?:does|do|did|can|could|will|would|should|might|may)"
_VALUE = re.compile(
    r"\b(?:what|which)\b(?:\s+(?!" + _AUXILIARY + r"\b)[\w()'’-]+){0,5}?\s+\(?(?P<measure>accuracy|scores?|fid|auc|roc-auc|"
    r"auroc|f1|bleu|rouge|"
    r"kappa|agreement|reliability|correlation|error|rates?|speed-?ups?|perplexity|precision|recall|latency|"
    r"throughput|gains?|improvements?|percentage|ratio|margin|costs?|price)\b",
    re.I,
)


_WH_CONTRACTED = re.compile(r"\b(what|how)(?:['’]s|s(?=\s+(?:the|its|their|a|an)\b))", re.I)


def uncontracted(question: str) -> str:
    """The question with a wh-word's contracted "is" written out ("what's the cost" -> "what is the cost", "whats
    the F1" likewise), so the patterns reading what is asked see the wh-word and its verb."""
    return _WH_CONTRACTED.sub(r"\1 is", question)


_WH_HEAD = re.compile(r"(?:what|which)\s+(?:of\s+the\s+|kinds?\s+of\s+|types?\s+of\s+)?([A-Za-z-]+)", re.I)


_REQUEST_OPEN = re.compile(
    r"^\W*(?:please\s+)?(?:compare|contrast|summari[sz]e|list|describe|explain|tell|give|show|name|find|report)\b", re.I
)


# what a verb is followed by: its object's determiner ("scores the symptoms", "rates each answer")
_VERB_OBJECT = re.compile(r"\s+(?:the|a|an|each|every|its|their|these|those|all|how|whether)\b", re.I)


def measure_as_verb(question: str, match: re.Match[str]) -> bool:
    """Whether the measure word a what/which match ends on is the verb of the wh-phrase, not its noun: "what
    instrument scores the symptoms", "which rubric rates each answer" ask for the instrument, not a score, as the
    object right after the word shows."""
    word = match.group(0).split()[-1].lower()
    return word.endswith("s") and not word.endswith("ss") and bool(_VERB_OBJECT.match(question, match.end()))


# after a plural measure: the work uses, defines or combines such measures ("what scores do they use", "what metrics
# does FooNet propose")
_MEASURES_USED = re.compile(
    r"\s+(?:do|does|did)\s+(?:\w+\s+){1,3}?(?:use|employ|adopt|propose|introduce|define|design|combine|compute)\b",
    re.I,
)


def measures_used(question: str, match: re.Match[str]) -> bool:
    """Whether the measure ``match`` ends on is plural and the question asks which such measures a work uses or
    defines ("what scores do they use to rank X"), not a value it reports ("what scores does FooNet reach")."""
    return match.group(0).lower().endswith("s") and bool(_MEASURES_USED.match(question, match.end()))


def value_asked(question: str, kind: Kind) -> str | None:
    """What measured value the question asks for: a number question's counted thing ("" when it names none), or
    the measure a what/which question asks ("what exact FID …", "what was the inter-rater agreement (kappa) …");
    None when no value is asked for. General vocabulary of reported results, not one question's."""
    question = uncontracted(question)
    match = _VALUE.search(question)
    if match and measure_as_verb(question, match):  # "what instrument scores the symptoms": no value asked
        match = None
    # "which OOD scores work best": which of several kinds (named ones), not a measured value; so is "what scores do
    # they use to rank X": measures a work uses or defines (an instrument), not a value it reports
    kinds_used = match is not None and measures_used(question, match)
    if match and not kinds_used and not (
        match.group(0).lower().startswith("which") and match.group("measure").lower().endswith("s")
    ):
        # "what benchmarks did it show gains on", "which model has the best accuracy": the wh-word's own noun is a
        # kind of named thing, and that is what is asked for (the measure says which one), not the value
        # "which one has the smaller error": one of the things compared, asked for by that measure
        head = _WH_HEAD.match(match.group(0))
        named = head is not None and (
            bool(set(content_words(head.group(1))) & _NAMED_KINDS) or head.group(1).lower() in ("one", "ones")
        )
        if head and named and head.end() < match.start("measure"):
            return "" if kind == "number" else None
        return match.group("measure")
    # a noun-phrase query opening with a measure: "batch size used for FooNet" (not a request: "compare the size of …")
    if not _WH_ANY.search(question) and not _REQUEST_OPEN.match(question):
        phrase = _NOUN_PHRASE_VALUE.search(question)
        if phrase is not None:
            return re.findall(_MEASURE, phrase.group(0), re.I)[0]
    return "" if kind == "number" else None


# Words between a wh-word and the measure it asks that say nothing of which measure it is
_MEASURE_FILLER = frozenset(
    "is was are were the a an of its their his her exact exactly reported overall final what which does do did".split()
)


def measure_modifiers(question: str) -> list[str]:
    """The words naming which measure a what/which question asks ("what is the average cross-tier Spearman
    correlation" -> average, cross-tier, Spearman): an abstract often writes the measure by them, or by a symbol, not
    by its head noun ("cross-tier Spearman $\\rho$ averages only $+0.08$"), so they anchor its value as well as the
    head noun. Empty when the question asks no measure that way."""
    question = uncontracted(question)
    match = _VALUE.search(question)
    if match is None:
        return []
    words = re.findall(r"[\w-]+", question[match.start() : match.start("measure")])[1:]  # after the wh-word
    return [w for w in words if w.lower() not in _MEASURE_FILLER]


def asks_for_evaluation(question: str) -> bool:
    """The question asks what a work is evaluated on: "which datasets …", "what benchmark is X tested on",
    "where are the experiments run". Its answer is the abstract's evaluation sentence (rag.roles.states_evaluation)."""
    return bool(_EVALUATION_ASKED.search(question))


# how a request is made politely: "please …", "could you (please) …", "kindly …"
_POLITE = r"(?:please\s+|(?:can|could|would)\s+you\s+(?:please\s+)?|kindly\s+)"
_MORE = re.compile(
    rf"^\W*(?:{_POLITE}?(?:tell|say|show)\s+(?:me\s+)?"
    r"(?:some\s+)?more|more\s+(?:details?|detail|info\w*|on\s+(?:it|that|this|them))|"
    rf"{_POLITE}?(?:elaborate|go\s+on|continue|expand|(?:go|dig)\s+deeper)|"
    # "could you give further details?", "please provide more information"
    rf"{_POLITE}?(?:give|provide|share)\s+(?:me\s+)?"
    r"(?:some\s+)?(?:more|further|additional)\s+(?:details?|info\w*)|(?:further|additional)\s+(?:details?|info\w*)|"
    r"what\s+else|anything\s+else|and\s+more|more)\b",
    re.I,
)
_COMPARE = re.compile(
    r"\bcompar\w*\b|\bvs\.?(?=\s)|\bversus\b|^\s*both\b(?=.*\beach\b)|\bdiffer\w*\s+(?:between|from)\b|\bcontrast\w*\b|"
    r"\b(?:difference|differences|similarit\w+|relation|relationship|distinction)\s+(?:between|of)\b|"
    r"\bhow\s+(?:does|do)\s+.+\s+differ\b|"
    # "how does FooNet relate to BarNet": two names (not "how does the gap relate to model size")
    r"\bhow\s+(?:does|do|is|are)\s+[^?]*?(?-i:[A-Z])[^?]*?\s+relate[sd]?\s+to\s+[^?]*?(?-i:[A-Z])|"
    # "how are X and Y different", "what do X and Y have in common", "what separates X from Y"
    r"\bhow\s+(?:is|are)\s+[^?]+?\s+(?:different|alike|similar)\b|\bwhat\s+(?:do|does)\s+[^?]+\s+have\s+in\s+common\b|"
    r"\b(?:what|which)\s+(?:separates|distinguishes|sets)\s+[^?]+?\s+(?:apart\s+)?from\b|"
    # "set X side by side with Y"; "X and Y both target Z. What's the difference?" (the works, then a question about
    # how they differ or what each does)
    r"\bside\s+by\s+side\b|"
    r"^[^?.]+?\s+and\s+[^?.]+?\s+(?:(?:are|were|do|did|can|have)\s+)?(?:both|all)\b.*\b(?:differ\w*|relate|each)\b",
    re.I,
)
_YES_NO = re.compile(
    r"^\s*(?:(?:is|are)\s+there\s+(?:any|a|an|some)?\s*(?:papers?|works?|abstracts?|stud(?:y|ies)|research|"
    r"methods?|benchmarks?|datasets?)\b|(?:is|are)\s+there\s+(?:anything|something)\s+(?:on|about)\b|(?:does|do)\s+(?:any|a|an|some)\s+(?:of\s+the\s+)?(?:papers?|works?|"
    r"abstracts?|stud(?:y|ies)|submissions?|articles?|publications?|preprints?)\b|(?:has|have)\s+(?:anyone|any\s+(?:paper|work)s?)\b|(?:any|a)\s+papers?\s+"
    r"(?:on|about)\b"
    # typed the short way: "any work on X?", "any paper w/ X", "anything on X"
    r"|(?:anything|any\s+(?:papers?|works?|stud(?:y|ies)|research|articles?|abstracts?))\s+(?:on|about|into|using|uses|relevant\s+(?:to|for)|"
    r"with|w/|that|which|for|regarding|related\s+to|in|(?!(?:bring|sing|thing)(?!\w))\w+ing)(?!\w)"
    # "is there any X paper", "does anyone do X", "anyone working on X?"
    r"|(?:is|are)\s+there\s+(?:any|a|an|some)\s+(?:[\w/+-]+\s+){1,4}?(?:papers?|works?|stud(?:y|ies)|research)\b"
    r"|(?:does|has|did|have)\s+any(?:one|body)\b|any(?:one|body)\s+(?:working|work(?:ed)?|done|doing|tried|stud\w+)\b"
    # "has someone studied X?", "is anyone working on X?", "has there been work on X?", "was there a paper on X?",
    # "do we have a paper on X?", "know of any work on X?"
    r"|(?:has|have|did|does)\s+(?:someone|somebody)\b"
    r"|(?:is|are)\s+(?:anyone|anybody|someone|somebody)\s+(?:working|studying|looking|doing|researching)\b"
    r"|(?:(?:has|have)\s+there\s+been|(?:was|were)\s+there)\s+(?:any|a|an|some)?\s*(?:papers?|works?|stud(?:y|ies)|"
    r"research)\b"
    r"|(?:do|did)\s+(?:we|you)\s+have\s+(?:any|a|an|some)\s+(?:papers?|works?|stud(?:y|ies)|research|abstracts?)\b"
    r"|(?:do\s+you\s+)?know\s+(?:of\s+)?(?:any|a|an|some)\s+(?:papers?|works?|stud(?:y|ies)|research)\b)",
    re.I,
)
# asked indirectly or formally: "I would like to know whether any abstract discusses X", "Does the corpus contain a
# study on X?", "Exist any work about X?"
_YES_NO_INDIRECT = re.compile(
    r"\b(?:whether|if)\s+(?:there\s+(?:is|are|exists?)\s+)?(?:any|a|an|some)\s+(?:of\s+the\s+)?(?:papers?|works?|"
    r"abstracts?|stud(?:y|ies)|research|articles?)\b|\b(?:whether|if)\s+there\s+(?:is|are|exists?)\s+(?:research|work)\b"
    r"|^\W*(?:does|do)\s+(?:the|this|your)\s+(?:corpus|collection|set|database|index|library)\s+(?:contain|include|"
    r"have|hold|cover)\s+(?:any|a|an|some)\b|^\W*(?:there\s+)?exists?\s+(?:any|a|an|some)\s+(?:papers?|works?|"
    r"stud(?:y|ies)|research|articles?)\b"
    # "do you have anything on X?", "got anything on X?", "does the collection include anything on X?", "does anything
    # here deal with X?"
    r"|\b(?:do\s+you\s+have|have\s+you\s+got|got|does\s+(?:the|this|your)\s+(?:corpus|collection|set|database|index|"
    r"library)\s+(?:contain|include|have|hold|cover))\s+(?:anything|something)\s+(?:on|about|regarding|related\s+to|"
    r"relevant\s+to)\b|^\W*does\s+anything\s+(?:here\s+|in\s+here\s+)?(?:deal|concern|relate|address|cover|touch|treat)"
    # "is X addressed anywhere?", "is X covered in any of the papers?"
    r"|^\W*(?:is|are)\s+(?:[\w/+-]+\s+){1,5}?(?:addressed|covered|discussed|studied|tackled|treated|explored|"
    r"investigated|mentioned)\s+(?:anywhere|at\s+all|in\s+(?:any\s+(?:of\s+the\s+)?(?:papers?|abstracts?|works?)|"
    r"(?:these|the)\s+(?:papers|abstracts|works)|(?:this|the)\s+(?:collection|corpus|set)))\b",
    re.I,
)
# the request typed after its topic, behind a dash, comma or colon: "X — anything?", "X, anything on Y?", "X — any in
# this set?", "X — any papers?"; or a topic's papers asked for before a dash or comma says more of it: "any X papers —
# …", "X papers, like …"
_TRAILING_REQUEST = re.compile(
    r"(?:[\u2014\u2013:;,]|\s-)\s*(?:anything|any(?:\s+(?:papers?|works?|stud(?:y|ies)|research|articles?|abstracts?|"
    r"submissions?))?)(?:\s*[?.!]*\s*$|\s+(?:on|about|regarding|like|similar|related|relevant|here|in\s+(?:here|this|"
    r"the|these)|this\s+year|at\s+all)\b)"
    r"|^\W*(?:any\s+)?(?!(?:how|what|which|why|when|where|who|whose|do|does|did|is|are|was|were|can|could)\b)"
    r"(?:[\w/+-]+\s+){1,5}?(?:papers|studies)\s*(?:[\u2014\u2013:;,]|\s-\s)",
    re.I,
)
_PLURAL_PAPERS = re.compile(r"\b(?:papers|works|studies|abstracts|articles|publications)\b", re.I)
_SUMMARY = re.compile(
    r"\bsummar(?!i[sz]ation)\w+\b|\boverview\b|\bwhat\s+(?:does|do)\s+(?:this|the|these)\s+(?:corpus|collection|set|abstracts|papers)\s+"
    r"(?:contain|have|hold|include|cover)\s+(?:on|about|regarding)\b|\brecap\b|\btl;?dr\b|\brundown\b|\bwhat(?:'s|\s+is)\s+(?:new|happening)\b(?:\s+\w+){0,3}?\s+(?:in|on|about|with)\b|\b(?:recent|latest|newest|current)\s+" + _PROGRESS + r"\s+(?:in|on|about)\b|\btrends?\s+in\b|\bsurvey\s+(?:of|the)\b|\bwhat\s+(?:do|does)\s+(?:the\s+|these\s+|those\s+|this\s+)?"
    r"(?:papers|abstracts|corpus|works|collection|literature|research)(?:\s+here|\s+in\s+(?:this|the)\s+(?:set|collection|corpus))?\s+"
    r"(?:say|find|show|report|tell\s+us|conclude|contribute|offer)\b|\bgive\s+me\s+(?:an?\s+)?(?:rundown|summary|sense)\b|"
    r"\bsynopsis\b|\bround-?up\b|" + _READING_LIST + r"|"
    r"\bwhat\s+is\s+known\s+about\b|\bwhat(?:'s|\s+has|\s+have)\s+(?:been\s+(?:done|published|written)|people\s+done)\s+"
    r"(?:here\s+)?(?:on|about|in|for)\b|\bwhat\s+is\s+being\s+done\s+(?:on|about|in|for)\b"
    # what the collection holds on a topic: "what is there on X", "what's in here about X", "what do you have on X",
    # "what in here is relevant to X", "what can you tell me about the X research"
    r"|\bwhat(?:'s|\s+is|\s+else\s+is)\s+(?:in\s+)?(?:there|here|available|(?:the|this)\s+(?:corpus|collection|set|"
    r"library|index|database))\s+(?:on|about|regarding|concerning)\b"
    # the topic said first, then what the collection holds of it: "FooNet pruning and distillation. What's there?"
    r"|[.!?:;\u2014-]\s*what(?:'s|\s+is)\s+(?:in\s+)?(?:there|here|available)(?:\s+on\s+(?:it|that|this))?\s*\??\s*$"
    # what the collection covers of a topic: "what's covered on X", "what is covered about X"
    r"|\bwhat(?:'s|\s+is|\s+gets|\s+has\s+been)\s+covered\s+(?:here\s+)?(?:on|about|regarding|concerning)\b"
    r"|\bwhat\s+(?:do|does)\s+(?:you|the\s+(?:corpus|collection|index|library))\s+have\b(?!\s+(?:to|in\s+common)\b)"
    r"|\bwhat(?:'s|\s+is)\s+(?:relevant|useful|of\s+interest)\s+(?:to|for)\b"
    r"|\bwhat\s+(?:in\s+here|here|in\s+(?:this|the)\s+(?:collection|corpus|set))\s+(?:is|are)\s+(?:relevant|related|"
    r"useful|applicable)\s+(?:to|for)\b|\bwhat\s+can\s+you\s+tell\s+(?:me|us)\s+about\s+(?:the\s+)?(?:[\w/+-]+\s+){0,4}?"
    r"(?:research|work|papers|literature|studies)\b"
    # what the papers (plural) of a kind say, the kind between article and noun: "what do the theory papers on X say",
    # "what do the FooBench / BarBench benchmark papers cover"
    r"|\bwhat\s+(?:do|did)\s+(?:the|these|those)\s+[^?.!]{1,80}?\b(?:papers|abstracts|works|studies)\b[^?.!]*?\b"
    r"(?:say|find|show|report|cover|conclude|contribute|offer|propose|claim)\W*$"
    # asked to describe the papers (plural) or the work on a topic: "describe the papers that address X", "explain the
    # main findings of papers on X", "tell me about the research on X", "the state of research on X"
    r"|\b(?:describe|explain|discuss|outline|review|tell\s+(?:me|us)\s+about)\s+(?:(?:all|the|these|those|any|some|"
    r"main|key)\s+)*(?:[\w/+-]+\s+){0,3}?(?:(?:papers|studies|abstracts|articles|publications)\b|(?:research|work|"
    r"literature)\s+(?:on|about|into|regarding)\b)|\bstate\s+of\s+(?:the\s+)?(?:research|art|field|work)\s+(?:on|about|"
    r"in|regarding)\b|\bgive\s+(?:me\s+|us\s+)?an?\s+(?:account|picture|survey|review)\s+of\b"
    # what the papers (plural) did or how they go about a topic: "what did the papers find", "what kind of work has been
    # done on X", "how do the papers approach X", "compare the approaches of the papers on X"
    r"|\bwhat\s+did\s+(?:the\s+|these\s+|those\s+)?(?:papers|abstracts|works|studies)\s+(?:say|find|show|report|"
    r"conclude|contribute)\b|\b(?:what|which)\s+(?:kinds?|sorts?|types?)\s+of\s+(?:work|research|studies|papers)\s+"
    r"(?:has|have|exists?|is|are)\b|\bhow\s+(?:do|did)\s+(?:the\s+|these\s+|those\s+|different\s+|various\s+)?"
    r"(?:papers|works|studies|abstracts)\b|\bcompar\w*\s+(?:the\s+)?(?:approaches|methods|findings|results|"
    r"contributions)\s+of\s+(?:the\s+|these\s+)?(?:papers|works|studies)\b"
    # a broad view of a topic asked for: "the landscape of X", "a broad picture of the work on X", "sum up the work
    # on X", "what is done in these papers about X", "what's the corpus got on X", "what is there this year on X",
    # what the papers or the field (plural or collective) offered on a topic: "what insights did this year's papers
    # offer about X", "what did the field contribute on X", "what do the papers on X find"
    r"|\blandscape\s+(?:of|on|in|for)\b|\b(?:broad|big|overall|general|full|rough)\s+(?:picture|view|sense)\s+of\b"
    r"|\bsum\s+up\b|\bwhat(?:'s|\s+is|\s+has\s+been)\s+(?:being\s+)?done\s+in\s+(?:the|these|those|this)\s+"
    r"(?:papers|abstracts|works|studies|collection|corpus)\s+(?:on|about|regarding|for)\b"
    r"|\bwhat(?:'s|\s+has|\s+have)\s+(?:the|this|you)\s*(?:corpus|collection|set|library|index)?\s+got\s+(?:on|about|"
    r"regarding)\b|\bwhat(?:'s|\s+is)\s+there\s+(?:this\s+year|here|in\s+(?:this|the)\s+(?:collection|corpus|set))\s+"
    r"(?:on|about|whose|that|which|regarding|concerning)\b"
    r"|\bwhat\s+(?:[\w-]+\s+){0,3}?(?:did|do|does)\s+(?:the\s+|these\s+|those\s+|this\s+year's\s+|(?:this|the)\s+"
    r"(?:year|conference)'s\s+)?(?:papers|works|studies|abstracts|field|literature|community)\s+(?:[\w-]+\s+){0,1}?"
    r"(?:say|find|show|report|conclude|contribute|offer|propose)\b"
    r"|\bwhat\s+(?:do|did)\s+(?:the|these|those)\s+(?:papers|abstracts|works|studies)\s+(?:on|about|in|into)\s+"
    r"[^?.!]{1,120}?\b(?:say|find|show|report|conclude|contribute|offer|propose|claim)\W*$",
    re.I,
)
_HOW_WHY = re.compile(
    r"^\s*(?:(?:and\s+)?(?:how|why)\b(?!\s+(?:many|much|large|big|long|fast|well|often|accurate|good)\b)"
    r"(?!.*\bperform\w*\b)|"
    r"what\s+(?:mechanism|makes|explains|causes|is\s+the\s+(?:mechanism|reason|key\s+idea|idea|intuition))|"
    r"in\s+what\s+way|explain\b)",
    re.I,
)


_WHY = re.compile(r"^\s*(?:and\s+)?why\b|\bwhat\s+(?:makes|causes|explains)\b|\bwhat\s+is\s+the\s+reason\b", re.I)
_FAILS = re.compile(
    r"\b(?:poor\w*|fail\w*|struggl\w*|degrad\w*|fall\w*\s+short|fell\s+short|break\w*\s+down|broke\s+down|"
    r"hard|harder|difficult|worse|underperform\w*|suffer\w*|brittle|limited|unreliable|collaps\w*|miss\w*|"
    r"wrong|incorrect\w*|mistak\w*|confus\w*|"
    r"(?:does|do|did|is|are)\s*n[o']t|not\s+(?:work|generali[sz]e|transfer|scale))\b",
    re.I,
)


def explains_failure(question: str) -> bool:
    """A why-question about a shortcoming ("why do X fail on Y", "what makes X generalize poorly"): its answer is
    the abstract's diagnosis (its gap sentences), not the method that fixes it."""
    return bool(_WHY.search(question)) and bool(_FAILS.search(question))


_REMEDY = re.compile(
    r"\b(?:how|what)\b.{0,60}\b(?:fix|fixe[sd]|address\w*|solv\w*|overcom\w*|mitigat\w*|remed\w*|resolv\w*|tackl\w*|"
    r"cure[sd]?|repair\w*)\b",
    re.I,
)


# "what problem does X address", "which limitations of existing benchmarks does X fix", "what gap does it fill",
# "what challenges does it tackle": the answer is the abstract's diagnosis (its gap sentences) of what it remedies
_PROBLEM_ADDRESSED = re.compile(
    r"\b(?:what|which)\s+(?:[\w-]+\s+){0,2}?(?:problems?|issues?|gaps?|limitations?|shortcomings?|challenges?|"
    r"questions?|difficult(?:y|ies)|bottlenecks?|failures?|weakness(?:es)?|flaws?|pitfalls?)\b.{0,80}?"
    r"\b(?:does|do|did|is|are|was|were|can|could|will|would|has|have|had)\b.{0,60}?\b(?:"
    r"address\w*|solv\w*|tackl\w*|fix\w*|overcom\w*|mitigat\w*|resolv\w*|clos(?:e|es|ed|ing)|fill\w*|target\w*|"
    r"remed\w*|answer\w*|handl\w*|attack\w*)\b",
    re.I,
)


# The words saying that a problem is asked for and remedied: the answer's category and relation, which an abstract
# writes its own way ("This gap reflects three evaluation failures", "existing benchmarks are atomic")
_PROBLEM_WORDS = frozenset(
    content_words(
        "problem problems issue issues gap gaps limitation limitations shortcoming shortcomings challenge challenges "
        "bottleneck bottlenecks failure failures weakness weaknesses flaw flaws pitfall pitfalls address addresses "
        "addressed solve solves solved tackle tackles tackled fix fixes fixed overcome overcomes mitigate mitigates "
        "resolve resolves close closes closed fill fills filled target targets targeted remedy remedies remedied "
        "difficulty difficulties handle handles handled attack attacks"
    )
)


def asks_problem_addressed(question: str) -> bool:
    """The question asks what problem a work remedies ("what problem does FooNet address?", "which shortcomings of
    earlier methods does it fix?"): its answer is the abstract's gap sentences, not its contribution."""
    return bool(_PROBLEM_ADDRESSED.search(question))


_FINDINGS = re.compile(
    r"\b(?:main|key|central|primary|headline|major|core)\s+(?:results?|findings?|takeaways?|conclusions?|lessons?|"
    r"insights?|message)\b"
    r"|\bwhat\s+(?:did|do|does)\s+(?:[\w-]+\s+){1,3}?(?:find|conclude|observe|discover|learn|reveal|show|achieve|"
    r"accomplish|attain)\b"
    r"|\b(?:what|which)\s+(?:are|were|is|was)\s+(?:the\s+|their\s+|its\s+)?(?:[\w'’-]+\s+){0,2}?(?:results?|findings?|"
    r"takeaways?|conclusions?)\b"
    r"|\bhow\s+(?:do|does|did)\s+(?:[\w-]+\s+){1,4}?(?:do|perform|fare)\b|\bhow\s+well\b"
    # what is surprising about it: what it found that was not expected ("what's surprising in X?")
    r"|\b(?:surprising|unexpected|counter-?intuitive|striking|remarkable)(?:\s+(?:results?|findings?|about|in|of)\b|"
    r"\W*$)|\bwhat\s+(?:surprised|was\s+surprising)\b"
    r"|^\W*(?:and\s+)?(?:what\s+about\s+)?(?:the\s+|its\s+|their\s+|(?:the\s+)?[\w-]+(?:\s+(?:one|paper|work|study|"
    r"method|model|approach|benchmark))?['’]s\s+)?(?:main\s+|key\s+)?(?:results?|findings?)"
    r"(?:\s+(?:of|for|from|in)\s+[^?.!;]+)?\W*$",
    re.I,
)


def asks_findings(question: str) -> bool:
    """The question asks what a work found or how well it does ("what was the main finding?", "what did they
    conclude?", "how do models do on it?", "and the results?", "how does it compare to prior methods?"): its answer
    is the abstract's result sentences."""
    return bool(_FINDINGS.search(question)) or against_prior_work(question)


# What a work is measured against when no other work is named: "prior methods", "existing approaches", "the
# baselines", "the state of the art", "previous work"
# the words setting work before this one ("previous", "existing"): earlier work of a kind when they lead a description
_EARLIER = "prior previous existing earlier older standard conventional traditional classic classical usual typical"
_PRIOR_WORK_STEMS = frozenset(
    content_words(
        f"{_EARLIER} other others current competing competitor "
        "competitors strong strongest leading popular common baseline baselines state-of-the-art state art sota "
        "alternative alternatives method methods approach approaches work works model models technique techniques "
        "system systems solution solutions"
    )
)
_BARE_COMPARE = re.compile(
    r"^\W*(?:and\s+|so\s+)?how\s+(?:does|do|did)\s+"
    r"(?!they\b|these\b|those\b|both\b|the\s+(?:two|three|papers|works)\b)(?:(?!and\b|or\b)[\w'’.&-]+\s+){1,5}?"
    r"(?:compare|stack\s+up|measure\s+up|fare)\W*$",
    re.I,
)


def against_prior_work(question: str) -> bool:
    """The question sets one work against earlier work in general, naming no other ("how does FooNet compare to prior
    methods?", "how does it stack up against the baselines?", "how does FooNet compare?", not "how do they compare?"
    after several papers): it asks how well the work does, which its result sentences say, not for a comparison of
    two works of the corpus."""
    if _BARE_COMPARE.match(question):
        return True
    if not (_COMPARE.search(question) or re.search(r"\b(?:stack|measure)\s+up\b|\bfares?\b", question, re.I)):
        return False
    parts = compare_parts(question)
    # "how does it compare to humans?", "how does FooNet compare to summarisation baselines?": one work (named or
    # pointed at) set against things described in plain words, which only its own abstract can speak of
    pointing = bool(parts) and parts[0].lower() in _POINTING_AT_WORK
    one_work = pointing or (bool(parts) and any(has_name_capitals(t) for t in parts[0].split()))
    return len(parts) >= 2 and any(
        (words := content_words(part))
        and (
            all(w in _PRIOR_WORK_STEMS for w in words)
            or (_EARLIER_KIND.match(part) and not any(has_name_capitals(t) for t in part.split()))
            or (
                one_work
                and not any(has_name_capitals(t) or any(c.isdigit() for c in t) for t in part.split())
                and (pointing or words[-1] in _PRIOR_WORK_STEMS)
                and not describes_work(part)
            )
        )
        for part in parts[1:]
    )


_POINTING_AT_WORK = frozenset({"it", "this", "that", "this one", "that one", "this work", "this paper", "that paper"})


# earlier work of a kind, described, not named: "previous code localization tools", "existing calibration methods"
_EARLIER_KIND = re.compile(
    rf"^\W*(?:the\s+)?(?:{'|'.join(_EARLIER.split())})\s+(?!papers?\b|works?\b\s+(?:in|of)\b)\w", re.I
)


_TAKEAWAY = re.compile(
    r"\b(?:(?:main|key|central|overall|big|bottom[- ]line)\s+(?:takeaways?|conclusions?|message|lessons?)|takeaways?|"
    r"conclu(?:de|ded|des|sion|sions)|bottom\s+line)\b",
    re.I,
)


def asks_takeaway(question: str) -> bool:
    """The question asks for the work's main takeaway or conclusion ("what was the main takeaway?", "what do they
    conclude?"): its answer is the sentence drawing the conclusion (rag.roles.concludes)."""
    return bool(_TAKEAWAY.search(question))


_SIGNIFICANCE = re.compile(
    r"\bwhy\s+(?:does|do|did|would|should|is|are|was|were)\s+(?:that|this|it|these|those|they|(?:this|that|the)\s+"
    r"[\w-]+|[\w-]+)\s+(?:\w+\s+)?(?:matters?|important|significant|useful|relevant|valuable|needed|a\s+big\s+deal)\b"
    r"|\bwhy\s+(?:should|would|do|does)\s+(?:i|we|you|anyone|one|people|practitioners|researchers)\s+care\b"
    # "the significance of X", "any implications?", not "importance sampling" or "the significance level"
    r"|\b(?:significance|importance|implications?)\b(?=\s+(?:of|for)\b|\s*[?.!]|\s*$)"
    r"|^\W*(?:and\s+|ok(?:ay)?,?\s+)?so\s+what\b"
    r"|\bwhy\s+(?:is|was)\s+(?:that|this|it)\s+(?:a\s+)?(?:problem|concern|an\s+issue)\b"
    # "what does that mean for patients?", "what would this mean in practice?": what the result implies, not what
    # a term means ("what does ECE mean?")
    r"|\bwhat\s+(?:does|do|would|could|might|will)\s+(?:that|this|it|these|those|they|(?:this|that|the|these|those)\s+"
    r"(?:result|finding|work|paper|study)s?)\s+mean\s+(?:for|in\s+practice|practically)\b",
    re.I,
)


def asks_significance(question: str) -> bool:
    """The question asks why a work or its result matters ("why does that matter?", "why is this important?", "what
    are the implications?", "so what?", "what does that mean for patients?"): its answer is why the problem matters (the abstract's set-up: background
    and gap sentences) and what the work concludes, not how the method works."""
    return bool(_SIGNIFICANCE.search(question))


def asks_remedy(question: str) -> bool:
    """The question also asks how a shortcoming is fixed ("…, and how do the authors fix it?")."""
    return bool(_REMEDY.search(question))


_QUESTION_CUE = re.compile(
    r"\?|^\s*(?:who|what|which|when|where|why|how|is|are|was|were|do|does|did|can|could|should|would|will|has|have|"
    r"list|name|find|show|tell|give|explain|compare|summari[sz]e|describe)\b"
    # a wh-word after a conjunction or preposition opening a follow-up ("and which datasets", "on what data")
    r"|^\W*(?:(?:and|so|but|then|ok(?:ay)?)[\s,]+)?(?:(?:in|on|for|with|from|by|at|of|under|against|across|over|to|"
    r"into|during)\s+)?(?:who|whom|whose|what|whats|which|when|where|why|how)\b"
    # a question typed after its keywords: "foobench size how many images", "barnet what does it prune"
    r"|\b(?:how\s+(?:many|much|does|do|did|is|are|well)|what\s+(?:is|are|does|do|did))\b",
    re.I,
)


def is_terse(question: str, max_words: int = 8) -> bool:
    """A keyword query ("sparse probe pruning accuracy"): a few words, no question word, verb of asking or '?'; a
    '?' after keywords alone ("quux learning under label noise?") is still one: a topic typed with a question mark,
    no wh-word anywhere in it."""
    if len(question.split()) > max_words:
        return False
    if not _QUESTION_CUE.search(question):
        return True
    bare = _TRAILING_QUESTION_MARK.sub("", question)
    return (
        bare != question
        and not _QUESTION_CUE.search(bare)
        and not _WH_WORD.search(bare)
        and not _CONTINUATION.match(bare)  # "and the results on X?": a follow-up's ask, not a topic
    )


_TRAILING_QUESTION_MARK = re.compile(r"\?+[\s.!]*$")
_CONTINUATION = re.compile(r"^\W*(?:and|so|but|then|also|plus|ok(?:ay)?|now)\b", re.I)
_WH_WORD = re.compile(r"\b(?:who|whom|whose|what|whats|which|when|where|why|how)\b", re.I)


# A request for papers by whether they release their code, data or models ("which papers release code?", "drug
# discovery papers w/ code?", "is any dataset publicly available?"): stricter than _WANTS_AVAILABILITY, where "code"
# alone ("papers on code generation") names a topic.
_WANTS_RELEASED = re.compile(
    r"\b(?:release[ds]?|releasing|availability|open[- ]sourc\w*|"
    # "available" said of them ("is the data available?"), not describing what they use ("publicly available data")
    r"available(?=\s*(?:$|[?.!,;:)]|(?:at|on|online|for|to|via|from|now|yet|anywhere|publicly|openly)\b))|"
    r"github|repositor(?:y|ies)|repos?|downloadable)\b|"
    r"\b(?:with|w/|has|have|having|share[sd]?|sharing|provides?|providing|publish(?:es|ed)?)\s+(?:their\s+|its\s+|"
    r"the\s+|public\s+|open\s+)?(?:code|data|weights|checkpoints|models?|implementations?)\b|"
    r"\b(?:code|data|weights|checkpoints)\s+(?:is\s+|are\s+)?(?:out|online|public)\b",
    re.I,
)

# The words of such a request ("release", "code", "github"…): none of them is the topic of the papers asked for.
RELEASE_WORDS = frozenset(
    content_words(
        "release released releases releasing available availability publicly freely openly open source sourced "
        "open-source open-sourced github repository repositories repo repos downloadable code data weights "
        "checkpoints dataset datasets implementation implementations share shares shared sharing provide provides providing publish "
        "publishes published public online out link links url"
    )
)


def asks_for_released(question: str) -> bool:
    """Whether a request for papers asks which of them release their code, data or models (see _WANTS_RELEASED)."""
    return bool(_WANTS_RELEASED.search(question))


# A question about the whole collection rather than a topic in it: "what are the main themes of this year's papers?",
# "what topics do these abstracts cover?", "give me an overview of the collection", "summarize all the papers".
_OVERVIEW_ASK = re.compile(
    r"\b(?:themes?|topics?|areas?|trends?|subjects?|fields?|kinds?|sorts?|types?|overview|summar\w*|gist|landscape|"
    r"cover(?:s|ed)?|about)\b",
    re.I,
)
_WHOLE_COLLECTION = re.compile(
    r"\b(?:papers|abstracts|works|submissions|articles|collection|corpus|conference|neurips|this\s+year)\b", re.I
)
_OVERVIEW_WORDS = frozenset(
    content_words(
        "main major key big biggest common recurring general overall broad broadly theme themes topic topics area "
        "areas trend trends subject subjects field fields overview landscape cover covers covered about year years "
        "conference neurips 2026 collection corpus whole entire all everything submissions accepted articles "
        "research gist kind kinds sort sorts type types this these here"
    )
)


# several themes asked of nothing named are the collection's; one work's are asked with "it", "its", "this paper"
_THEMES = re.compile(r"\b(?:themes|topics|(?:research\s+)?areas|trends|subjects|research\s+directions)\b", re.I)
_REFERS_TO_ONE = re.compile(r"\b(?:it|its|this\s+(?:paper|work|one|study|abstract)|they|their|them)\b", re.I)


def asks_collection_overview(question: str) -> bool:
    """Whether the question asks what the whole collection is about (its themes), naming no topic of its own: "what
    are the main themes of this year's papers?", "what do these abstracts cover?", "summarize all the papers". Not
    "what is this paper about?" (one paper) nor "which papers are about FooNet?" (a topic)."""
    whole = _WHOLE_COLLECTION.search(question) or (  # "what are the main themes?": themes, of nothing named
        _THEMES.search(question) and not _REFERS_TO_ONE.search(question)
    )
    if not (_OVERVIEW_ASK.search(question) and whole):
        return False
    text = _THE_COLLECTION.sub(" ", question)
    return not [w for w in content_words(text) if w not in _QUESTION_WORDS and w not in _OVERVIEW_WORDS]


# A request for a one-line answer: "a one-line summary of each paper on X", "summarize FooNet in one sentence",
# "in a sentence, what does X do?", "tl;dr of X".
_BRIEF = re.compile(
    r"\b(?:one|a|single|1)[-\s]?(?:line|sentence)(?:r|s)?\b(?!\s+(?:of\s+)?(?:code|text|search))|"
    r"\bin\s+(?:a\s+(?:single\s+)?|one\s+|1\s+)(?:line|sentence)\b|\btl;?dr\b",
    re.I,
)


def asks_brief(question: str) -> bool:
    """Whether the question asks for a one-line answer ("a one-sentence summary of each paper on X", "in a
    sentence, what does FooNet do?", "tl;dr"): each paper is then quoted by its one line."""
    return bool(_BRIEF.search(question))


def is_more_request(question: str) -> bool:
    """'tell me more', 'more details', 'go on': asks for more of the previous answer's papers."""
    return bool(_MORE.search(question)) and len(question.split()) <= 8


# A number typed against its unit or noun ("4bit", "8gb", "100ms", "2layer"): the digits, then two or more letters
# (not an ordinal's "th"/"st"/"nd"/"rd"), standing alone (not inside a name such as "Qwen1.5-MoE" or "gpt-4o").
_GLUED_QUANTITY = re.compile(r"(?<![\w.\-])(\d+(?:\.\d+)?)([A-Za-z]{2,})\b")
_ORDINAL_SUFFIXES = frozenset({"st", "nd", "rd", "th"})
# Units typed against numbers that a general word list may lack.
_UNIT_ABBREVIATIONS = frozenset("gb mb kb tb gib mib ms ns hz khz mhz ghz fps tflops flops bit bits".split())


def split_glued_quantities(question: str, words: Collection[str]) -> str:
    """Write a number typed against a word of ``words`` (lower-case English words) or a unit abbreviation apart from
    it: "quantization 4bit" reads as "4 bit", so neither a name check nor BM25 takes "4bit" for an unknown name.
    Letters that are no word ("3DGS", "7B") stay: a name or a model size."""

    def split(match: re.Match[str]) -> str:
        number, letters = match.groups()
        lowered = letters.lower()
        if lowered in _ORDINAL_SUFFIXES or (lowered not in words and lowered not in _UNIT_ABBREVIATIONS):
            return match.group(0)
        return f"{number} {letters}"

    return _GLUED_QUANTITY.sub(split, question)


# Words that carry a question's shape, so that a typo in them ("how mnay") does not change the plan.
_SHAPE_WORDS = ("many", "much", "which", "what", "papers", "paper", "compare", "between", "there", "summarize")
_WORD_TOKEN = re.compile(r"[A-Za-z]+")


def fix_shape_words(question: str) -> str:
    """Correct typos in the few words that decide a question's shape (rapidfuzz ratio >= 75, same first letter)."""
    from rapidfuzz import fuzz, process
    from rapidfuzz.distance import OSA

    from rag.lexicon import english_words
    from rag.word_frequency import zipf_frequency

    english = english_words()

    def fix(match: re.Match[str]) -> str:
        word = match.group(0)
        lowered = word.lower()
        if len(lowered) < 4 or lowered in _SHAPE_WORDS or lowered in english:
            return word  # a shape word, or an English word ("compared" is not a typo of "compare")
        best = process.extractOne(lowered, _SHAPE_WORDS, scorer=fuzz.ratio, score_cutoff=75)
        if best is None or best[0][0] != lowered[0] or abs(len(best[0]) - len(lowered)) > 1:
            return word
        if sorted(best[0]) == sorted(lowered) or best[1] >= 85:
            return best[0]
        # one edit in a longer word ("papnrs", "wrich") that is not itself an English word ("theme", "manly")
        if len(lowered) >= 5 and OSA.distance(lowered, best[0]) <= 1 and zipf_frequency(lowered) < 2.0:
            return best[0]
        return word

    question = _WORD_TOKEN.sub(fix, question)
    question = fix_grammar_words(question)
    # "dose"/"deos" where an auxiliary verb stands (before a name or a pronoun): "… screens dose FooNet use?"
    return with_do_support(_AUX_TYPO.sub("does", question))


# A wh-question written without its do-support, as learners of English and hasty typists write ("how much it
# improves on X", "which baselines they compare against", "what data it uses"): the wh-phrase (a wh-word and up to two
# words, at the start, after a clause's comma or after "and"), a subject pronoun, then a verb of the present tense
_NO_DO_SUPPORT = re.compile(
    r"(?P<lead>(?:^|[,;:]\s*|\band\s+)\W*(?:how(?:\s+(?:much|many|fast|long|big|large|well|often|far))?|what|which|where)"
    r"(?:\s+(?!(?:it|they|we|he|she|you|do|does|did|is|are|was|were|can|could|will|would|shall|should|may|might|must|"
    r"has|have|had)\b)[\w-]+){0,2})\s+(?P<subject>it|they|we|he|she|you)\s+(?P<verb>[a-z]+)\b",
    re.I,
)
# verbs that take no do-support ("how big it is", "what it can do"), common irregular past tenses ("what they
# found"), and adverbs that may stand before the verb
_NO_DO_VERBS = frozenset(
    "is are was were am be been being can could will would shall should may might must do does did has had have "
    "not also only just really still never always found got made said took ran saw built chose gave kept left led "
    "lost meant met paid put read set sent spent thought told understood won wrote drew grew knew threw began "
    "brought bought caught taught fought sought held felt fell".split()
)


def with_do_support(question: str) -> str:
    """The question with the auxiliary a wh-question without its do-support leaves out ("how much it improves on
    X?" -> "how much does it improve on X?", "which baselines they compare against?" -> "which baselines do they
    compare against?"), so that its verb reads as the verb, as in the grammatical question, not as a word asked about
    ("improves" as the value's focus). Only a pronoun subject and a verb whose base form is an English word; a past
    tense, a form of "be" or "have" or a modal is left alone ("how big it is", "what it can do")."""
    from rag.lexicon import english_words

    english = english_words()

    def insert(match: re.Match[str]) -> str:
        subject, verb = match.group("subject"), match.group("verb")
        lowered = verb.lower()
        past = lowered.endswith("ed") and any(len(w) > 2 and w in english for w in (lowered[:-1], lowered[:-2], lowered[:-3]))
        if lowered in _NO_DO_VERBS or past:  # "what they used": a past tense ("need" is none)
            return match.group(0)
        if subject.lower() in ("it", "he", "she"):
            if not lowered.endswith("s") or lowered.endswith("ss"):
                return match.group(0)  # "how it work": not the present tense of a third person
            stems = [lowered[:-3] + "y"] if lowered.endswith("ies") else []
            stems += [lowered[:-1]]
            stems += [lowered[:-2]] if re.search(r"(?:s|x|z|ch|sh|o)es$", lowered) else []
            base = next((b for b in stems if b in english), None)
            auxiliary = "does"
        else:
            base, auxiliary = (lowered if lowered in english else None), "do"
        if base is None:
            return match.group(0)
        return f"{match.group('lead')} {auxiliary} {subject} {base}"

    return _NO_DO_SUPPORT.sub(insert, question)


# The words a question's grammar is made of: a slip in one ("wht", "whih", "thay") makes no English word, and
# "how man" / "des the" no English phrase.
_GRAMMAR_WORDS = tuple(
    """what which when where who whose why how does did are was were can could should would will that they than
    then their them there these this those with without from have has had into about any many much the and for not
    paper papers work works study studies""".split()
)
_ASK_WORDS = frozenset("what which when where who whose why how does do did is are was were can could has have".split())
# What follows a question's opening auxiliary or question word ("does the …", "what is …", "when does …", "what about …").
_AFTER_ASK = frozenset(
    """the a an any it its they them this these those that there how is are was were does do did one some each we you
    i what which their our my your about""".split()
)
_HOW_MANY = re.compile(r"\b([Hh]ow)(\s+)([A-Za-z]{3,5})\b")


def fix_grammar_words(
    question: str, max_zipf: float = 3.0, opening_zipf: float = 4.5, swap_zipf_gap: float = 3.0
) -> str:
    """Respell slips in the question's grammar words, the likeliest slip first (rag.lexicon.typing_cost), the more
    common word at a tie: a word of 3-6 letters that is no English word (not in the tokenizer's vocabulary, wordfreq
    Zipf below ``max_zipf``) one edit from a grammar word ("wht" -> "what", "whih" -> "which", "thay" -> "that"); a
    word one edit from "many" or "much" after "how" ("how man", "how manu"); and an opening word one edit from an
    auxiliary or question word (Zipf below ``opening_zipf``) when what follows reads as a question ("des the …",
    "wat is …", "wen does …"); and a word written often only as a slip ("teh", Zipf 3.0) whose two swapped letters
    make a grammar word at least ``swap_zipf_gap`` Zipf points commoner ("the", 7.7; not "form" for "from"); and an
    opening word one edit from a request verb before "me" or "us" ("tel me more", "giv me the papers")."""
    from rapidfuzz.distance import OSA

    from rag.lexicon import english_words, typing_cost
    from rag.word_frequency import zipf_frequency

    english = english_words()

    def nearest(lowered: str, pool) -> str | None:
        near = [w for w in pool if w[0] == lowered[0] and abs(len(w) - len(lowered)) <= 1
                and OSA.distance(lowered, w) <= 1]  # fmt: skip
        return min(near, key=lambda w: (typing_cost(lowered, w), -zipf_frequency(w), w)) if near else None

    def cased(word: str, like: str) -> str:
        return word.capitalize() if like[:1].isupper() else word

    def fix(match: re.Match[str]) -> str:
        word = match.group(0)
        lowered = word.lower()
        opens = _SENTENCE_END.search(question, 0, match.start()) or not question[: match.start()].strip()
        if not 3 <= len(word) <= 6 or (word != lowered and not (opens and word[1:] == lowered[1:])):
            return word
        if lowered in _GRAMMAR_WORDS:
            return word
        if lowered in english or zipf_frequency(lowered) >= max_zipf:
            # a word written often only as a slip ("teh"): two letters of a far commoner grammar word swapped
            swapped = [w for w in _GRAMMAR_WORDS if len(w) == len(lowered) and sorted(w) == sorted(lowered)
                       and OSA.distance(lowered, w) == 1
                       and zipf_frequency(w) - zipf_frequency(lowered) >= swap_zipf_gap]  # fmt: skip
            return cased(swapped[0], word) if swapped else word
        best = nearest(lowered, _GRAMMAR_WORDS)
        return cased(best, word) if best else word

    question = _WORD_TOKEN.sub(fix, question)

    def how(match: re.Match[str]) -> str:
        lowered = match.group(3).lower()
        if lowered in ("many", "much", "may") or match.group(3) != lowered:
            return match.group(0)
        best = nearest(lowered, ("many", "much"))
        return f"{match.group(1)}{match.group(2)}{best}" if best else match.group(0)

    question = _HOW_MANY.sub(how, question)
    opening = re.match(r"^(\W*)([A-Za-z]{3,5})(\s+)([A-Za-z]+)", question)
    if opening:
        first, after = opening.group(2), opening.group(4)
        lowered = first.lower()
        if (
            lowered not in _ASK_WORDS
            and first[1:] == lowered[1:]
            and zipf_frequency(lowered) < opening_zipf
            and (after.lower() in _AFTER_ASK or after[:1].isupper())
        ):
            best = nearest(lowered, _ASK_WORDS)
            if best:
                question = opening.group(1) + cased(best, first) + question[opening.end(2) :]
        elif lowered not in _REQUEST_VERBS and after.lower() in ("me", "us") and zipf_frequency(lowered) < opening_zipf:
            best = nearest(lowered, _REQUEST_VERBS)  # "tel me more", "giv me the papers": a request
            if best:
                question = opening.group(1) + cased(best, first) + question[opening.end(2) :]
    return question


_REQUEST_VERBS = ("tell", "give", "show", "find", "list", "let")  # "let me know": a request too


_AUX_TYPO = re.compile(r"\b(?:dose|deos|dosе|doe)\b(?=\s+(?:[A-Z]|it\b|they\b|the\b|this\b))")


def classify_shape(question: str, kind: Kind | None = None) -> Shape:
    """The answer plan a question calls for (general English cues; the earliest strong cue wins)."""
    kind = kind or classify(question)
    if is_more_request(question):
        return "followup"
    if (
        _COMPARE.search(question)
        and (_names_works(compare_parts(question), question) or compared_topic(question))
        and not against_prior_work(question)
    ):
        return "compare"
    if yes_no := _YES_NO.search(question) or _YES_NO_INDIRECT.search(question):
        # "are there papers on X", "any works using X": asks for the papers (all of them), not whether one exists
        return "list" if _PLURAL_PAPERS.search(yes_no.group(0)) else "yes_no"
    if _SUMMARY.search(question):
        return "summary"
    if kind == "list":
        return "list"
    # "X — anything?", "any X papers — …": a topic typed with no question of its own before the request
    trailing = _TRAILING_REQUEST.search(question)
    before = question[: trailing.start()] if trailing else ""
    if trailing and not _QUESTION_CUE.search(before) and not _WH_WORD.search(before):
        return "list" if _PLURAL_PAPERS.search(trailing.group(0)) else "yes_no"
    if kind == "number":
        return "number"
    # "how do models do on it" asks for results; "FooNet token pruning how does it pick tokens" is a how-question
    # typed after its keywords
    if (_HOW_WHY.search(question) or _how_after_keywords(question)) and not asks_findings(question):
        return "how_why"
    if kind == "name":
        return "name"
    return "fact"


_ASK_AFTER_KEYWORDS = re.compile(
    r"^(?P<keywords>(?:[^\s?]+\s+){1,10}?)(?P<ask>(?:how|why)\s+(?:does|do|did|can|could|is|are|was|were)\s+\S.*)$",
    re.I,
)


def _how_after_keywords(question: str) -> bool:
    """A how/why question typed after a few keywords ("FooNet token pruning how does it choose tokens"): keywords
    with no question word or verb of asking of their own, then "how does …" / "why do …"."""
    match = _ASK_AFTER_KEYWORDS.match(question.strip())
    return bool(match) and not _QUESTION_CUE.search(match.group("keywords")) and bool(_HOW_WHY.match(match["ask"]))


_COMPARE_LEAD = re.compile(
    r"^.*?\b(?:compare|comparing|comparison\s+(?:of|between)|contrast|between|^\s*both|differences?\s+(?:between|of)|"
    r"similarit\w+\s+(?:between|of))\s+",
    re.I,
)
_COMPARE_SPLIT = re.compile(
    r"\s*(?:,\s*(?:and\s+)?|\s+and\s+|\s+vs\.?\s+|\s+versus\s+|\s+with\s+|\s+to\s+|"
    r"\s+from\s+)\s*",
    re.I,
)
# what the works are compared on, after them and a comma: "X vs Y, both about …", "X vs Y, given that …"
_ASPECT_AFTER_COMMA = re.compile(r",\s+(?:both|each|given|since|considering|as\s+(?:both|each))\b.*$", re.I)
# ("the work on X" names a paper by its topic: its "on" starts no aspect)
_COMPARE_TAIL = re.compile(
    r"(?<!\bwork)(?<!\bpaper)(?<!\bstudy)(?<!\bworks)(?<!\bpapers)"
    r"\s+(?:in\s+terms\s+of|in\s+(?:how|what|which|their)|on|regarding|with\s+respect\s+to|for)\s+.*$|[?.!]+$",
    re.I,
)


# The works of a comparison, read from its own grammar before any other cue: "How does X compare to Y", "what
# separates X from Y" (one work, then the other); "How do X and Y compare in …", "what do X and Y have in common"
# (the works together, before the comparing verb); "X and Y both …. How do they differ?" (the works of a first
# sentence, which a later one refers to). A sentence may come first ("Both are benchmarks. How does X …").
_SENTENCE_START = r"(?:^|(?<=[.?!;:])\s+)\s*"
_ONE_TO_OTHER = re.compile(
    _SENTENCE_START + r"(?:(?:how|in\s+what\s+ways?)\s+(?:does|do|is|are|did)\s+(.+?)\s+(?:(?:differ|compare|contrast|"
    r"relate[sd]?|stack\s+up)\s+(?:from|to|with|against)|(?:different|distinct)\s+from)|(?:what|which)\s+(?:separates|"
    r"distinguishes|sets)\s+(.+?)\s+(?:apart\s+)?from)\s+(.+)$",
    re.I,
)
_PAIR_THEN_VERB = re.compile(
    _SENTENCE_START + r"(?:how|what|where|in\s+what\s+ways?)\s+(?:does|do|is|are|did)\s+(.+?\s+(?:and|vs\.?|versus)\s+.+?)"
    r"\s+(?:differ|compare|contrast|relate|different|alike|similar|have\s+in\s+common)\b",
    re.I,
)
_PAIR_BOTH = re.compile(r"^\s*(.+?\s+and\s+.+?)\s+(?:(?:are|were|do|did|can|have)\s+)?(?:both|all)\b", re.I)
_COUNTED = re.compile(r"^(?:the\s+(?:two|three|four)|both(?:\s+the)?)\s+(?=\S+.*\s(?:and|vs\.?|versus)\s)", re.I)
_REFERS_BACK = re.compile(r"^(?:they|them|their|these|those|the\s+two|both|each|it)\b", re.I)


# The two works of a choice, around its "or": after a comma, colon or a verb of choosing ("which is faster, X or
# Y?", "should I use X or Y for …", "Is X or Y bigger?") and up to what is asked of them ("for …", "bigger", ",").
_CHOICE_START = re.compile(
    r"[,:;]\s*|\b(?:use|pick|choose|prefer|read|try|is|are|was|were|between|whether)\s+", re.I
)
_CHOICE_RIGHT = re.compile(
    rf"^(?P<b>.+?)(?=\s*(?:[,:;?!]|$)|\s+(?:for|to|when|if|in|on|as|which|first|{_CHOOSING})\b)", re.I
)
# a part of a choice that is a work: a name (a capital or digit) or a described work ("the DQN paper", "the other
# one"), in a few words without a phrase of its own ("more work on vision" is a topic)
_WORK_NOUN = r"(?:paper|work|study|one|method|benchmark|dataset|model|framework|approach)"  # what names a work
_A_WORK = re.compile(rf"[A-Z0-9]|\b{_WORK_NOUN}s?\b")
_NOT_A_WORK = re.compile(
    r"\b(?:on|about|of|with|there|more|less|example|e\.g|such|like|including)\b|"
    # a question word, not a name starting with one ("Who&When Pro")
    r"^(?:which|what|how|why|where|when|who|is|are|do|does|did)(?=\s|[?,.!;:]|$)",
    re.I,
)


_WORK_NOUN_LAST = re.compile(rf"\b{_WORK_NOUN}s?$", re.I)


def describes_work(part: str) -> bool:
    """Whether a part of a comparison describes a work rather than naming it: "the token pruning paper", "the
    bandit one"."""
    return bool(_WORK_NOUN_LAST.search(part.strip(" ?.!")))


def choice_parts(question: str, most_words: int = 4) -> list[str]:
    """The two works a choice offers, as written ("Is FooNet or BarNet faster?" -> ['FooNet', 'BarNet']), when it is
    a choice between works (each written as a name or described as a work); [] otherwise ("Does FooNet use real or
    synthetic data?", "Should I use FooNet or full fine-tuning?")."""
    if not _CHOICE.search(question):
        return []
    left, sep, right = question.strip().partition(" or ")
    cut = max((m.end() for m in _CHOICE_START.finditer(left)), default=0)
    b = _CHOICE_RIGHT.match(right.strip())
    if not sep or not b:
        return []
    parts = [re.sub(r"^(?:the|a|an)\s+", "", p.strip(" ?.!"), flags=re.I) for p in (left[cut:], b["b"])]
    if not all(parts) or any(len(p.split()) > most_words or _NOT_A_WORK.search(p) for p in parts):
        return []
    return parts if all(_A_WORK.search(p) for p in parts) else []


def compare_parts(question: str) -> list[str]:
    """The works a comparison names, as written: 'Compare X and Y on speed' -> ['X', 'Y']."""
    if not _COMPARE.search(question) and (choice := choice_parts(question)):
        return choice
    question = _SET_SIDE_BY_SIDE.sub(lambda m: "compare " if m.group("verb") else " with" if m.group("with") else "", question)
    body = _COMPARE_LEAD.sub("", question, count=1)
    pair = _PAIR_THEN_VERB.search(question)
    pair_text = pair.group(1) if pair else ""
    if pair and _REFERS_BACK.match(pair_text):
        # "how do the two aptamer and CRISPR benchmarks compare": the works, counted; "how do their goals and
        # techniques differ": the works are named elsewhere
        counted = _COUNTED.sub("", pair_text)
        pair, pair_text = (pair, counted) if counted != pair_text else (None, "")
    if not pair and (lead := _PAIR_BOTH.match(question)) and not _REFERS_BACK.match(lead.group(1)):
        pair = lead  # "X and Y both target agents. How do they differ?"
    if one_to_other := _ONE_TO_OTHER.search(question):  # "How does X differ from Y": exactly two works
        first, second = one_to_other.group(1) or one_to_other.group(2), one_to_other.group(3)
        second = re.split(_WORKS_END, second, maxsplit=1)[0]
        second = _ASPECT_AFTER_COMMA.sub("", _ASPECT_AFTER.split(second, maxsplit=1)[0])
        parts = [_COMPARE_TAIL.sub("", part).strip(" ?.,;:") for part in (first, _name_then_aspect(second))]
        parts = [re.sub(r"^(?:the|a|an)\s+", "", p, flags=re.I) for p in parts]
        names = specific_terms(question)  # whatever words each is described with, when it holds a name
        if all(parts) and all(len(p.split()) <= 6 or any(n in p for n in names) for p in parts):
            # "How does X differ from Y and Z?": the other side may be several works, each named
            others = [p.strip(" ?.,;:") for p in _COMPARE_SPLIT.split(parts[1])]
            if len(others) > 1 and all(re.search(r"[A-Z0-9]", p) and len(p.split()) <= 3 for p in others):
                return [parts[0], *others][:4]
            return parts
        body = f"{first} and {second}"
    elif pair:  # "How do X and Y differ in …": the works are before the verb
        body = pair_text or pair.group(1)
    # "X vs Y: what does each …", "X vs Y - which …": the aspect asked about follows the works
    body = re.split(_WORKS_END, body, maxsplit=1)[0]
    # "X with Y in terms of what data each provides and how": the aspect, whatever its words, follows the works
    body = _ASPECT_AFTER.split(body, maxsplit=1)[0]
    body = _ASPECT_AFTER_COMMA.sub("", body)  # "X vs Y, both about …", "X vs Y, given that …": likewise
    parts = _COMPARE_SPLIT.split(body.strip())
    # what the works are compared on ("… and B on speed") follows the last one; earlier parts keep their words
    # ("the work on X with Y")
    parts[-1] = _name_then_aspect(_COMPARE_TAIL.sub("", parts[-1]))
    parts = [p.strip(" ?.,;:") for p in _described_whole(parts, body)]
    parts = [re.sub(r"^(?:the|a|an)\s+", "", p, flags=re.I) for p in parts if p and p.lower() not in {"the", "a"}]
    if parts and (lead := _ASPECT_BEFORE.match(parts[0])):  # "the size of X, Y and Z": X is the first work
        parts[0] = re.sub(r"^(?:the|a|an)\s+", "", parts[0][lead.end() :], flags=re.I)
    # "compare approaches to X and Y": a part of the comparison's own words ("approaches") or pronouns ("… and how is
    # it …") is no work; a name written with a capital or digit always is ("X")
    parts = [p for p in parts if p and (_beyond_grammar(p) or re.search(r"[A-Z0-9]", p))][:4]
    # "the quantization and the pruning papers": each is a paper ("quantization papers"), when written in lower case
    if len(parts) >= 2 and (noun := _WORK_NOUN_LAST.search(parts[-1])) and len(parts[-1].split()) > 1:
        parts = [f"{p} {noun.group(0)}" if p.islower() and not describes_work(p) else p for p in parts[:-1]] + [parts[-1]]
    return parts


# "set X side by side with Y", "put X and Y side by side": a comparison, said another way
_SET_SIDE_BY_SIDE = re.compile(
    r"\b(?P<verb>(?:set|put|place|lay)\s+)(?=.+?\s+side\s+by\s+side\b)|\s+side\s+by\s+side(?P<with>\s+with\b)?", re.I
)
# a work described by what it does, in a relative clause: "the per-sample score that needs no shadow models", "the
# framework which fits primitives"
_RELATIVE_DESCRIBED = re.compile(r"^(?:the\s+|a\s+|an\s+)?(?:[\w&'-]+\s+){1,6}?(?:that|which|who)\s+\w", re.I)


def _described_whole(parts: list[str], body: str) -> list[str]:
    """The parts of a comparison with a work described by a relative clause kept whole: its clause's own "with",
    "to" or "from" split no further work off ("X with the work that recovers parts from a video" -> X, "the work
    that recovers parts from a video"), unless what follows names one (a capital or digit)."""
    for i, part in enumerate(parts[:-1]):
        if _RELATIVE_DESCRIBED.match(part.strip()) and not any(re.search(r"[A-Z0-9]", p) for p in parts[i + 1 :]):
            start = body.find(part)
            return [*parts[:i], body[start:]] if start >= 0 else parts
    return parts


def _beyond_grammar(part: str) -> bool:
    """Whether a part of a comparison holds a word beyond the comparison's own grammar and pronouns."""
    return not _COMPARE_GRAMMAR.issuperset(content_words(part))


# where the works end and what is asked of them begins: "X vs Y: what …", "X vs Y - which …", "Compare X and Y. Is
# one …" (a full stop before a capital, not the one of "vs." or "e.g.")
_WORKS_END = r"\s*[:?;]\s+|\s+[-–—]+\s+|\s*[?]$|(?<!\bvs)(?<!\be\.g)(?<!\bi\.e)\.\s+(?=[A-Z])"
_NAME_THEN_IN = re.compile(r"^(?P<name>.*?\S*(?-i:[A-Z0-9])\S*)\s+(?:in|as)\s+(?-i:[a-z][^A-Z0-9]*)$", re.I)


def _name_then_aspect(part: str) -> str:
    """The last work of a comparison without the aspect written after it: "Y in size", "Y as a benchmark" -> "Y" when Y is written as
    a name (a capital or digit) and the aspect is plain lower-case words; "the work on pruning in transformers"
    keeps its words."""
    match = _NAME_THEN_IN.match(part.strip(" ?.!"))
    return match.group("name") if match else part


_ASPECT_AFTER = re.compile(r"\s+(?:in\s+terms\s+of|with\s+(?:respect|regard)\s+to|regarding)\s+", re.I)


# What a comparison asks about, written before the works: "Compare the size of X and Y", "contrast the training
# cost of X with Y" (lower-case words: "Mixture of Experts" is a name, not an aspect).
_ASPECT_BEFORE = re.compile(r"^(?:the\s+)?([a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2})\s+(?:of|for|behind)\s+(?=\S)")


# Words of a comparison's grammar, not of what the works are compared on.
_COMPARE_GRAMMAR = frozenset(
    content_words(
        "compare comparing comparison contrast contrasting versus vs between differ differs different difference "
        "differences similar similarity similarities each both two three respective respectively terms respect "
        "regarding relative approach approaches common alike separates distinguishes"
    )
)


_ASPECT_LEAD = re.compile(
    r"^(?:(?:differ|compare|contrast)\w*\s+)?(?:(?:in\s+terms\s+of|with\s+respect\s+to|regarding|on|in|for|as)\b)?\s*",
    re.I,
)


def compare_aspect(question: str, parts: list[str] | None = None) -> str:
    """What a comparison asks about, after the works it names: 'Compare X and Y in terms of the data they use'
    -> 'the data they use'; 'X vs Y: what does each assume?' -> 'what does each assume'; '' when it names only
    the works ('Compare X, Y and Z')."""
    parts = compare_parts(question) if parts is None else parts
    ends = [m.end() for part in parts for m in re.finditer(re.escape(part), question, flags=re.I)]
    rest = question[max(ends) :] if ends else ""
    # "X and Y both help agents. How do their goals differ?": what is asked is in the last sentence that asks
    sentences = [t for t in re.split(r"(?<=[?!.])\s+(?=[A-Z])", rest.strip()) if t.strip(" ?.:;,-–—")]
    if len(sentences) > 1:
        rest = next((t for t in reversed(sentences) if _ASKS.search(t) or t.endswith("?")), rest)
    rest = _ASPECT_LEAD.sub("", " ".join(rest.split()).strip(" ?.:;,-–—")).strip(" ?.")
    names = {w for part in parts for w in content_words(part)}
    words = [w for w in content_words(rest) if w not in _QUESTION_WORDS | _COMPARE_GRAMMAR and w not in names]
    if words:
        return rest
    body = re.sub(r"^(?:the|a|an)\s+", "", _COMPARE_LEAD.sub("", question, count=1), flags=re.I)
    lead = _ASPECT_BEFORE.match(body)  # "Compare the size of X and Y" -> "size"
    return lead.group(1) if lead and content_words(lead.group(1)) and not _COMPARE_GRAMMAR.issuperset(
        content_words(lead.group(1))
    ) else ""


_HOW_DIFFER = re.compile(
    r"^\s*how\s+(?:does|do|is|are)\s+.+?\s+(?:differ|compare|relate[sd]?)\s+(?:from|to|with)\s+", re.I
)


# A comparison of the works on a topic, named by the topic rather than by name: "compare the two calibration papers",
# "how do the papers on pruning differ?", "what's the difference between the articulated-object methods?". The works
# are the papers a request for papers on that topic finds ("the two …": that many).
_TOPIC_NOUN = r"(?:papers|works|studies|approaches|methods|benchmarks|datasets|frameworks|abstracts)"
_TOPIC_PHRASE = (
    r"(?:the\s+)?(?:(?P<count>two|three|four|2|3|4)\s+)?(?P<pre>(?:[\w/-]+\s+){0,4}?)" + _TOPIC_NOUN
    + r"\b(?:\s+(?:on|about|for|in(?!\s+terms\b)|to|that|which|tackling|addressing|studying|using)\s+"
    r"(?P<post>[^?.,;:!]+))?"
)
_TOPIC_COMPARE = (
    re.compile(
        r"\b(?:compare|comparing|comparison\s+(?:of|between)|contrast|contrasting|differences?\s+(?:between|among|of)|"
        r"between)\s+" + _TOPIC_PHRASE,
        re.I,
    ),
    re.compile(r"\bhow\s+(?:do|did|are)\s+" + _TOPIC_PHRASE + r"\s+(?:differ|compare|contrast|different|relate)", re.I),
)
_COUNTS = {"two": 2, "three": 3, "four": 4, "2": 2, "3": 3, "4": 4}
# words that point back at an earlier answer ("compare these papers", "the papers above") or say nothing of a topic
_NO_TOPIC = frozenset(
    content_words(
        "these those other above listed previous following first last cited same mentioned such both all different "
        "various main two three four"
    )
)


def compared_topic(question: str) -> tuple[str, int] | None:
    """The topic of a comparison of the works on it, and how many it asks for (0: all of them): "compare the two
    calibration papers" -> ("calibration", 2); "how do the papers on pruning differ?" -> ("pruning", 0). None for a
    comparison of named works ("compare FooNet and BarNet") or of works an earlier answer listed ("compare these
    papers")."""
    match = next((m for pattern in _TOPIC_COMPARE if (m := pattern.search(question))), None)
    if not match:
        return None
    post = _ASPECT_AFTER.split(match["post"] or "", maxsplit=1)[0]  # "… on X with respect to speed": X
    topic = " ".join(f"{match['pre'] or ''} {post}".split())
    words = [w for w in content_words(topic) if w not in _NO_TOPIC]
    if not words or re.search(r"\s(?:and|vs\.?|versus)\s", topic, re.I):
        return None  # nothing names a topic, or two topics: works named one by one
    return topic, _COUNTS.get((match["count"] or "").lower(), 0)


def _names_works(parts: list[str], question: str = "") -> bool:
    """A comparison of named works: two or more short parts ("X and Y"), not "which pairs to compare when …"; in
    "How does X differ from Y", a longer part too when it holds a name the question writes as one ("FooNet's way of
    handling joints")."""
    names = specific_terms(question) if question and _HOW_DIFFER.search(question) else []
    return len(parts) >= 2 and all(
        len(p.split()) <= 6 or any(n in p for n in names) or _WORK_DESCRIBED.match(p) or _RELATIVE_DESCRIBED.match(p)
        for p in parts
    )


# a work described by a clause of its own: "the paper that prunes tokens", "the study on aphasia"
_WORK_DESCRIBED = re.compile(
    rf"^(?:the\s+)?{_WORK_NOUN}\s+(?:that|which|where|on|about|proposing|introducing|using|with)\b",
    re.I,
)


_FINDS_A_PAPER = re.compile(
    r"^\W*(?:(?:is|are)\s+there\b|(?:which|what)\s+(?:paper|work|study|abstract)\b(?!s)|"
    r"what(?:'s|\s+is)\s+the\s+(?:paper|work|study)\b|(?:has|have)\s+(?:anyone|a\s+paper)\b)",
    re.I,
)
_ASKS = re.compile(r"\b(?:how|what|which|why|where|who|when)\b", re.I)  # anywhere: "use what theory tool?"


def asked_after_finding(question: str) -> str | None:
    """The question asked of a paper once found, when a question first finds the paper and then asks about it
    ("Is there a paper on X? How many categories does its dataset cover?", "Which paper studies X? What does it
    find?"): the later sentence(s), whose kind and shape the answer follows; None for any other question."""
    parts = [p.strip() for p in re.split(r"(?<=\?)\s*", question) if p.strip()]
    if len(parts) < 2 or not _FINDS_A_PAPER.search(parts[0]):
        return None
    later = " ".join(parts[1:])
    if not _ASKS.search(later) or classify_shape(later) in ("list", "summary", "yes_no", "compare"):
        return None
    return later


_SENTENCE_SPLIT = re.compile(r"(?<=[.?!;])\s+(?=[A-Z])")


def request_after_preamble(question: str) -> str | None:
    """The last sentence when it asks for the papers on a topic ("…; say the sources are wrong. Which papers study
    X?", "I work on X. Summarize the papers on Y.") and the sentences before it, read with it, ask nothing the answer
    plans follow (no comparison, list or follow-up): that sentence's shape is the question's. None for any other
    question, and for "<a description>. Is there work on this?", whose description spans both sentences."""
    parts = [p.strip() for p in _SENTENCE_SPLIT.split(question) if p.strip()]
    if len(parts) < 2 or classify_shape(question) not in ("fact", "how_why", "name", "number"):
        return None
    return parts[-1] if classify_shape(parts[-1]) in ("list", "summary") else None


# What a question asks of a paper as a whole, in any wording ("main claim", "key idea", "central contribution"): the
# paper's gist, whatever its topic, so none of these words need be in the abstract
_GIST_ASKED = re.compile(
    r"\b(?:main|key|central|core|primary|principal|major)\s+(?:claims?|ideas?|contributions?|findings?|results?|"
    r"points?|messages?|takeaways?|insights?)\b",
    re.I,
)


# How a request for papers says they should suit the asker, not what they are about.
_TOPICLESS = frozenset(
    content_words("relevant useful interesting helpful recommend suggest read worth good best me us my our should would")
)


def profile(question: str, one_paper: bool = True) -> QuestionProfile:
    """How the question asks (kind, shape, topic, focus and the rest). ``one_paper`` False: "Which paper proposes
    X?" read as a request for papers on X, the reading whose evidence (every paper near the topic) decides whether
    any paper does X; True (the default): read as a question about the one paper that does, for its answer."""
    question = fix_shape_words(question)
    # "Is there a paper on X? How many …": the later question; "<an instruction or context>. Which papers …?": the
    # request for papers
    request = request_after_preamble(question)
    asked = asked_after_finding(question) or request or question
    kind = classify(asked, one_paper)
    if kind == "general" and is_terse(question) and _QUANTITY_NOUN.search(question):
        kind = "number"  # "FooBench benchmark size": a keyword query asking for a number
    shape = classify_shape(asked, kind)
    if shape in ("summary", "yes_no", "list"):
        kind = "list"
    # the papers asked for are on the request's topic, not on the words of an instruction or context before it;
    # a request with no topic of its own ("I work on X. Which papers would be relevant for me?") asks about that
    # context
    if request and not [w for w in content_words(request) if w not in _QUESTION_WORDS and w not in _TOPICLESS]:
        request = None
    topic = [w for w in dict.fromkeys(content_words(request or question)) if w not in _QUESTION_WORDS]
    # "FooNet paper main claim": what is asked of the paper, not words its topic must use
    gist_free = [w for w in content_words(_GIST_ASKED.sub(" ", request or question)) if w not in _QUESTION_WORDS]
    if gist_free and len(gist_free) < len(topic):
        topic = [w for w in topic if w in set(gist_free)]
    if kind == "list":  # a request for papers: its topic without the words pointing at the collection or topic
        topic = list_topic(request or question) or topic
    focus = list(dict.fromkeys(focus_words(asked, kind)))
    problem = asks_problem_addressed(asked)
    if problem and kind != "list":  # "what problem does X address": neither word is what the abstract must say
        topic = [w for w in topic if w not in _PROBLEM_WORDS]
        focus = [w for w in focus if w not in _PROBLEM_WORDS]
    return QuestionProfile(
        text=question,
        kind=kind,
        topic_words=tuple(topic),
        focus_words=tuple(focus),
        specific_terms=tuple(dict.fromkeys(specific_terms(question))),
        shape=shape,
        wants_names=kind != "list" and asks_for_names(asked),
        asks_evaluation=kind != "list"
        and (asks_for_evaluation(asked) or (asks_for_names(asked) and bool(_EVALUATION_WORD.search(asked)))),
        explains_failure=shape == "how_why" and explains_failure(asked),
        terse=is_terse(question),
        asks_remedy=asks_remedy(question),
        asks_count=kind == "number" and asks_count(asked),
        asks_findings=asks_findings(question),
        asks_problem=problem,
        asks_takeaway=asks_takeaway(asked),
        asks_paper=one_paper and kind != "list" and asks_for_one_paper(asked),
        asks_significance=kind != "list" and asks_significance(asked),
        asks_brief=asks_brief(question),
    )


_CLAUSE_SPLIT = re.compile(
    r",\s*and\s+|\?\s+|;\s+|\s+and\s+(?=(?:what|which|how|why|when|where|who|does|do|is|are|can)\b)", re.I
)


_ASKED_LEAD = re.compile(
    r"^(?:(?:please\s+)?(?:tell\s+me|explain|describe|summari[sz]e|compare)\b|(?:how|what|which|why|when|where|who)\b"
    r"(?:\s+(?:exactly\s+)?(?:does|do|did|is|are|was|were|can|could|would|should|has|have))?)\s*",
    re.I,
)


def asked_phrase(question: str, names: Sequence[str]) -> str:
    """What the question asks about a work, without the work's name: "How does FooNet pick the step size?" ->
    "pick the step size". The name makes every sentence of its abstract look alike to the encoder; the rest says
    which sentence answers. "" when no name is written in the question or fewer than two content words remain."""
    text = question
    removed = False
    for name in sorted({n for n in names if n}, key=len, reverse=True):
        text, count = re.subn(rf"(?<![\w-]){re.escape(name)}(?:'s|’s)?(?![\w-])", " ", text, flags=re.I)
        removed = removed or count > 0
    if not removed:
        return ""
    text = " ".join(text.split())
    for _ in range(3):  # "X vs Y: how do they …" -> "they …"
        text = text.strip(" ?.:;,-")
        text = re.sub(r"^(?:and|or|vs\.?|versus|with|between|of|the)\b\s*", "", _ASKED_LEAD.sub("", text), flags=re.I)
    words = [w for w in content_words(text) if w not in _QUESTION_WORDS]
    return text if len(words) >= 2 else ""


# "which measures", "what joint types", "what inference tasks does it handle": the noun phrase after the wh-word
# (up to an auxiliary or the end of the clause) names the kind of thing asked for
_KIND_ASKED = re.compile(
    r"\b(?:which|what)\s+((?:(?!(?:is|are|was|were|do|does|did|can|could|has|have|had|will|would|should|might|may|"
    r"they|it|its|their|the|a|an|of|in|on|for|to|by|with|from|that)\b)[A-Za-z][\w-]*\s*){1,3})",
    re.I,
)
# words naming a kind in general ("what types of", "which kinds"), not what kind
_KIND_GENERIC = frozenset(content_words("type types kind kinds sort sorts form forms exactly specifically precisely"))


def asked_kind(question: str) -> list[str]:
    """The content words (stems) of the kind of thing a wh-question asks for: "What joint types can FooNet model?"
    -> ["joint"]; "which measures exactly?" -> ["measur"]. Empty for a question with no such phrase ("how does …")."""
    found = _KIND_ASKED.search(question)
    if not found:
        return []
    return [w for w in content_words(found.group(1)) if w not in _KIND_GENERIC and w not in _QUESTION_WORDS]


# how a sentence lists instances of a kind: "revolute and prismatic joints", "metrics, including A and B",
# "tasks such as X", "cases (A, B, C)", "models: A, B"
_INSTANCE_AFTER = re.compile(r"^\W{0,3}(?:\(|:|such\s+as\b|including\b|e\.\s?g\.|namely\b|like\b)", re.I)
_INSTANCE_BEFORE = re.compile(r"(?:\b(?:and|or)|,)\s+(?:[\w-]+\s+){0,2}$", re.I)
_WORD = re.compile(r"[A-Za-z][\w-]*")


def names_instances(sentence: str, kind: Sequence[str]) -> bool:
    """Whether the sentence names instances of the asked kind (``kind``: stems, rag.question.asked_kind): a word of
    the kind with instances coordinated before it ("revolute and prismatic joints") or listed after it ("metrics,
    including A and B", "tasks such as X")."""
    if not kind:
        return False
    head = kind[-1]  # the head noun: "joint types" -> joint, "clinical cases" -> case
    # a word starts as its stem does but for the stem's last letter ("studi" of "study"): a cheap test before stemming
    start = head[: max(3, len(head) - 1)]
    if start not in sentence.lower():
        return False
    for m in _WORD.finditer(sentence):
        if not m.group(0).lower().startswith(start) or content_words(m.group(0)) != [head]:
            continue
        after = sentence[m.end() :]
        if _INSTANCE_AFTER.search(after):
            return True
        # coordinated modifiers before the head, which ends its phrase ("… and prismatic joints.", not "… and joint
        # parameters")
        if _INSTANCE_BEFORE.search(sentence[: m.start()]) and _PHRASE_END.match(after):
            return True
    return False


_PHRASE_END = re.compile(r"\s*(?:$|[^\w\s-]|(?:of|in|on|at|with|and|or|that|which|to|for|from|by|as|is|are)\b)", re.I)


def clauses(question: str) -> list[str]:
    """The parts of a compound question ("What is X, and how does it Y?"); one part for a simple question."""
    parts = [p.strip(" ?,") for p in _CLAUSE_SPLIT.split(question)]
    parts = [p for p in parts if len(p.split()) >= 3]
    return parts if len(parts) > 1 else []


# Where a topic asked as alternatives or as a list of parts breaks ("X or Y", "X, Y and Z", "X/Y", "X (e.g. Y)"):
# the words on either side of such a break are two topics, not one phrase.
_COORDINATION = re.compile(
    r"\s*(?:[,;:/()\[\]]|\b(?:or|and|nor|versus|vs)\b|\be\.\s?g\.|\bi\.\s?e\.|\betc\b\.?|"
    r"\b(?:such\s+as|including|for\s+example|for\s+instance)\b)\s*",
    re.I,
)


def coordinated_parts(question: str, words: Sequence[str]) -> list[list[str]]:
    """The question's ``words`` (content-word stems), grouped by the coordinated parts of the question that hold
    them, in question order: "zed or quux for blip data" -> [[zed], [quux, blip, data]]. A word the parts repeat
    counts in each; parts holding none of ``words`` are left out."""
    return _parts_holding(_COORDINATION.split(question), words)


def topic_facets(question: str, words: Sequence[str], specific: Collection[str] | None = None) -> list[str]:
    """The topic of a request for papers said alone (topic_phrase), then, when the question coordinates several
    parts holding its topic ``words`` ("clinical, diagnostics, medical imaging"), each part's topic words as written:
    "overview of the work on zed, quux or blip data" -> ["zed quux blip data", "zed", "quux", "blip data"]. With
    ``specific`` (the topic words few abstracts use), a part is a facet only when it holds one of them: "either as
    the object of study or as an evaluation" coordinates no facets of a topic. Repeats are left out; the question
    itself when none of ``words`` is in it."""
    phrases = [topic_phrase(question, words)]
    parts = [
        topic_phrase(part, words)
        for part in _COORDINATION.split(question)
        if (held := _parts_holding([part], words)) and (specific is None or set(held[0]) & set(specific))
    ]
    if len(parts) >= 2:
        phrases += parts
    return list(dict.fromkeys(phrases))


def _parts_holding(parts: Sequence[str], words: Sequence[str]) -> list[list[str]]:
    """Each text of ``parts`` as the ``words`` (content-word stems) it holds, once each, in order; empty ones left out."""
    wanted = set(words)
    held = [[w for w in dict.fromkeys(content_words(part)) if w in wanted] for part in parts]
    return [part for part in held if part]


_ALTERNATIVES = re.compile(r"\s*(?:[,;/]|\b(?:or|nor)\b|\betc\b\.?)\s*", re.I)
_OFFERS_ALTERNATIVES = re.compile(r"\bor\b|\w\s*/\s*\w", re.I)


def alternative_parts(question: str, words: Sequence[str]) -> list[list[str]]:
    """The question's ``words`` grouped by the alternatives it offers ("X, Y or Z", "X / Y"), as coordinated_parts
    groups them, when it offers some (an "or" or a slash); else no parts. "X and Y" often names one topic twice
    ("continual learning and catastrophic forgetting") and examples in parentheses illustrate one topic, so neither
    makes alternatives: a paper on one alternative is on the topic, a paper on one of two things joined by "and" may
    not be."""
    if not _OFFERS_ALTERNATIVES.search(question):
        return []
    return _parts_holding(_ALTERNATIVES.split(question), words)


_EXAMPLE_CUE = re.compile(r"\b(?:such\s+as|for\s+example|for\s+instance|including)\b|\be\.\s?g\.", re.I)
_EXAMPLE_END = re.compile(r"[)?;:]|\.(?:\s|$)")


def example_spans(question: str) -> list[tuple[int, int]]:
    """Where the question gives examples of what it asks about ("papers on 3D volumes such as MRI", "agents (e.g.
    FooNet, BarNet)"): from each cue to the end of its clause or parenthesis. A name written there illustrates the
    topic; it is not the one thing every listed paper must use."""
    spans = []
    for cue in _EXAMPLE_CUE.finditer(question):
        end = _EXAMPLE_END.search(question, cue.end())
        spans.append((cue.end(), end.start() if end else len(question)))
    return spans


_KIND_SUFFIX = re.compile(
    r"-(?:based|driven|guided|aware|free|like|style|specific|agnostic|augmented|centric|conditioned|powered|level|"
    r"scale|wise)$",
    re.I,
)


def describes_a_kind(mention: str) -> bool:
    """A compound that says what kind of thing something is ("LLM-based", "CNN-like", "GPU-free"), not the name of a
    work: "LLM-based agents" are not the papers that name "LLM-based"."""
    return bool(_KIND_SUFFIX.search(mention))


def in_examples(question: str, mention: str) -> bool:
    """Whether every occurrence of ``mention`` in the question lies in one of its example_spans."""
    spans = example_spans(question)
    starts = [m.start() for m in re.finditer(re.escape(mention), question, flags=re.I)]
    return bool(starts) and all(any(a <= s < b for a, b in spans) for s in starts)


def term_variants(term: str) -> set[str]:
    lowered = term.lower()
    return {lowered, name_singular(lowered)}  # GPUs -> gpus, gpu


_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def term_occurs(term: str, lowered_text: str) -> bool:
    """Whether a name-like term occurs in (lower-cased) text as a word start, ignoring a plural 's'.

    The same test as the pattern ``(?<![a-z0-9])VARIANT s?(?![a-z0-9])``, done with ``str.find``: the text can be the
    whole corpus (tens of MB at 100k chunks), where a regular expression with a look-behind scans it 10-30x slower.
    """
    return any(_occurs_as_word(variant, lowered_text) for variant in term_variants(term))


def _occurs_as_word(word: str, text: str) -> bool:
    start = text.find(word)
    while start != -1:
        end = start + len(word)
        if start == 0 or text[start - 1] not in _WORD_CHARS:
            if end == len(text) or text[end] not in _WORD_CHARS:
                return True
            if text[end] == "s" and (end + 1 == len(text) or text[end + 1] not in _WORD_CHARS):
                return True
        start = text.find(word, start + 1)
    return False


# ---- The expected answer type of a detail question (from its wh-phrase and head noun) and whether a sentence holds
# a candidate of that type. General English and the general vocabulary of what scientific abstracts report: a value
# (a count, a measured score, a setting such as a learning rate), a duration, a licence, a piece of hardware, or names.
AnswerType = Literal["value", "time", "extent", "license", "hardware", "name", "author", "limitation", "availability"]

# Words that name the CATEGORY of the answer ("which base model", "what multi-hop QA datasets", "on what benchmark
# suite"): an abstract answers them with instances ("Qwen2.5-7B", "HotpotQA"), not by repeating the word; and the
# verbs of evaluating or building ("tested on", "built on"), which say where the answer sits, not what it is.
ANSWER_CATEGORY_STEMS = frozenset(
    content_words(
        "dataset datasets benchmark benchmarks suite suites model models base backbone backbones baseline baselines "
        "method methods metric metrics algorithm algorithms framework frameworks architecture architectures tool tools "
        "library libraries environment environments task tasks system systems llm llms vlm vlms mllm mllms encoder "
        "encoders network networks variant variants family families version versions corpus corpora "
        "test tested evaluate evaluated experiment experiments validate validated build built "
        # the general kinds a detail is asked by ("which application areas", "what data", "which settings"): an
        # abstract names the instances ("remote sensing", "ImageNet", "the few-shot regime")
        "data domain domains area areas application applications setting settings scenario scenarios field fields "
        "language languages modality modalities type types kind kinds category categories class classes "
        # how the named parts of an answer go together ("which dataset/backbone combination", "which model-task pairs")
        "combination combinations pair pairs configuration configurations"
    )
)
# the kinds of named things a wh-word's noun asks for ("which benchmarks", "what base model"), not the words of an
# evaluation ("what test accuracy")
_NAMED_KINDS = ANSWER_CATEGORY_STEMS - frozenset(
    content_words("test tested evaluate evaluated experiment experiments validate validated build built")
)
# Generic quantity words ("what size range", "the number of", "the total amount", "how large is it"): a number with
# its unit answers them ("1.7B to 70B parameters", "1,920 screens", "6,289 pairs"), not the word itself
QUANTITY_STEMS = frozenset(
    content_words(
        "size sizes range ranges number numbers count counts amount amounts total value values quantity scale large big "
        "ratio ratios percentage percentages proportion proportions fraction fractions share shares"
    )
)
# Verbs of obtaining a value or a result ("what speedup does X get", "what accuracy does it achieve", "which score
# does it reach"): they say the answer is the work's, not what it is about; an abstract writes "speedups up to 6x"
RELATION_STEMS = frozenset(content_words("get gets got achieve achieves achieved obtain obtains obtained reach reaches "
                                         "reached attain attains attained"))
_WH_OPEN = r"\b(?:which|what)\s+(?:of\s+the\s+)?(?:\d+\s+|(?:two|three|four|five|six|seven|eight|nine|ten)\s+)?"
_KIND_OF = re.compile(r"\b(?:what|which)\s+(?:kinds?|types?|sorts?|forms?)\s+of\b", re.I)
_TIME_TYPE = re.compile(
    r"\bhow\s+long\b|\bhow\s+much\s+time\b|\b(?:runtime|run-?\s?time|wall-?clock|latency|training\s+time|"
    r"inference\s+time|gpu[\s-]hours?)\b",
    re.I,
)
# when something happens, not how long it takes: "nudged at run time", "during inference time" (a phase of a method's
# life, as "at test time"), which a question about what happens then names without asking a duration
_PHASE = re.compile(
    r"\b(?:at|during)\s+(?:the\s+)?(?:runtime|run-?\s?time|inference(?:\s+time)?|training(?:\s+time)?|test(?:\s+time)?)\b",
    re.I,
)
_LICENSE_TYPE = re.compile(r"\blicen[cs]e[sd]?\b|\blicensing\b", re.I)
# Who wrote a work: an abstract never lists its authors or their affiliations, so only a sentence saying so answers
_AUTHOR_TYPE = re.compile(
    r"^\W*(?:and\s+|so\s+)?(?:who|whose)\b(?:\s+[\w-]+){0,2}?\s+(?:wrote|written|authored|authors?|published|"
    r"(?:is|are|was|were)\s+behind|made|built|created|developed|designed|invented)\b"
    r"|^\W*(?:and\s+|so\s+)?(?:which|what)\s+(?:company|team|group|lab|organi[sz]ation|institution|university)\s+"
    r"(?:made|built|created|developed|designed|released|wrote|published|is\s+behind)\b"
    r"|^\W*(?:and\s+|so\s+)?(?:what|which)\s+(?:(?:are|were|is|was)\s+)?(?:the\s+|its\s+|their\s+)?"
    r"(?:names?\s+of\s+the\s+)?(?:authors?|affiliations?|labs?|universit(?:y|ies)|institutions?|research\s+groups?)\b",
    re.I,
)
# A work's own limitations ("what are its limitations?", "any drawbacks?"), not those of the work it improves on ("what
# limitation of existing models does X address"): an abstract rarely states any, and then in a sentence of its own
_LIMITATION_TYPE = re.compile(r"\b(?:limitations?|drawbacks?|weakness(?:es)?|shortcomings?|downsides?|caveats?)\b", re.I)
_OTHERS_LIMITATION = re.compile(
    r"\b(?:existing|prior|previous|current|earlier|other|baselines?|address\w*|overcom\w*|solv\w*|tackl\w*|fix\w*|"
    r"mitigat\w*|alleviat\w*|remov\w*)\b",
    re.I,
)
_LIMITATION_STATED = re.compile(
    r"\b(?:limitations?|limited\s+to|drawbacks?|weakness(?:es)?|shortcomings?|caveats?|future\s+work)\b", re.I
)
# Whether a work's code, data or weights are out, or where to get them ("is the code released?", "X github", "is X
# open source?", "where can I download X"): an abstract says so in an availability line or not at all. Not "which
# open-source models were tested" (open-source then describes the models).
_AVAILABILITY_TYPE = re.compile(
    r"\b(?:code(?:base)?|implementation|weights|checkpoints?|data(?:sets?)?|benchmark)\b[^.?!]{0,40}?\b(?:released?|"
    r"available|public|open[- ]?sourced?|downloadable|out)\s*(?:yet|now|anywhere|online|publicly|somewhere)?\W*$"
    r"|\b(?:github|gitlab|hugging\s?face)\b"
    r"|\bopen[- ]?sourced?\b\s*(?:yet|now|already|at\s+all)?\W*$"
    r"|\bwhere\s+(?:can|could|do|does|should)\s+(?:i|we|one|you)\s+(?:get|find|access|obtain|download)\b"
    r"|\bdownload\s+(?:it|them|links?)\b"
    # "does FooNet release its code?", "did they share the weights?", "where is the code?"
    r"|\b(?:release[ds]?|share[ds]?|publish(?:es|ed)?|open[- ]?source[ds]?)\s+(?:(?:the|its|their|any|source)\s+)*"
    r"(?:code(?:base)?|implementation|weights|checkpoints?)\b"
    r"|\bwhere\s+(?:is|are)\s+(?:(?:the|its|their)\s+)?(?:[\w-]+['’]?s?\s+)?(?:code(?:base)?|implementation|weights|"
    r"checkpoints?)\b",
    re.I,
)
_AUTHOR_STATED = re.compile(r"\b(?:authors?|authored|affiliat\w+)\b", re.I)
_HARDWARE_TYPE = re.compile(_WH_OPEN + r"(?:[\w-]+\s+){0,2}?(?:gpus?|tpus?|hardware|accelerators?)\b", re.I)
# What a measured or set value is called: results (accuracy, F1, FID, nDCG …), settings (learning rate, batch size,
# epsilon …) and sizes (parameter count, runtime, cost)
_MEASURE = (
    r"(?:accuracy|scores?|fid|auc|roc-auc|auroc|augrc|aurc|f1|em|bleu|rouge|ndcg|(?-i:mAP|MAP)|mrr|psnr|ssim|rmse|mae|mse|"
    r"kappa|icc|agreement|reliability|correlation|error|rates?|speed-?ups?|perplexity|precision|recall|latency|"
    r"throughput|gains?|improvements?|percentage|ratio|margin|learning\s+rates?|batch\s+sizes?|epsilon|"
    r"privacy\s+budget|parameter\s+counts?|(?:number|count)\s+of\s+\w+|sizes?|costs?|price|temperature|"
    r"dimensions?|resolution|budget|win\s+rate|success\s+rate)"
)
_VALUE_TYPE = re.compile(
    r"\bwhat\s+(?:is|was|are|were)\s+(?:the|its|their)\s+(?:[\w()-]+\s+){0,4}?" + _MEASURE + r"\b"
    # "what top-1 accuracy", not "what does the score combine" (the measure is the subject of a clause of its own)
    r"|\bwhat\s+(?:(?!" + _AUXILIARY + r"\b)[\w()'’-]+\s+){0,3}?" + _MEASURE + r"\b",
    re.I,
)
# "how does it keep latency down?", "how do they cut the runtime?": how something is done, not how long it takes
_MECHANISM_ASKED = re.compile(
    r"\b[Hh]ow\s+(?:does|do|did|can|could|would|is|are|was|were)\s+(?:it|they|this|that|the\s+\w+|[A-Z][\w-]*)\s+"
    r"(?!(?:take|last|need|require|run|compare|perform)\b)(?:\w+\s+){0,1}?"
    r"(?:keep|keeps|reduce|reduces|cut|cuts|lower|lowers|achieve|achieves|get|gets|improve|improves|avoid|avoids|"
    r"handle|handles|minimi[sz]e|minimi[sz]es|speed|speeds|bring|brings|save|saves|manage|manages|make|makes|"
    r"decrease|decreases|hide|hides|shrink|shrinks)\b",
)
# A query that is a noun phrase naming a measured value of something: "batch size used for X", "F1 improvement
# over Y", "inter-rater reliability (ICC) of Z" (the measure followed by what it is of; "leverage score" alone
# names a method)
_NOUN_PHRASE_VALUE = re.compile(
    r"^\W*(?:[\w()&.-]+\s+){0,4}?"
    + _MEASURE.replace("scores?|", "")  # "trust score for X", "leverage score": a method's name as often as a value
    + r"(?:\s+\([^)]*\))?\s+(?:of|for|on|over|used|when|in|with|and|at)\b",
    re.I,
)
# the words between the wh-word and the kind of thing name it ("which open-weight models"); a preposition among them
# makes an earlier noun the head ("what problems with existing benchmarks": problems, not benchmarks)
_NOT_PREPOSITION = r"(?!(?:with|of|in|for|about|on|from|to|by|against|over|behind|between|among)\b)"
# "what information does the model use": the noun after the do-auxiliary is the clause's subject, not the head asked
_NOT_SUBJECT = r"(?!" + _AUXILIARY + r"\b)"
_ENTITY_TYPE = re.compile(
    _WH_OPEN + r"(?:" + _NOT_PREPOSITION + _NOT_SUBJECT + r"[\w&-]+\s+(?:\([\w&-]+\)\s+)?){0,4}?(?:datasets?|benchmarks?|models?|llms?|vlms?|mllms?|systems?|vendors?|companies|"
    r"baselines?|backbones?|architectures?|encoders?|decoders?|optimi[sz]ers?|librar(?:y|ies)|toolkits?|"
    r"frameworks?|networks?|simulators?|engines?|solvers?|detectors?|classifiers?|tokeni[sz]ers?|environments?|"
    r"games?|suites?|corpus|corpora|famil(?:y|ies)|providers?)\b"
    # "which nine methods …": counted methods, algorithms or metrics are named ones
    r"|\b(?:which|what)\s+(?:are\s+the\s+|were\s+the\s+)?(?:\d+|two|three|four|five|six|seven|eight|nine|ten|"
    r"eleven|twelve)\s+(?:[\w-]+\s+){0,2}?(?:methods|algorithms|approaches|techniques|metrics|languages)\b"
    r"|\bnames?\s+of\b|\bwhich\s+of\s+the\b|^\W*who\s+(?:is|are|was|were)\b",
    re.I,
)

_WH_ANY = re.compile(r"\b(?:how|what|which|who|whose)\b", re.I)  # "when"/"where" also join clauses


def asks_kind_of(question: str) -> bool:
    """Whether the question asks what kind of thing something is ("what kind of surrogate model …"): a description
    answers it, not a name."""
    return bool(_KIND_OF.search(question))


_OF_HEAD = re.compile(r"\b([A-Za-z-]+)\s+of\b", re.I)


def _measure_of_head(phrase: str) -> bool:
    """Whether the measure a wh-phrase ends with follows "of" after a head noun that is no quantity: "what are the
    two ingredients of that score" asks for the ingredients, not the score's value, while "what range of model sizes"
    and "the number of layers" ask a quantity."""
    return any(not set(content_words(m.group(1))) <= QUANTITY_STEMS for m in _OF_HEAD.finditer(phrase))


def answer_type(question: str, kind: Kind) -> AnswerType | None:
    """What kind of thing answers a detail question: a duration ("how long does X take", "what is the runtime"), a
    licence ("under which licence"), hardware ("which GPU"), the authors ("who wrote it", "which lab": an abstract
    never states them), the work's own limitations ("what are its limitations?"), whether its code or data are out
    ("is the code released?", "X github": an availability line answers), a value ("how many", "what accuracy", "what is the learning rate", "the exact score", a
    noun-phrase query opening with a measure: "batch size used for X"), names
    ("which base model", "what datasets", "names of", "which of the N …"); None for anything else (a description:
    "what kind of model …", "how does X work"). When a value and names are both asked, the head noun met first
    decides ("which benchmarks improved, and by how many points": names). A polar question ("does X use Y?") names
    what it asks about."""
    if kind == "list":
        return None
    question = uncontracted(question)
    # "does it have any drawbacks?", "is it written by …": what an abstract states or not, however it is asked
    if _AUTHOR_TYPE.search(question):
        return "author"
    if _LIMITATION_TYPE.search(question) and not _OTHERS_LIMITATION.search(question):
        return "limitation"
    # "is the code out?"; not "under which licence is the code released" (a licence)
    if _AVAILABILITY_TYPE.search(question) and not _LICENSE_TYPE.search(question):
        return "availability"
    if _POLAR.search(question):
        return None
    if (
        _TIME_TYPE.search(_PHASE.sub(" ", question))
        and (kind == "number" or not re.search(r"\bhow\s+(?:long|much)\b", question, re.I))
        and not _MECHANISM_ASKED.search(question)
    ):
        return "extent" if _EXTENT_ASKED.search(question) else "time"
    if _LICENSE_TYPE.search(question):
        return "license"
    if _HARDWARE_TYPE.search(question):
        return "hardware"
    heads: list[tuple[int, AnswerType]] = []
    value = _VALUE_TYPE.search(question)
    if value is not None and (
        measure_as_verb(question, value) or measures_used(question, value) or _measure_of_head(value.group(0))
    ):
        value = None
    if value is None and value_asked(question, kind):  # a measure named: "which method's FID …"
        value = _VALUE.search(question)
    if value is not None:
        heads.append((value.end(), "value"))
    if kind == "number":
        number = _NUMBER.search(question)
        heads.append((number.end() if number else len(question), "value"))
    if not _WH_ANY.search(question) and _NOUN_PHRASE_VALUE.search(question):
        heads.append((0, "value"))
    entity = None if asks_kind_of(question) else _ENTITY_TYPE.search(question)
    if entity is not None and re.match(r"\s+" + _MEASURE + r"\b", question[entity.end() :], re.I):
        entity = None  # "what range of model sizes": the head noun is the measure
    if entity is not None:
        heads.append((entity.end(), "name"))
    return min(heads)[1] if heads else None


_LICENSE_STATED = re.compile(
    r"\blicen[cs]\w*|\b(?:MIT|Apache(?:[\s-]2\.0)?|GPL-?\d?|LGPL|BSD|CC[\s-]BY(?:[\s-][A-Z]{2})*|Creative\s+Commons|"
    r"public\s+domain)\b",
    re.I,
)
# A named accelerator ("A100", "H100 GPUs", "RTX 4090", "TPU v4"), not the word "GPU" alone ("on a single GPU")
_HARDWARE_STATED = re.compile(
    r"\b(?:[AHVTLP]\d{2,3}|RTX\s?\w+|GTX\s?\d+|TPU\s?v\d\w*|MI\d{3}\w*|Gaudi\d?|M\d\s+(?:Pro|Max|Ultra))\b"
)


def states_answer_type(sentence: str, kind: AnswerType) -> bool | None:
    """Whether the sentence states something of that kind: a duration, a licence, named hardware. None for values
    and names (whether a number or a name is an answer depends on the question; see rag.abstain)."""
    if kind in ("time", "extent"):
        return states_unit(sentence, kind)
    if kind == "license":
        return bool(_LICENSE_STATED.search(sentence))
    if kind == "hardware":
        return bool(_HARDWARE_STATED.search(sentence))
    if kind == "author":
        return bool(_AUTHOR_STATED.search(sentence))
    if kind == "availability":
        return states_availability(sentence)
    if kind == "limitation":  # the work's own, not the ones it addresses ("To address these limitations, we …")
        return bool(_LIMITATION_STATED.search(sentence)) and not _OTHERS_LIMITATION.search(sentence)
    return None


# ---- Details an abstract states in a form of their own, asked anywhere in a single-paper question (beside whatever
# else it asks: "which NLI model, and how many parameters is it?"): a model's size (a parameter count), a speed (frames
# or tokens per second, real time, throughput), the place a work was done (a university, lab, hospital or country), a
# study with people, a run on real hardware (a physical robot), the layers something sits in, a licence, a cost in
# money, and a training or decoding setting (learning rate, batch size, temperature, discount factor …: stated only
# where the abstract writes it).
# An abstract that states none of that kind cannot answer the question, however near its topic.
DetailKind = Literal["size", "speed", "place", "setting", "human", "deployment", "layer", "license", "money"]
_SIZE_ASKED = re.compile(
    r"\bhow\s+many\s+(?:trainable\s+)?param(?:eter)?s\b|\bparam(?:eter)?\s+counts?\b|\bnumber\s+of\s+param(?:eter)?s\b"
    r"|\bmodel\s+sizes?\b|\b(?:of|at)\s+what\s+(?:model\s+)?sizes?\b"
    r"|\bhow\s+(?:big|large)\s+(?:is|are|was|were)\s+(?:the|its|their)\s+(?:[\w-]+\s+)?(?:model|backbone|network|llm)s?\b",
    re.I,
)
# a parameter count: "7B", "1.7B-70B", "350M parameters", "a billion-parameter model", "the parameters"
_SIZE_STATED = re.compile(
    r"\b\d[\d.]*\s*[BMK]\b|\b\d[\d.]*[BMK]-|\b(?:billion|million)\b|\bparam(?:eter)?s?\b", re.I
)
_SPEED_ASKED = re.compile(
    r"\bfps\b|\bframes?[\s-]+per[\s-]+second\b|\bthroughput\b|\breal[\s-]?time\b"
    r"|\btokens?\s*(?:/|per)\s*s(?:ec(?:ond)?)?\b",
    re.I,
)
# a rate: "30 FPS", "120 frames per second", "2,000 tokens/s", "runs in real time", "interactive rates", "throughput"
_SPEED_STATED = re.compile(
    r"\b\d[\d.,]*\s*(?:fps|hz|frames?\s+per\s+second|(?:tokens?|samples?|images?|queries)\s*(?:/|per)\s*s(?:ec(?:ond)?)?\b|"
    r"it/s)|\breal[\s-]?time\b|\binteractive\s+(?:rates?|speeds?|frame\s+rates?)\b|\bthroughput\b|\bframe\s+rates?\b",
    re.I,
)
# "which university or lab", "in what country", "where were the recordings made": not "which lab steps" (a noun
# qualifying another) nor "where were the experiments carried out" (a setting, which an abstract states)
_PLACE_NOUN = (
    r"(?:universit(?:y|ies)|labs?|laborator(?:y|ies)|institut(?:e|es|ions?)|countr(?:y|ies)|cit(?:y|ies)|"
    r"hospitals?|schools?)"
)
_PLACE_ASKED = re.compile(
    r"\b(?:which|what)\s+(?:[\w-]+\s+)?" + _PLACE_NOUN
    + r"\b(?!\s+(?!(?:or|and|are|is|was|were|did|do|does|they|it|its|their|the|in|at|of|from|for|[a-z]+ed)\b)[a-z][\w-]*)"
    r"|\bwhere\s+(?:(?:is|are|was|were|did|do|does)\s+)?(?:[\w-]+\s+){0,6}?(?:recorded|located|based)\b",
    re.I,
)
_PLACE_STATED = re.compile(
    r"\b(?:universit\w*|hospitals?|institut\w*|laborator\w*|clinics?|affiliat\w*|countr(?:y|ies)|cities)\b"
    r"|\b(?:recorded|collected|gathered|acquired|conducted)\s+(?:\w+\s+){0,3}?(?:in|at|from)\s+(?:the\s+)?[A-Z]"
    r"|\b" + _PLACE_NOUN + r"\b",
)
# a setting of training or decoding, as the question names it; "temperature scaling" is a method, not a setting
_SETTING = re.compile(
    r"\b(?:learning[\s-]rates?|batch[\s-]sizes?|temperature(?!\s+scal)|discount\s+factors?|replay[\s-]buffers?|"
    r"weight\s+decay|dropout\s+rates?|warm-?up\s+steps|optimi[sz]ers?|momentum|beam\s+(?:size|width)|lora\s+rank)\b",
    re.I,
)
# a study with people ("tested in a user study", "with human participants"): an abstract reporting one says so
_HUMAN_ASKED = re.compile(
    r"\buser\s+stud(?:y|ies)\b|\bhuman\s+(?:participants|subjects|stud(?:y|ies))\b|\bvolunteers\b|\bcrowd\s?workers?\b",
    re.I,
)
_HUMAN_STATED = re.compile(
    r"\buser\s+stud\w*|\bparticipants?\b|\bhuman\s+(?:subjects?|evaluat\w*|stud\w*|raters?|annotat\w*|judg\w*|"
    r"preferences?|users?)\b|\bvolunteers?\b|\bcrowd\w*|\bannotators?\b|\braters?\b|\bpeople\b|\busers\b",
    re.I,
)
# a deployment on real hardware ("on a physical robot", "a real-world robot arm"), not a simulated one
_HARDWARE_RUN_ASKED = re.compile(
    r"\b(?:physical|real|real-world)\s+(?:robots?|robotic\s+\w+|hardware|quadrupeds?|drones?|arms?)\b", re.I
)
_HARDWARE_RUN_STATED = re.compile(
    r"\b(?:physical|real|real-world)\s+(?:robots?|robotic|hardware|platforms?|experiments?|deployments?|drones?|"
    r"quadrupeds?|arms?|environments?|scenes?)\b|\bdeploy\w*\b",
    re.I,
)
# where inside a network something sits ("in which layers are the X neurons"): an abstract saying so names layers
_LAYER_ASKED = re.compile(r"\b(?:which|what)\s+(?:[\w-]+\s+)?layers?\b", re.I)
_LAYER_STATED = re.compile(r"\blayers?\b|\bdepths?\b|\bblocks?\b", re.I)
# the licence of a release ("is X licensed for commercial use?", "under what license"), asked anywhere: an abstract
# that states one names it (_LICENSE_STATED)
_LICENSE_ASKED = re.compile(r"\blicen[cs](?:e[sd]?|ing)\b", re.I)
# a cost in money ("how much did it cost", "in API dollars", "the price per GPU-hour"): an abstract stating one writes
# a sum or speaks of costs or prices
_MONEY_ASKED = re.compile(
    r"\b(?:dollars?|USD)\b|\$\s?\d|\bhow\s+much\s+(?:does|did|do|would|will)\s+(?:[\w-]+\s+){0,5}?cost\b|\bprice\s+per\b",
    re.I,
)
_MONEY_STATED = re.compile(r"\$\s?\d|\b(?:dollars?|USD|cents?|costs?|costly|pric(?:e[sd]?|ing))\b", re.I)
_DETAIL_ASKED: dict[DetailKind, re.Pattern[str]] = {
    "human": _HUMAN_ASKED, "deployment": _HARDWARE_RUN_ASKED, "layer": _LAYER_ASKED,
    "size": _SIZE_ASKED, "speed": _SPEED_ASKED, "place": _PLACE_ASKED, "setting": _SETTING,
    "license": _LICENSE_ASKED, "money": _MONEY_ASKED,
}
_DETAIL_STATED: dict[DetailKind, re.Pattern[str]] = {
    "human": _HUMAN_STATED, "deployment": _HARDWARE_RUN_STATED, "layer": _LAYER_STATED,
    "size": _SIZE_STATED, "speed": _SPEED_STATED, "place": _PLACE_STATED,
    "license": _LICENSE_STATED, "money": _MONEY_STATED,
}


def details_asked(question: str) -> list[DetailKind]:
    """The details of a kind an abstract states in a form of its own that the question asks for, wherever it asks
    them ("which backbone, and how many parameters?" asks a size; "ZedNet inference fps?" a speed; "which university
    recorded the data?" a place)."""
    return [kind for kind, asked in _DETAIL_ASKED.items() if asked.search(question)]


def states_detail(sentence: str, kind: DetailKind, question: str = "") -> bool:
    """Whether the sentence states a detail of that kind: a parameter count ("7B", "350 million parameters"), a speed
    ("30 FPS", "in real time", "throughput"), a place ("a university hospital", "recorded in Kenya"); a setting: one
    the question asks for, by its words ("learning rate")."""
    if kind == "setting":
        asked = {_setting_key(m.group(0)) for m in _SETTING.finditer(question)}
        return any(_setting_key(m.group(0)) in asked for m in _SETTING.finditer(sentence))
    return bool(_DETAIL_STATED[kind].search(sentence))


def _setting_key(words: str) -> str:
    """A setting's first word, lower case and without a plural or hyphen ("Learning-rates" -> "learning")."""
    return re.split(r"[\s-]", words.lower())[0].rstrip("s")


# A question asking which (language) model or backbone: its answer names a model, not any name of the abstract
# The model word must head the asked noun phrase: "what is the LLM framework … called" asks for a framework's
# name, "the LLM-based agent" for an agent's, not for a model's.
_MODEL_ASKED = re.compile(
    r"\b(?:which|what)\s+(?:[\w&-]+\s+){0,3}?(?:llms?|vlms?|mllms?|lms?|language\s+models?|backbones?|"
    r"base\s+models?|teacher\s+models?|judge\s+models?)\b"
    r"(?!-\w|\s+(?:frameworks?|methods?|approach(?:es)?|pipelines?|systems?|agents?|techniques?|tools?|papers?|"
    r"works?|stud(?:y|ies)|benchmarks?|datasets?)\b)",
    re.I,
)
# Well-known model families named without a version; most model names carry one ("GPT-4o", "Qwen2.5-7B")
_MODEL_FAMILIES = frozenset(
    "bert roberta deberta claude gemini llama mistral mixtral qwen deepseek gemma phi palm clip vit resnet gpt "
    "chatgpt t5 opt bloom falcon vicuna alpaca grok dino dinov2 sam whisper stable diffusion sdxl flux".split()
)
_MODEL_VERSION = re.compile(r"[A-Za-z][-_.]?\d|\d(?:\.\d+)?[BM]\b|-[a-z]?\d")


def asks_model(question: str) -> bool:
    """Whether the question asks which (language) model, backbone or base model: "which LLM does X use"."""
    return bool(_MODEL_ASKED.search(question))


def looks_like_model_name(token: str) -> bool:
    """Whether a name reads as a model's: a family with a version or size ("GPT-4o", "Qwen2.5-7B", "Llama3-8B",
    "ResNet-50", "T5") or a well-known family ("Claude", "BERT"); not a dataset's count ("Articraft-10K") or a
    benchmark ("SWE-Bench")."""
    lowered = token.lower()
    if re.search(r"bench|\d+k\b", lowered):
        return False
    return lowered.split("-")[0] in _MODEL_FAMILIES or bool(_MODEL_VERSION.search(token))


# A work the question names by what it is about rather than by its name: "the paper on X", "the study about X",
# "the paper that X", "the X paper" (X: the description, which the answering abstract must state)
_DESCRIBING_NOUN = r"(?:paper|study|work|article|abstract)"
_DESCRIPTION_END = (
    r"(?=\s*(?:[,;:?!()]|\.(?:\s|$)|$)|\s+(?:say|says|said|report|reports|reported|find|finds|found|show|shows|"
    r"showed|claim|claims|use|uses|used|do|does|did|is|are|was|were|has|have|had|evaluate|evaluates|evaluated|test|"
    r"tests|tested|measure|measures|measured|achieve|achieves|get|gets|reach|reaches|compare|compares|propose|"
    r"proposes|train|trains|trained|mention|mentions|state|states|describe|describes|and\s+(?:what|which|how|"
    r"does|did|is))\b)"
)
_DESCRIBED_AFTER = re.compile(
    rf"\b(?:the|a|that|this)\s+{_DESCRIBING_NOUN}\s+(?:on|about|into|regarding|that|which|proposing|introducing|"
    rf"studying|presenting|using)\s+(?P<d>.+?){_DESCRIPTION_END}",
    re.I,
)
_DESCRIBED_BEFORE = re.compile(
    rf"\bthe\s+(?P<d>(?:(?!(?:the|a|an|in|of|on|for|with|to|from|by|and|or|is|are|was|were|do|does|did|what|which|"
    rf"how|that)\b)[\w()&.'\u2019-]+\s+){{1,6}}?){_DESCRIBING_NOUN}\b(?!\s+(?:on|about|that|which)\b)",
    re.I,
)
# words that point at a paper rather than describe it: "the same paper", "the second study", "the whole work"
_POINTING = frozenset(
    "same other first second third last previous earlier above original whole entire following former latter "
    "new this that one".split()
)


def work_description(question: str) -> str:
    """The words a question describes one work with, when it names it by what it is about ("What does the paper on
    FooNet pruning report about speed?" -> "FooNet pruning"; "In the quux regularisation study, which datasets …" ->
    "quux regularisation"); "" when it names no work so ("What does FooNet report?", "the same paper", "the second
    one"). The answering abstract must state what the work is described by: a question about "the paper on X" where
    no abstract treats X is about a neighbouring topic the corpus lacks."""
    for pattern in (_DESCRIBED_AFTER, _DESCRIBED_BEFORE):
        for match in pattern.finditer(question):
            words = match.group("d").split()
            if words and all(w.lower() in _POINTING for w in words):
                continue
            text = " ".join(w for w in words if w.lower() not in _POINTING)
            if text.strip():
                return text.strip()
    return ""


# what a question asks a work to say something about: "what does FooNet report about X", "what do they find on X"
_ASPECT = re.compile(
    r"\b(?:say|says|said|report|reports|reported|find|finds|found|show|shows|showed|claim|claims|conclude|concludes|"
    r"mention|mentions|state|states|tell\s+us|discuss|discusses|note|notes|observe|observes)\s+"
    r"(?:(?!about|on|regarding|concerning)\w+\s+){0,2}?(?:about|regarding|concerning|on\s+the\s+(?:topic|subject)\s+of)"
    r"\s+(?P<a>.+?)\s*(?:[?!]|\.(?:\s|$)|$)",
    re.I,
)


def asked_aspect(question: str) -> str:
    """What the question asks a work to say something about: "What does FooNet report about quux pruning?" ->
    "quux pruning"; "" when it asks no such thing. The answering abstract must treat it: an abstract that never
    mentions the aspect says nothing about it."""
    match = _ASPECT.search(question)
    return match.group("a").strip() if match else ""


# ---- A counted set whose members are asked by name ("which five backbones …", "what are the names of the six
# datasets …", "name the three environments"): an abstract often says only how many ("across five benchmarks",
# "nine representative methods") and names none of them. Where it writes the count with the asked noun and never
# follows it with its members (a colon, a parenthesis, "including", "such as", "namely", "e.g."), it cannot say which.
_COUNT_WORD_VALUES = {w: n for w, n in NUMBER_WORDS.items() if 2 <= n <= 20}
_COUNT_TOKEN = r"(?:\d{1,2}|" + "|".join(sorted(_COUNT_WORD_VALUES, key=len, reverse=True)) + r")"
_COUNTED_NAMES_ASKED = re.compile(
    r"\b(?:which|what(?:\s+(?:are|were))?\s+(?:the\s+)?names?\s+of|names?\s+of|name|list)\s+(?:of\s+)?(?:the\s+)?"
    r"(?P<count>" + _COUNT_TOKEN + r")\s+(?P<noun>(?:[\w-]+\s+){0,3}?[A-Za-z][\w-]*s)\b",
    re.I,
)
_MEMBERS_FOLLOW = re.compile(
    r"^(?P<gap>[^.;:(]{0,40}?)(?::|\(|\bincluding\b|\bsuch\s+as\b|\bnamely\b|\be\.g\.|\bi\.e\.|[—–]|-{2,3}|\s-\s)"
    # "two variants, FooS and FooL": names in apposition right after the noun
    r"|^\s*,\s*(?-i:[A-Z0-9])[\w.+/-]*(?:\s+[\w.+/-]+){0,3}?\s*(?:,|\band\b)",
    re.I,
)
# "FooQA, BarQA and BazQA, three QA benchmarks": names enumerated right before the count
_MEMBERS_PRECEDE = re.compile(r"[A-Z0-9][\w.+/-]*\s*[,(]\s*(?:and\s+)?(?:(?:all|the|these)\s+)?$")
# words that end a noun phrase ("five seeds on each benchmark": "benchmark" is not what "five" counts)
_PHRASE_BREAK = frozenset(
    "on in of for with at to from by per each and or across over under into than that which who are is were was "
    "we our their its the a an".split()
)
_NOUN_WINDOW = 5  # words after a count in which the asked noun may stand ("five multiple-choice question answering benchmarks")


def _count_value(token: str) -> int | None:
    token = token.lower()
    return int(token) if token.isdigit() else _COUNT_WORD_VALUES.get(token)


def _noun_stem(word: str) -> str:
    word = word.lower().strip("-")
    return word[:-1] if plural_s(word) else word


def counted_unnamed(question: str, sentences: Sequence[str]) -> bool:
    """Whether a question asking the members of a counted set by name ("which five QA benchmarks did FooNet use?")
    meets an abstract that writes that count with the asked noun ("on five QA benchmarks") and never lists the
    members after it: the abstract says how many, not which. False when the question gives no count, or when the
    abstract never writes the count with the noun (then other signals read it)."""
    asked = _COUNTED_NAMES_ASKED.search(question)
    if asked is None:
        return False
    value = _count_value(asked.group("count"))
    if value is None:
        return False
    head = _noun_stem(asked.group("noun").split()[-1])
    mentioned = False
    for sentence in sentences:
        for match in re.finditer(r"\b" + _COUNT_TOKEN + r"\b", sentence, re.I):
            if _count_value(match.group(0)) != value:
                continue
            if _MEMBERS_PRECEDE.search(sentence[: match.start()]):
                return False
            after = sentence[match.end():]
            words = list(re.finditer(r"[A-Za-z][\w-]*", after))[:_NOUN_WINDOW]
            noun = None
            for word in words:  # the asked noun within the count's own noun phrase, not past a function word
                if word.group(0).lower() in _PHRASE_BREAK:
                    break
                if _noun_stem(word.group(0)) == head:
                    noun = word
                    break
            if noun is None:
                continue
            members = _MEMBERS_FOLLOW.search(after[noun.end():])
            # "two estimators within this framework: A and B" lists them; "six datasets spanning three tasks: …" lists
            # what the later count counts
            if members and not re.search(r"\b" + _COUNT_TOKEN + r"\b", members.group("gap") or "", re.I):
                return False
            mentioned = True
    return mentioned
