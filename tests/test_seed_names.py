"""Seed file names as the CLI shows them: names holding terminal escape sequences are printed escaped, and two
files with the same name in different folders are told apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.cli import main as rag_main
from rag.corpus import Location, load_corpus, seed_names
from rag.text import printable

ABSTRACT_A = "We present AssayBench, a benchmark built from 1,920 CRISPR screens. It has five classes."
ABSTRACT_B = "Dropout is common in clinical studies with many patients. We study the resulting bias."
EVIL = "evil\x1b[2J\x1b]0;owned\x07\u202etxt.exe\x9b.txt"


def write_seed(path: Path, *paragraphs: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n\n".join(["Header", *paragraphs]) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("plain name.txt", "plain name.txt"),
        ("论文 ü.txt", "论文 ü.txt"),
        ("a\x1b[31mb.txt", "a\\x1b[31mb.txt"),
        ("bell\x07\x9b.txt", "bell\\x07\\x9b.txt"),
        ("rtl\u202eexe.txt", "rtl\\u202eexe.txt"),
        ("new\nline.txt", "new\\x0aline.txt"),
    ],
)
def test_printable_escapes_control_and_format_characters(raw, shown):
    assert printable(raw) == shown


def test_printable_can_keep_newlines():
    assert printable("line one\nline \x1b two", keep="\n") == "line one\nline \\x1b two"


def test_location_is_shown_escaped():
    assert str(Location("a\x1b[2Jb.txt", 3)) == "a\\x1b[2Jb.txt #3"


def test_same_name_in_two_folders_gets_the_folder(tmp_path):
    a = write_seed(tmp_path / "dirA" / "x.txt", ABSTRACT_A)
    b = write_seed(tmp_path / "dirB" / "x.txt", ABSTRACT_B)
    c = write_seed(tmp_path / "dirB" / "y.txt", ABSTRACT_B)
    names = seed_names([a, b, c, a])
    assert sorted(names.values()) == ["dirA/x.txt", "dirB/x.txt", "y.txt"]


def test_same_name_and_same_parent_name_goes_up_further(tmp_path):
    a = write_seed(tmp_path / "one" / "data" / "x.txt", ABSTRACT_A)
    b = write_seed(tmp_path / "two" / "data" / "x.txt", ABSTRACT_B)
    assert sorted(seed_names([a, b]).values()) == ["one/data/x.txt", "two/data/x.txt"]


def test_same_paragraph_in_same_named_files_keeps_both_locations(tmp_path):
    write_seed(tmp_path / "dirA" / "x.txt", ABSTRACT_A)
    write_seed(tmp_path / "dirB" / "x.txt", ABSTRACT_A)
    (abstract,) = load_corpus([tmp_path / "dirA", tmp_path / "dirB"])
    assert [str(loc) for loc in abstract.locations] == ["dirA/x.txt #1", "dirB/x.txt #1"]


@pytest.mark.slow
def test_cli_ingest_and_list_tell_files_apart_and_print_names_escaped(tmp_path, capsys):
    write_seed(tmp_path / "dirA" / "x.txt", ABSTRACT_A)
    write_seed(tmp_path / "dirB" / "x.txt", ABSTRACT_B)
    write_seed(tmp_path / "dirB" / EVIL, ABSTRACT_B)
    data = str(tmp_path / "data")
    assert rag_main(["ingest", str(tmp_path / "dirA"), str(tmp_path / "dirB"), "--json", "--data-dir", data]) == 0
    report = json.loads(capsys.readouterr().out)
    assert len(report["files"]) == 3
    assert rag_main(["list", "--data-dir", data]) == 0
    out = capsys.readouterr().out
    assert "dirA/x.txt #1" in out and "dirB/x.txt #1" in out
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out and "\x9b" not in out
    assert "evil\\x1b[2J" in out


def test_cli_error_naming_a_seed_file_is_printed_escaped(tmp_path, capsys):
    (tmp_path / "bad\x1b[2J.txt").write_bytes(b"")
    assert rag_main(["ingest", str(tmp_path / "bad\x1b[2J.txt"), "--data-dir", str(tmp_path / "data")]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err
    assert "bad\\x1b[2J.txt" in err
