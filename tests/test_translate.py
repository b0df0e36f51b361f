"""Questions not in English: the Ollama composer rewrites them into English for retrieval (over real HTTP against
the scripted test server), and the answer flow uses the rewrite, or says when it cannot."""

from __future__ import annotations

from rag.answering import readable_by_encoder
from rag.compose.ollama import OllamaComposer
from rag.compose.prompts import TRANSLATE_SYSTEM_PROMPT
from rag.settings import Settings
from tests.support.ollama_server import Faults, ScriptedBackend, serve

MODEL = "gemma3:270m"


def settings_for(url: str) -> Settings:
    return Settings(ollama_host=url, ollama_model=MODEL, ollama_timeout_s=10.0)


def test_translate_asks_for_english_and_returns_the_reply():
    backend = ScriptedBackend("How many screens does FooBench use?")
    with serve({MODEL: backend}) as url:
        composer = OllamaComposer(settings_for(url))
        assert composer.translate("FooBench 使用了多少个筛选？") == "How many screens does FooBench use?"
    messages = backend.calls[-1][0]
    assert messages[0]["content"] == TRANSLATE_SYSTEM_PROMPT
    assert messages[-1]["content"] == "FooBench 使用了多少个筛选？"


def test_translate_failure_gives_none():
    with serve({MODEL: ScriptedBackend("x")}, faults=Faults(error_status=500)) as url:
        assert OllamaComposer(settings_for(url)).translate("这是什么？") is None


def test_readable_by_encoder():
    assert readable_by_encoder("How many screens does FooBench use?")
    assert readable_by_encoder("Qu'est-ce que FooBench évalue ?")  # Latin script
    assert not readable_by_encoder("FooBench 使用了多少个筛选？")
    assert not readable_by_encoder("这篇论文提出了什么方法？")
