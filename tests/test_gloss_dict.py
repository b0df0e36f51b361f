"""The on-disk CC-CEDICT / jieba-frequency lookup (rag.gloss_dict) and jieba reading it, on a fake dictionary."""

from __future__ import annotations

import gzip
import logging
import sqlite3
from pathlib import Path

from rag.gloss_dict import Dictionary, build, cache_name, load

# A fake CC-CEDICT in the real file's format (simplified, traditional, [pinyin], /senses/).
FAKE_CEDICT = """# a fake dictionary for tests
猫 貓 [mao1] /cat/CL:隻|只[zhi1]/
猫咪 貓咪 [mao1 mi1] /kitty/
书 書 [shu1] /book/letter/
张 張 [Zhang1] /surname Zhang/
张 張 [zhang1] /to open up/sheet/
乐园 樂園 [Le4 yuan2] /Leyuan (a place name)/
乐园 樂園 [le4 yuan2] /paradise/
啊 啊 [a5] /CL:個|个[ge4]/
跑 跑 [pao3] /(dialect) to flee/to run/
"""

# A fake jieba dictionary ("word frequency tag").
FAKE_JIEBA = """猫 50 n
猫咪 30 n
小猫 40 n
小 100 a
猫 60 n
"""


def _fake_dictionary() -> Dictionary:
    connection = sqlite3.connect(":memory:")
    build(connection, FAKE_CEDICT.splitlines(keepends=True), FAKE_JIEBA.splitlines(keepends=True))
    return Dictionary(connection, ":memory:")


def test_simplified_and_traditional_forms_share_the_first_usable_sense():
    d = _fake_dictionary()
    assert d["猫"] == "cat" and d["貓"] == "cat"
    assert d["书"] == "book" and d["書"] == "book"
    assert "狗" not in d and d.sense("狗") is None


def test_a_common_reading_beats_a_proper_name_and_skipped_senses_are_passed_over():
    d = _fake_dictionary()
    assert d["张"] == "open up"  # "surname" skipped; the common reading's sense, "to" dropped
    assert d["樂園"] == "paradise"  # the proper name's sense is replaced by the common word's
    assert d["跑"] == "run"  # a plain sense before one with a leading qualifier


def test_a_headword_without_a_usable_sense_is_still_a_word():
    d = _fake_dictionary()
    assert "啊" not in d
    assert d.words_among(["啊", "猫咪", "咪猫"]) == {"啊", "猫咪"}
    assert d.longest == 2


def test_jieba_frequencies_are_its_prefix_dictionary():
    freq = _fake_dictionary().frequencies()
    assert freq["猫"] == 60  # a word's last line wins
    assert freq.get("小猫") == 40 and "小" in freq
    assert freq.total == 50 + 30 + 40 + 100 + 60  # every line counts, as in jieba
    assert freq.get("大", 7) == 7 and "大" not in freq


def test_jieba_segments_the_same_with_the_table_as_with_its_dict(tmp_path: Path):
    import jieba

    (tmp_path / "dict.txt").write_text(FAKE_JIEBA, encoding="utf-8")
    reference = jieba.Tokenizer(str(tmp_path / "dict.txt"))
    reference.tmp_dir = str(tmp_path)
    ours = jieba.Tokenizer()
    ours.FREQ = _fake_dictionary().frequencies()
    ours.total = ours.FREQ.total
    ours.initialized = True
    for text in ("小猫咪", "小猫猫咪", "猫小猫", "我的小猫"):
        assert ours.lcut(text) == reference.lcut(text)


def _write_fake_source(tmp_path: Path) -> Path:
    source = tmp_path / "fake_cedict.txt.gz"
    with gzip.open(source, "wt", encoding="utf-8") as file:
        file.write(FAKE_CEDICT)
    return source


def test_the_table_is_cached_once_and_reopened(tmp_path: Path):
    source = _write_fake_source(tmp_path)
    cache = tmp_path / "models"
    first = load(source, "9.9", cache)
    assert first.where == str(cache / cache_name("9.9")) and first["猫"] == "cat"
    stamp = (cache / cache_name("9.9")).stat().st_mtime_ns
    again = load(source, "9.9", cache)
    assert again["書"] == "book"
    assert (cache / cache_name("9.9")).stat().st_mtime_ns == stamp
    assert [p.name for p in cache.iterdir()] == [cache_name("9.9")]  # no temporary file left


def test_an_unwritable_cache_falls_back_to_memory(tmp_path: Path, caplog):
    source = _write_fake_source(tmp_path)
    blocked = tmp_path / "a_file"
    blocked.write_text("not a folder")
    with caplog.at_level(logging.WARNING, logger="rag.gloss_dict"):
        d = load(source, "9.9", blocked / "models")
    assert d.where == ":memory:" and d["猫"] == "cat"
    assert "in memory" in caplog.text
    assert load(source, "9.9", None)["书"] == "book"


def test_every_usable_sense_of_the_common_entries_is_kept_in_order():
    d = _fake_dictionary()
    assert d.senses("书") == ["book", "letter"] and d.senses("書") == ["book", "letter"]
    assert d.senses("张") == ["open up", "sheet"]  # the proper name's entry ("surname Zhang") adds none
    assert d.senses("跑") == ["run", "flee"]  # plain senses before qualified ones, as for the first sense
    assert d.senses("狗") == []
