"""ui.chats: saved conversations as plain data in the browser's storage (pure functions, small made-up chats)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from ui import chats

NOW = datetime(2026, 1, 2, 3, 4, tzinfo=UTC)


def pair(question: str = "What is X?"):
    messages = [{"role": "user", "content": f"<div>{question}</div>"}, {"role": "assistant", "content": "<p>A</p>"}]
    return messages, [{"question": question, "text": "A [1]"}]


def test_upsert_saves_a_new_chat_first_and_makes_it_current():
    messages, turns = pair()
    store, chat_id = chats.upsert(chats.empty(), None, messages, turns, now=NOW)
    assert chat_id and store["current"] == chat_id
    (chat,) = store["chats"]
    assert chat["title"] == "What is X?" and chat["updated"] == "2026-01-02 03:04" and chat["turns"] == turns


def test_upsert_updates_in_place_and_moves_the_chat_to_the_top():
    m1, t1 = pair("first")
    m2, t2 = pair("second")
    store, a = chats.upsert(chats.empty(), None, m1, t1, now=NOW)
    store, b = chats.upsert(store, None, m2, t2, now=NOW)
    store, _ = chats.upsert(store, a, m1 + m2, t1 + t2, now=NOW)
    assert [c["id"] for c in store["chats"]] == [a, b] and len(store["chats"][0]["turns"]) == 2


def test_an_empty_or_misaligned_chat_is_not_saved():
    messages, turns = pair()
    assert chats.upsert(chats.empty(), None, [], [])[0]["chats"] == []
    assert chats.upsert(chats.empty(), None, messages[:1], turns)[0]["chats"] == []


def test_gradio_message_parts_are_stored_as_text():
    parts = [{"role": "user", "content": [{"type": "text", "text": "<b>q</b>"}]}, {"role": "assistant", "content": "a"}]
    store, chat_id = chats.upsert(chats.empty(), None, parts, [{"question": "q"}])
    assert chats.get(store, chat_id)["messages"][0] == {"role": "user", "content": "<b>q</b>"}
    assert chats.message_text([{"type": "image", "url": "x"}]) is None


def test_remove_and_set_current():
    messages, turns = pair()
    store, chat_id = chats.upsert(chats.empty(), None, messages, turns)
    assert chats.set_current(store, "nope")["current"] is None
    assert chats.remove(store, chat_id) == chats.empty()


def test_choices_label_each_chat_with_title_size_and_time():
    messages, turns = pair("A question that is rather long " * 5)
    store, chat_id = chats.upsert(chats.empty(), None, messages, turns, now=NOW)
    ((label, value),) = chats.choices(store)
    assert value == chat_id and label.endswith("… · 1 question · 2026-01-02 03:04")
    assert len(label.split(" · ")[0]) == chats.TITLE_CHARS


@pytest.mark.parametrize(
    "damaged",
    [None, "text", 42, [], {"chats": "x"}, {"chats": [None, 1, {"id": 5}, {"id": "a", "messages": [1], "turns": []}]},
     {"current": "gone", "chats": []}],
    ids=repr,
)  # fmt: skip
def test_a_damaged_store_reads_as_empty(damaged):
    assert chats.normalize(damaged) == chats.empty()
    assert chats.choices(damaged) == [] and chats.get(damaged, "a") is None


def test_the_store_keeps_the_newest_chats_within_its_limits(monkeypatch):
    monkeypatch.setattr(chats, "MAX_CHATS", 3)
    store = chats.empty()
    for i in range(5):
        store, _ = chats.upsert(store, None, *pair(f"q{i}"))
    assert [c["title"] for c in store["chats"]] == ["q4", "q3", "q2"]
    monkeypatch.setattr(chats, "MAX_STORE_CHARS", len(json.dumps(store["chats"][:1])) + 10)
    store, _ = chats.upsert(store, None, *pair("q5"))
    assert [c["title"] for c in store["chats"]] == ["q5"]


def test_a_chat_about_one_paper_keeps_its_scope():
    store, chat_id = chats.upsert(chats.empty(), None, *pair(), scope={"id": "x-1", "label": "X", "extra": 1})
    assert chats.get(store, chat_id)["scope"] == {"id": "x-1", "label": "X"}
    store, chat_id = chats.upsert(chats.empty(), None, *pair(), scope={"id": 5})
    assert chats.get(store, chat_id)["scope"] is None
