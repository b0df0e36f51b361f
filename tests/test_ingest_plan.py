from rag.corpus import Abstract, Location
from rag.ingest import plan_ingest


def fake_abstract(aid, *locations):
    return Abstract(
        id=aid, label=aid, text=aid, locations=tuple(Location(f, p) for f, p in locations), content_hash=aid
    )


def test_first_ingest_adds_everything():
    plan = plan_ingest([], [fake_abstract("a", ("f", 1)), fake_abstract("b", ("f", 2))])
    assert plan.added == ("a", "b") and not plan.updated and not plan.removed and not plan.unchanged


def test_same_corpus_is_unchanged():
    corpus = [fake_abstract("a", ("f", 1))]
    plan = plan_ingest(corpus, corpus)
    assert plan.unchanged == ("a",) and not plan.added


def test_changed_content_at_same_location_is_an_update():
    plan = plan_ingest([fake_abstract("a", ("f", 1))], [fake_abstract("a2", ("f", 1))])
    assert plan.updated == (("a", "a2"),) and not plan.added and not plan.removed


def test_removed_abstract():
    plan = plan_ingest([fake_abstract("a", ("f", 1)), fake_abstract("b", ("f", 2))], [fake_abstract("a", ("f", 1))])
    assert plan.removed == ("b",)


def test_moved_abstract_is_unchanged():
    plan = plan_ingest([fake_abstract("a", ("f", 1))], [fake_abstract("a", ("g", 7))])
    assert plan.unchanged == ("a",)


def test_one_old_abstract_is_replaced_at_most_once():
    old = [fake_abstract("a", ("f", 1))]
    new = [fake_abstract("x", ("f", 1)), fake_abstract("y", ("f", 1))]
    plan = plan_ingest(old, new)
    assert plan.updated == (("a", "x"),) and plan.added == ("y",)
