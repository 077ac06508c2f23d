"""The answer-understanding model trained with the packaged MiniLM (slow tier; CI runs it with tiny settings)."""

from __future__ import annotations

import os

import pytest

pytestmark = pytest.mark.slow


def test_rewriter_trains_saves_and_loads(data_root, tmp_path, monkeypatch):
    from clarion.data.clariq import ClariQ
    from clarion.dialogue.training import RewriterConfig, load_or_train, rewriter_dir

    monkeypatch.setenv("CLARION_CACHE_DIR", str(tmp_path))
    config = RewriterConfig.tiny() if os.environ.get("CLARION_TINY") == "1" else RewriterConfig(rows=400)
    data = ClariQ.load(data_root)
    steps = []

    def progress(description, total):
        step = [description, total, 0]
        steps.append(step)
        return lambda n=1: step.__setitem__(2, step[2] + n)

    rewriter = load_or_train(data, ("train",), config, progress=progress)
    assert steps[0] == ["training the answer-understanding model", 7, 7]
    encodings = steps[1:]  # the facet descriptions, then the candidate rewrites: bars counting the texts encoded
    assert len(encodings) == 2 and all(d.startswith("answer understanding: encoding") for d, _, _ in encodings)
    assert all(total == done > 0 for _, total, done in encodings)
    assert (rewriter_dir(data, ("train",), config) / "meta.json").is_file()
    cv = rewriter.meta["cv"]
    assert 0 < cv["chosen"] <= cv["oracle"] <= 1
    again = load_or_train(data, ("train",), config)  # loaded, not trained again
    question = "are you interested in more than one hip roof design"
    for answer in ("yes", "no, I just want pictures of one"):
        assert again.rewrite("hip roof", question, answer) == rewriter.rewrite("hip roof", question, answer)
