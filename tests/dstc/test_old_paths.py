"""The module names clarion had before the stage tree still import, and give the objects of their new places
(internal code imports the new places; these names are kept for users)."""

from __future__ import annotations

import importlib

import pytest

ALIASES = {
    "clarion.dstc.io": "clarion.data.dstc",
    "clarion.dstc.schema": "clarion.data.dstc_schema",
    "clarion.dstc.models.candidates": "clarion.retrieve.knowledge",
    "clarion.dstc.models.detect": "clarion.detect.knowledge",
    "clarion.dstc.models.faq_rule": "clarion.detect.faq_rule",
    "clarion.dstc.models.lm": "clarion.respond.lm",
    "clarion.dstc.models.memory": "clarion.rerank.response_memory",
    "clarion.dstc.models.select": "clarion.rerank.snippets",
    "clarion.dstc.models.select_fit": "clarion.rerank.snippets_fit",
    "clarion.dstc.models.select_keys": "clarion.rerank.snippet_memory",
}
REEXPORTS = {
    ("clarion.dstc.models.generate", "follow_up_for"): "clarion.respond.follow_up",
    ("clarion.dstc.models.generate", "consensus_response"): "clarion.respond.consensus",
    ("clarion.dstc.models.generate", "content_words"): "clarion.text",
    ("clarion.dstc.models.entities", "EntityTracker"): "clarion.dialogue.entities",
    ("clarion.dstc.models.entities", "aliases"): "clarion.dialogue.aliases",
    ("clarion.dstc.models.progress", "Progress"): "clarion.store",
    ("clarion.clariq.ranker", "RankerConfig"): "clarion.clariq.ranker_config",
    ("clarion.clariq.ranker", "insert_no_question"): "clarion.clariq.ranker_context",
    ("clarion.clariq.ranker", "SNAP"): "clarion.clariq.ranker_route",
    ("clarion.clariq.ranker", "ENCODER_DIR"): "clarion.clariq.ranker_io",
}


@pytest.mark.parametrize("old", sorted(ALIASES))
def test_an_old_module_name_is_its_new_module(old):
    assert importlib.import_module(old) is importlib.import_module(ALIASES[old])


@pytest.mark.parametrize(("old", "name"), sorted(REEXPORTS))
def test_an_old_import_path_gives_the_new_object(old, name):
    assert getattr(importlib.import_module(old), name) is getattr(importlib.import_module(REEXPORTS[old, name]), name)
