import pytest
from pydantic import BaseModel, ValidationError

from rag.settings import Settings, normalize_ollama_host


def test_defaults():
    s = Settings()
    assert s.backend == "auto" and s.top_k == 5 and s.ui_host == "127.0.0.1"


def test_env_prefix(monkeypatch):
    monkeypatch.setenv("RAG_TOP_K", "8")
    monkeypatch.setenv("RAG_SEEDS", "a.txt,b")
    s = Settings()
    assert s.top_k == 8 and [p.name for p in s.seeds] == ["a.txt", "b"]


def test_ollama_host_env_is_honoured(monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "gpu-box:11500")
    assert Settings().ollama_host == "http://gpu-box:11500"


@pytest.mark.parametrize(
    ("raw", "url"),
    [
        ("", "http://127.0.0.1:11434"),
        ("0.0.0.0", "http://127.0.0.1:11434"),
        ("example.org", "http://example.org:11434"),
        ("https://example.org", "https://example.org:443"),
        ("http://10.1.2.3:8080/", "http://10.1.2.3:8080"),
        ("[::1]:9999", "http://[::1]:9999"),
    ],
)
def test_normalize_ollama_host(raw, url):
    assert normalize_ollama_host(raw) == url


@pytest.mark.parametrize(
    "bad", [{"top_k": -1}, {"backend": "gpt"}, {"unknown_field": 1}, {"ui_auth": "nocolon"}, {"chunk_tokens": 4},
     {"dense_weight": float("inf")}, {"dense_weight": float("nan")}, {"ollama_timeout_s": float("inf")},
     {"chroma_timeout_s": float("nan")}]
)
def test_invalid_settings_are_refused(bad):
    with pytest.raises(ValidationError):
        Settings(**bad)


def test_answer_policy_is_one_nested_group_read_from_the_environment(monkeypatch):
    monkeypatch.setenv("RAG_ANSWER__ABSTAIN_THRESHOLD", "0.7")
    monkeypatch.setenv("RAG_ANSWER__LIST_MAX", "4")
    settings = Settings()
    assert settings.answer.abstain_threshold == 0.7 and settings.answer.list_max == 4


def test_answer_policy_fields_all_have_descriptions():
    from rag.policy import AnswerPolicy

    assert all(field.description for field in AnswerPolicy.model_fields.values())


def test_answer_policy_refuses_unknown_fields(monkeypatch):
    import pydantic

    monkeypatch.setenv("RAG_ANSWER__NO_SUCH_KNOB", "1")
    with pytest.raises(pydantic.ValidationError):
        Settings()


def _float_fields(model, prefix=()):
    for name, field in model.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            yield from _float_fields(annotation, (*prefix, name))
        elif annotation is float:
            yield (*prefix, name)


@pytest.mark.parametrize("path", list(_float_fields(Settings)), ids=".".join)
@pytest.mark.parametrize("value", [float("inf"), float("nan")])
def test_every_float_setting_refuses_inf_and_nan(monkeypatch, path, value):
    monkeypatch.setenv("RAG_" + "__".join(p.upper() for p in path), str(value))
    with pytest.raises(ValidationError):
        Settings()


def test_superseded_collections_are_older_versions_of_the_same_index():
    from rag.settings import superseded_collections

    names = ["abstracts-m-s200o1-v1", "abstracts-m-s200o1-v2", "abstracts-m-s200o1-v3", "abstracts-m-s128o1-v1",
             "abstracts-m-s200o1-vx", "notes"]
    assert superseded_collections("abstracts-m-s200o1-v3", names) == ["abstracts-m-s200o1-v1", "abstracts-m-s200o1-v2"]
    assert superseded_collections("abstracts-m-s200o1-v1", names) == []
    assert superseded_collections("unversioned", names) == []
