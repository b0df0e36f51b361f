"""eval/questions.py: loading errors name the line and the problem; gold resolution; the shipped question file."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from eval.metrics import fact_present
from eval.questions import (
    DEFAULT_QUESTIONS,
    MIN_PREFIX_CHARS,
    QUESTION_TYPES,
    SHAPES,
    SPLITS,
    Question,
    load_questions,
    resolve_gold,
    select_split,
)
from rag.corpus import Abstract, load_corpus
from rag.errors import QuestionFileError

ROOT = Path(__file__).resolve().parents[1]


def row(**overrides) -> str:
    obj = {"id": "q1", "type": "single", "question": "What is X?", "gold": ["x-1234"], "key_facts": ["X"]}
    obj.update(overrides)
    return json.dumps(obj)


def write(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "questions.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def load_error(path: Path) -> str:
    with pytest.raises(QuestionFileError) as info:
        load_questions(path)
    return str(info.value)


# --- load_questions: good files ---


def test_load_valid_file(tmp_path):
    path = write(
        tmp_path,
        row(),
        "",
        row(id="q2", type="unanswerable", question="  What about Y?  ", gold=[], key_facts=[]),
    )
    first, second = load_questions(path)
    assert first == Question("q1", "single", "What is X?", ("x-1234",), ("X",), 1, "", "fact")
    assert first.answerable
    assert second.line == 3  # the blank line still counts
    assert second.question == "What about Y?"
    assert not second.answerable


def test_answerable_question_may_have_no_key_facts(tmp_path):
    [q] = load_questions(write(tmp_path, row(key_facts=[])))
    assert q.key_facts == ()


# --- load_questions: errors name the line and the problem ---


def test_invalid_json_names_the_line(tmp_path):
    message = load_error(write(tmp_path, row(), '{"id": "q2", "type": '))
    assert "questions.jsonl, line 2" in message
    assert "not valid JSON" in message


def test_non_object_line(tmp_path):
    message = load_error(write(tmp_path, "[1, 2]"))
    assert "line 1" in message
    assert "expected a JSON object, got list" in message


def test_missing_field_names_the_field(tmp_path):
    obj = json.loads(row())
    del obj["key_facts"]
    del obj["gold"]
    message = load_error(write(tmp_path, row(), row(id="q2"), json.dumps(obj)))
    assert "line 3" in message
    assert "missing field(s) gold, key_facts" in message


def test_bad_type_value(tmp_path):
    message = load_error(write(tmp_path, row(type="trivia")))
    assert "line 1" in message
    assert "'type' must be one of" in message
    assert "'trivia'" in message


@pytest.mark.parametrize(
    ("overrides", "problem"),
    [
        ({"id": 7}, "'id' must be a non-empty string"),
        ({"id": "  "}, "'id' must be a non-empty string"),
        ({"question": ""}, "'question' must be a non-empty string"),
        ({"question": ["What?"]}, "'question' must be a non-empty string"),
        ({"gold": "x-1234"}, "'gold' must be a list of non-empty strings"),
        ({"gold": ["x-1234", 3]}, "'gold' must be a list of non-empty strings"),
        ({"gold": [" "]}, "'gold' must be a list of non-empty strings"),
        ({"key_facts": "X"}, "'key_facts' must be a list of non-empty strings"),
        ({"key_facts": [""]}, "'key_facts' must be a list of non-empty strings"),
    ],
)
def test_bad_field_types(tmp_path, overrides, problem):
    message = load_error(write(tmp_path, row(id="q0"), row(**overrides)))
    assert "line 2" in message
    assert problem in message


def test_duplicate_id(tmp_path):
    message = load_error(write(tmp_path, row(), row(id="q2"), row()))
    assert "line 3" in message
    assert "duplicate id 'q1'" in message


@pytest.mark.parametrize(("gold", "facts"), [(["x-1234"], []), ([], ["X"])])
def test_unanswerable_with_gold_or_facts(tmp_path, gold, facts):
    message = load_error(write(tmp_path, row(type="unanswerable", gold=gold, key_facts=facts)))
    assert "line 1" in message
    assert "an unanswerable question has empty 'gold' and 'key_facts'" in message


@pytest.mark.parametrize("qtype", [t for t in QUESTION_TYPES if t != "unanswerable"])
def test_answerable_without_gold(tmp_path, qtype):
    message = load_error(write(tmp_path, row(type=qtype, gold=[])))
    assert "line 1" in message
    assert "needs at least one 'gold' abstract" in message


def test_empty_file(tmp_path):
    path = tmp_path / "questions.jsonl"
    path.write_text("", encoding="utf-8")
    assert "the file has no questions" in load_error(path)


def test_blank_lines_only_file(tmp_path):
    assert "the file has no questions" in load_error(write(tmp_path, "", "   ", ""))


def test_missing_file(tmp_path):
    message = load_error(tmp_path / "nope.jsonl")
    assert "nope.jsonl" in message
    assert "no such question file" in message


def test_undecodable_file(tmp_path):
    path = tmp_path / "questions.jsonl"
    path.write_bytes(b"\xff\xfe\x00garbage")
    assert "cannot read the file" in load_error(path)


# --- resolve_gold ---

TEXT_A = "Recent advances in machine learning and large-scale biological screens make AssayBench possible."
TEXT_B = "Recent advances in machine learning and large-scale biological data call for a second benchmark."
TEXT_C = "Aptamers are programmable DNA and RNA receptors with broad uses in diagnostics."
ABSTRACTS = [
    Abstract(id="assaybench-aaaa", label="AssayBench", text=TEXT_A, locations=(), content_hash="a" * 64),
    Abstract(id="other-bbbb", label="Other", text=TEXT_B, locations=(), content_hash="b" * 64),
    Abstract(id="aptabench-cccc", label="AptaBench", text=TEXT_C, locations=(), content_hash="c" * 64),
]


def question(*gold: str) -> Question:
    return Question("q9", "single", "What?", tuple(gold), (), 17)


def test_resolve_by_id():
    assert resolve_gold(question("aptabench-cccc", "assaybench-aaaa"), ABSTRACTS) == [
        "aptabench-cccc",
        "assaybench-aaaa",
    ]


def test_resolve_by_prefix():
    assert resolve_gold(question(TEXT_C[:MIN_PREFIX_CHARS]), ABSTRACTS) == ["aptabench-cccc"]


def test_resolve_by_longer_prefix_disambiguates():
    assert resolve_gold(question(TEXT_A[:75]), ABSTRACTS) == ["assaybench-aaaa"]


def test_resolve_too_short_prefix():
    with pytest.raises(QuestionFileError) as info:
        resolve_gold(question(TEXT_C[: MIN_PREFIX_CHARS - 1]), ABSTRACTS)
    message = str(info.value)
    assert "line 17 (q9)" in message
    assert f"at least {MIN_PREFIX_CHARS} characters" in message


def test_resolve_ambiguous_prefix():
    shared = TEXT_A[:60]
    assert TEXT_B.startswith(shared)
    with pytest.raises(QuestionFileError) as info:
        resolve_gold(question(shared), ABSTRACTS)
    message = str(info.value)
    assert "line 17 (q9)" in message
    assert "matches 2 abstracts" in message


def test_resolve_prefix_matching_nothing():
    with pytest.raises(QuestionFileError, match="matches 0 abstracts"):
        resolve_gold(question("This prefix is long enough but matches no abstract at all."), ABSTRACTS)


def test_resolve_prefix_is_not_a_substring_search():
    with pytest.raises(QuestionFileError, match="matches 0 abstracts"):
        resolve_gold(question(TEXT_C[5 : 5 + MIN_PREFIX_CHARS]), ABSTRACTS)


def test_resolve_no_gold():
    assert resolve_gold(question(), ABSTRACTS) == []


# --- the shipped question file against the real seed corpus ---


@pytest.fixture(scope="module")
def corpus() -> list[Abstract]:
    return load_corpus([ROOT / "seeds"])


@pytest.fixture(scope="module")
def shipped() -> list[Question]:
    return load_questions(DEFAULT_QUESTIONS)


def test_shipped_file_is_the_default():
    assert DEFAULT_QUESTIONS == ROOT / "eval" / "questions.jsonl"


def test_shipped_file_size_and_types(shipped):
    assert len(shipped) >= 40
    assert set(Counter(q.type for q in shipped)) == set(QUESTION_TYPES)


def test_shipped_gold_each_resolves_to_exactly_one_abstract(shipped, corpus):
    ids = {a.id for a in corpus}
    problems = []
    for q in shipped:
        for ref in q.gold:
            matches = [ref] if ref in ids else [a.id for a in corpus if a.text.startswith(ref)]
            if len(matches) != 1:
                problems.append(f"{q.id}: {ref[:40]!r} matches {len(matches)}")
        resolved = resolve_gold(q, corpus)
        assert len(resolved) == len(q.gold)
        assert set(resolved) <= ids
    assert problems == []


def test_shipped_key_facts_occur_in_a_gold_abstract(shipped, corpus):
    by_id = {a.id: a for a in corpus}
    missing = [
        f"{q.id}: {fact!r}"
        for q in shipped
        for fact in q.key_facts
        if not any(fact_present(fact, by_id[g].text) for g in resolve_gold(q, corpus))
    ]
    assert missing == []


def test_shipped_gold_covers_many_abstracts(shipped, corpus):
    distinct = {g for q in shipped for g in resolve_gold(q, corpus)}
    assert len(distinct) >= 40


def test_shipped_multi_questions_have_several_gold(shipped):
    assert all(len(q.gold) >= 2 for q in shipped if q.type == "multi")


# --- splits, shapes and follow-up history ---


def test_split_shape_and_history_are_read(tmp_path):
    [q] = load_questions(
        write(tmp_path, row(split="test", shape="followup", history=["Compare X and Y"], question="and the second?"))
    )
    assert (q.split, q.shape, q.history) == ("test", "followup", ("Compare X and Y",))


def test_shape_defaults_from_type_and_split_to_none(tmp_path):
    [numeric, unanswerable] = load_questions(
        write(tmp_path, row(type="numeric"), row(id="q2", type="unanswerable", gold=[], key_facts=[]))
    )
    assert (numeric.shape, numeric.split, numeric.history) == ("number", "", ())
    assert unanswerable.shape == "near_miss"


@pytest.mark.parametrize(
    ("overrides", "problem"),
    [
        ({"split": "train"}, "'split' must be one of dev, test, regression"),
        ({"shape": "riddle"}, "'shape' must be one of"),
        ({"shape": "adjacent"}, "shape 'adjacent' does not fit type 'single'"),
        ({"history": "Compare X and Y"}, "'history' must be a list of earlier questions"),
        ({"history": [""]}, "'history' must be a list of earlier questions"),
    ],
)
def test_bad_split_shape_history(tmp_path, overrides, problem):
    message = load_error(write(tmp_path, row(id="q0"), row(**overrides)))
    assert "line 2" in message and problem in message


def test_select_split(tmp_path):
    questions = load_questions(write(tmp_path, row(split="dev"), row(id="q2", split="test"), row(id="q3")))
    assert [q.id for q in select_split(questions, "test")] == ["q2"]
    assert [q.id for q in select_split(questions, "all")] == ["q1", "q2", "q3"]
    with pytest.raises(QuestionFileError, match="no questions in split 'regression'"):
        select_split(questions, "regression")


def test_shipped_file_has_every_split_and_each_blind_split_every_shape(shipped):
    assert {q.split for q in shipped} == set(SPLITS)
    for split in ("dev", "test"):
        assert {q.shape for q in shipped if q.split == split} == set(SHAPES), split
    assert len([q for q in shipped if q.split in ("dev", "test")]) >= 150


def test_shipped_follow_ups_have_history(shipped):
    follow_ups = [q for q in shipped if q.shape == "followup"]
    assert follow_ups and all(q.history for q in follow_ups)


def test_checker_passes_on_the_shipped_file(capsys):
    from eval.check_questions import main as check

    assert check([]) == 0
    assert "0 problem(s)" in capsys.readouterr().out
