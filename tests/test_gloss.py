"""Chinese questions glossed into English with a dictionary (jieba + CC-CEDICT, read from an SQLite table), no model."""

from __future__ import annotations

import logging

from rag.gloss import gloss, readable_by_encoder
from rag.question import profile


def test_no_chinese_no_gloss():
    assert gloss("How many screens does FooBench use?") is None


def test_latin_names_and_numbers_are_kept_whole():
    text = gloss("FooNet-2 在 Bar1.5-XL 上用了多少个 GPU？")
    assert text is not None
    assert "FooNet-2" in text and "Bar1.5-XL" in text and "GPU" in text


def test_question_words_keep_the_shape():
    text = gloss("这个模型用了多少个专家？")
    assert "how many" in text
    assert profile(text).kind == "number"
    assert "which" in gloss("哪些论文研究机器人？")
    assert gloss("为什么这个方法有效？").startswith("why")


def test_content_words_get_english_senses():
    text = gloss("哪些论文研究蛋白质和机器人？").lower()
    assert "paper" in text and "protein" in text and "robot" in text


def test_machine_learning_terms_get_the_sense_papers_use():
    text = gloss("有没有论文把差分隐私用在联邦学习的时空建模里？")
    assert "differential privacy" in text and "federated learning" in text
    assert "spatiotemporal" in text and "modeling" in text


def test_measure_word_after_a_count_is_dropped():
    assert "how many student" in gloss("有多少名学生？")


def test_the_gloss_is_readable_by_the_encoder():
    text = gloss("这篇论文提出了什么方法？")
    assert text and readable_by_encoder(text)
    assert not readable_by_encoder("这篇论文提出了什么方法？")


def test_segmentation_from_the_table_is_jiebas_own():
    import jieba

    from rag.gloss import _segments

    jieba.setLogLevel(logging.WARNING)
    for text in (
        "我们提出了一种新的图神经网络方法",
        "这个机器人在下游任务上表现更好",
        "强化学习能否提升语言模型的推理能力",
    ):
        assert _segments(text) == jieba.lcut(text)


def test_with_the_corpus_words_a_word_takes_the_first_sense_the_corpus_speaks_of():
    from rag.gloss import _gloss_word

    class FakeSenses:  # a fake dictionary: one word with two senses
        def sense(self, form):
            return "letter" if form == "书" else None

        def senses(self, form):
            return ["letter", "book"] if form == "书" else []

        def __contains__(self, form):
            return form == "书"

    assert _gloss_word("书", FakeSenses(), known={"book"}.__contains__) == ["book"]
    assert _gloss_word("书", FakeSenses(), known={"letter", "book"}.__contains__) == ["letter"]


def test_a_sense_the_corpus_uses_wins_and_a_shorter_one_among_those():
    from rag.gloss import choose_sense

    corpus = {"patient", "sick", "person", "process", "cours", "event"}.__contains__
    assert choose_sense(["sick person", "patient", "invalid"], corpus) == "patient"
    assert choose_sense(["course of events", "process"], corpus) == "process"
    assert choose_sense(["imitation", "simulate"], {"imit", "simul"}.__contains__) == "imitation"  # order


def test_synonyms_listed_with_or_are_senses_of_their_own():
    from rag.gloss import choose_sense

    assert choose_sense(["glossia or glossemia"], {"glossia"}.__contains__) == "glossia"
    # a long description is not cut at its "or"
    assert choose_sense(["marking the start of an action or a state"], set().__contains__) == (
        "marking the start of an action or a state"
    )


def test_with_no_sense_in_the_corpus_the_most_common_english_word_wins():
    from rag.gloss import choose_sense

    zipf = {"glossia": 2.5, "glossemia": 0.0, "rare": 1.0, "common": 5.0, "usual": 4.0, "handy": 4.5}

    def frequency(word):
        return zipf.get(word, 3.0)

    nowhere = set().__contains__
    assert choose_sense(["glossia or glossemia"], nowhere, frequency, rare_zipf=2.0) == "glossia"
    assert choose_sense(["rare", "common"], nowhere, frequency, rare_zipf=2.0) == "common"
    assert choose_sense(["usual", "handy"], nowhere, frequency, rare_zipf=2.0) == "usual"  # common enough: the first
    assert choose_sense(["rare", "common"], nowhere) == "rare"  # no frequencies: the first
    assert choose_sense(["should", "rare"], {"rare"}.__contains__, frequency) == "should"  # function words kept


def test_research_words_get_the_sense_papers_use():
    text = gloss("FooNet 在哪些评价指标上提升了准确率？").lower()
    assert "metric" in text and "accuracy" in text and "improve" in text
    assert "based on" in gloss("这个方法基于哪个模型？")
    assert "benchmark" in gloss("在合成基准上的性能如何？") and "performance" in gloss("在合成基准上的性能如何？")


def test_a_question_that_finds_a_paper_then_asks_about_it_is_answered_as_the_later_question():
    text = gloss("有没有研究蛋白质折叠的论文？它用了多少个数据集？")
    assert text.startswith("is there")
    prof = profile(text)
    assert prof.kind == "number" and prof.shape == "number"


def test_longer_research_terms_are_segmented_whole():
    from rag.gloss import _segments_keeping_terms

    assert "多模态" in _segments_keeping_terms("哪些多模态方法")
    assert "智能体" in _segments_keeping_terms("长时程智能体在执行")
    text = gloss("这个数据集有多少张图像？").lower()
    assert "dataset" in text and "how many" in text


def test_after_a_plural_question_word_the_noun_asked_about_is_plural():
    text = gloss("哪些论文研究蛋白质？")
    assert "which papers" in text
    assert profile(text).kind == "list"


def test_is_there_a_paper_about_a_topic_reads_in_english_order():
    text = gloss("有没有关于蛋白质的论文？")
    assert text.startswith("is there a paper about") and "protein" in text
    assert profile(text).shape == "yes_no"


def test_papers_asked_for_after_their_topic_read_in_english_order():
    # "X 相关的论文有哪些" / "有哪些关于 X 的论文": which papers are there on X
    for question in ("蛋白质相关的论文有哪些？", "有哪些关于蛋白质的论文", "FooNet 相关的论文有哪些"):
        text = gloss(question)
        assert text.startswith("which papers are about"), text
        assert profile(text).kind == "list"
    # a bare topic noun phrase "X 的论文" asks for the topic's papers
    assert gloss("蛋白质的论文").endswith("papers")


def test_papers_asked_for_right_after_their_topic_or_as_studies_read_as_a_list():
    # "X 有哪些论文" (no 的), "X 方面/领域 有哪些工作" (the area of X), "有哪些关于 X 的研究" (研究: studies)
    for question in ("蛋白质有哪些论文？", "蛋白质方面有哪些工作？", "有哪些关于蛋白质的研究？", "蛋白质领域的研究有哪些"):
        text = gloss(question)
        assert text.startswith(("which papers are about", "which works are about", "which studies are about")), text
        assert "respect" not in text and "field" not in text, text
        assert profile(text).kind == "list"


def test_is_there_anyone_doing_a_topic_asks_for_a_paper_on_it():
    for question in ("有没有做 frog calls 的", "有没有研究蛋白质的论文"):
        text = gloss(question)
        assert text.startswith("is there a paper"), text
        assert profile(text).shape == "yes_no"
        assert "research" not in text and "make" not in text


def test_which_papers_are_about_a_topic_in_any_chinese_order():
    for question in ("有哪些论文是关于蛋白质的？", "哪些论文是关于蛋白质的", "有哪些论文研究蛋白质？", "哪些工作做了蛋白质"):
        text = gloss(question)
        assert text.startswith(("which papers", "which works")) and "have which" not in text, text
        assert " is about" not in text and "research" not in text and "make" not in text, text
        assert profile(text).kind == "list"
    # "have" after the papers is their own verb, not the question's
    assert gloss("哪些论文有开源代码").startswith("which papers have")


def test_requests_for_papers_read_as_english_requests():
    # the politeness around a request ("给我", "帮我", "一下", "我想") is dropped; the topic's papers come first
    for question, start in (
        ("列出所有关于蛋白质的论文", "list all papers about protein"),
        ("帮我找找关于蛋白质的文章", "find articles about protein"),
        ("我想找关于蛋白质的论文", "find papers about protein"),
    ):
        text = gloss(question)
        assert text.startswith(start), text
        assert profile(text).kind == "list", text
    assert gloss("给我介绍一下 FooNet").startswith("tell me about FooNet")
    assert gloss("我想知道 FooNet 用了多少个数据集").startswith("FooNet")


def test_papers_related_to_a_topic_drop_the_word_related():
    assert gloss("kv cache 相关的论文有哪些") == "which papers are about kv cache"


def test_an_overview_request_is_a_summary():
    assert profile(gloss("总结一下关于蛋白质的论文")).shape == "summary"


def test_research_vocabulary_words_are_the_questions_own_terms():
    from rag.gloss import research_words
    from rag.text import content_words

    assert set(content_words("federated learning")) <= research_words("is there a paper about federated learning?")
    assert not research_words("is there a paper about protein folding?")


def test_these_papers_are_plural_so_a_question_about_their_themes_is_about_the_collection():
    from rag.question import asks_collection_overview

    assert gloss("这些论文的主要主题是什么？").startswith("these papers")
    assert asks_collection_overview(gloss("这些论文的主要主题是什么？"))
    assert gloss("所有论文").startswith("all papers")
