"""rag.word_frequency: wordfreq's English list as an on-disk table, read by binary search; same Zipf values."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from rag import word_frequency as wf

# A fake list: band i holds the words of frequency 10 ** (-i / 100) (wordfreq's cBpack layout).
FAKE_BANDS = [[], ["ox"], [], ["cat", "dog"], ["emu"], [], ["yak", "dog"]]  # "dog" twice: the later band wins


def _fake_table(tmp_path=None) -> wf.Frequencies:
    records = wf.records(FAKE_BANDS)
    if tmp_path is None:
        return wf.Frequencies(records)
    path = tmp_path / "fake.npy"
    wf._write(path, records)
    return wf.Frequencies(path=path)


def test_records_are_sorted_and_a_repeated_word_keeps_its_last_band():
    records = wf.records(FAKE_BANDS)
    assert [w.decode() for w in records["word"]] == ["cat", "dog", "emu", "ox", "yak"]
    assert dict(zip([w.decode() for w in records["word"]], records["band"].tolist(), strict=True))["dog"] == 6


@pytest.mark.parametrize("on_disk", [False, True])
def test_band_lookup_in_memory_and_on_disk(tmp_path, on_disk):
    table = _fake_table(tmp_path if on_disk else None)
    assert len(table) == 5
    assert table.band("cat") == 3 and table.band("ox") == 1 and table.band("yak") == 6
    for missing in ("", "ca", "cats", "aardvark", "zzz", "a-much-longer-word-than-any-listed"):
        assert table.band(missing) is None


def test_utf8_words_are_found():
    table = wf.Frequencies(wf.records([["naïve"], ["café", "cafe"]]))
    assert table.band("café") == 1 and table.band("naïve") == 0 and table.band("cafe") == 1
    assert table.band("caf") is None


def test_zipf_of_one_token_is_its_band_on_the_zipf_scale():
    bands = {"cat": 300}.get  # frequency 10 ** -3: Zipf 6
    assert wf.zipf_of(["cat"], bands) == 6.0


def test_zipf_of_several_tokens_combines_as_reciprocals():
    bands = {"big": 300, "cat": 300}.get  # 1/f = 1000 + 1000: f = 5e-4, Zipf log10(5e-4) + 9
    assert wf.zipf_of(["big", "cat"], bands) == round(math.log10(5e-4) + 9, 2)


def test_an_unknown_token_or_no_token_is_zipf_zero():
    bands = {"cat": 300}.get
    assert wf.zipf_of(["cat", "zzz"], bands) == 0.0
    assert wf.zipf_of([], bands) == 0.0


def test_plain_words_split_at_hyphens_like_wordfreqs_tokenizer():
    from wordfreq import lossy_tokenize

    for word in ("ox", "well-known", "state-of-the-art", "tool-", "-fold", "re--run", "gpt4", "3d", "gpt-4o", "2024"):
        assert wf._PLAIN.fullmatch(word)
        assert [p for p in word.split("-") if p] == lossy_tokenize(word, "en")
    for word in ("Ox", "naïve", "don't", "a b", "", "0.5", "b.9"):
        assert not wf._PLAIN.fullmatch(word)  # not split at hyphens only


def test_decimal_numbers_and_dotted_initials_are_one_token_like_wordfreqs_tokenizer():
    from wordfreq import lossy_tokenize

    for word in ("0.95", "1,000", "3.14.15", "1.7b", "2.5m", "i.e", "u.s.a"):
        assert wf._WHOLE.fullmatch(word)
        assert lossy_tokenize(word, "en") == [word]
    for word in ("b.91", "flux.1", "0.", ".5", "ab.c"):  # wordfreq splits or trims these: its own tokenizer reads them
        assert not wf._WHOLE.fullmatch(word)


@pytest.fixture(scope="module")
def english(tmp_path_factory) -> wf.Frequencies:
    """The real English table, written by a child process into a fresh folder."""
    from importlib.metadata import version

    folder = tmp_path_factory.mktemp("wordfreq")
    table = wf.load(wf._source, version("wordfreq"), folder)
    assert table.where.startswith(str(folder)) and list(folder.glob("wordfreq-en-*.npy"))
    return table


def test_the_english_table_gives_wordfreqs_zipf_frequencies(english):
    from wordfreq import lossy_tokenize, zipf_frequency

    words = ["the", "graph", "lidar", "federated", "electricaty", "qzxv", "well-known", "state-of-the-art",
             "tool-", "gpt-4", "2024", "Naïve", "x", "über", "can't"]  # fmt: skip
    for word in words:
        tokens = [p for p in word.split("-") if p] if wf._PLAIN.fullmatch(word) else lossy_tokenize(word, "en")
        assert wf.zipf_of(tokens, english.band) == zipf_frequency(word, "en"), word


def test_zipf_frequency_reads_the_table_of_the_cache_folder(english, monkeypatch):
    from wordfreq import zipf_frequency

    monkeypatch.setattr(wf, "_table", english)
    wf.zipf_frequency.cache_clear()
    try:
        for word in ("network", "federated", "electricaty", "multi-hop", "gpt-4", "3D", "F1", "70B", "GPT-4o",
                     "2019", "0.95", "1.7b", "i.e", "e.g.", "Naïve", "b.91"):  # fmt: skip
            assert wf.zipf_frequency(word) == zipf_frequency(word, "en"), word
    finally:
        wf.zipf_frequency.cache_clear()


def test_an_existing_table_file_is_read_not_rebuilt(english, monkeypatch):
    from importlib.metadata import version

    monkeypatch.setattr(wf, "_write_in_child", lambda path: pytest.fail("rebuilt an existing table"))
    again = wf.load(wf._source, version("wordfreq"), Path(english.where).parent)
    assert again.band("the") == english.band("the")


def test_without_a_cache_folder_the_table_is_built_in_memory():
    table = wf.load(wf._source, "any", None)
    assert table.where == ":memory:" and table.band("the") is not None


def test_words_with_capitals_digits_or_dots_are_looked_up_without_importing_wordfreq(english):
    """Importing wordfreq (its package init: langcodes, msgpack) costs a serving process ~7 MiB: "3D", "F1", "0.95"
    or "i.e" in a question must not bring it in."""
    import subprocess
    import sys

    code = (
        "import sys; from pathlib import Path; from rag import word_frequency as wf; "
        f"wf.use_cache_dir(Path({str(Path(english.where).parent)!r})); "
        "values = [wf.zipf_frequency(w) for w in ('3D', 'F1', 'gpt-4o', '70B', '2019', '0.95', 'i.e', 'Graph')]; "
        "assert all(v > 0 for v in values), values; "
        "print('wordfreq' in sys.modules, 'langcodes' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.split() == ["False", "False"]
