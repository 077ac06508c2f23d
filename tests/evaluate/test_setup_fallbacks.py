"""WordNet and Java off Debian: WordNet from nltk's data path when Debian's files are absent, and one-line errors
that say how to get either (issue 61, item 6)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from clarion import wordnet as wordnet_source
from clarion.errors import ClarionError
from clarion.evaluate import dstc9, dstc11

DEBIAN = Path("/usr/share/wordnet")
needs_debian_wordnet = pytest.mark.skipif(
    not (DEBIAN / "data.noun").is_file() or not wordnet_source._LEXNAMES_MAN.is_file(),
    reason="apt-get install wordnet-base",
)


@pytest.fixture
def no_debian(monkeypatch, tmp_path):
    """Debian's WordNet moved away, no $CLARION_WORDNET_DIR, an empty nltk data path, a fresh loader cache."""
    import nltk

    monkeypatch.setattr(wordnet_source, "DEBIAN_WORDNET", tmp_path / "no-wordnet")
    monkeypatch.delenv("CLARION_WORDNET_DIR", raising=False)
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path / "nltk_data")])
    wordnet_source.load_wordnet.cache_clear()
    yield tmp_path / "nltk_data"
    wordnet_source.load_wordnet.cache_clear()


def test_no_wordnet_anywhere_says_how_to_get_it_either_way(no_debian):
    with pytest.raises(ClarionError) as caught:
        wordnet_source.load_wordnet()
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("WordNet 3.0 not found: ")
    assert "apt-get install wordnet-base wordnet-sense-index" in message
    assert "python -m nltk.downloader wordnet" in message


def test_a_missing_explicit_directory_is_named(no_debian, monkeypatch, tmp_path):
    monkeypatch.setenv("CLARION_WORDNET_DIR", str(tmp_path / "elsewhere"))
    with pytest.raises(ClarionError, match=f"^WordNet not found in {tmp_path / 'elsewhere'}: on Debian/Ubuntu apt-get"):
        wordnet_source.load_wordnet()


@needs_debian_wordnet
@pytest.mark.parametrize("layout", ["directory", "zip"])
def test_wordnet_from_nltk_data_path_when_debian_files_are_absent(no_debian, layout):
    # lay WordNet out as `python -m nltk.downloader wordnet` does: <nltk_data>/corpora/wordnet/ with a lexnames
    # file, or that directory left zipped as corpora/wordnet.zip
    corpus = no_debian / "corpora" / "wordnet"
    corpus.mkdir(parents=True)
    for file in DEBIAN.iterdir():
        if file.is_file() and file.name.split(".")[0] in {"data", "index", "adj", "adv", "noun", "verb"}:
            shutil.copyfile(file, corpus / file.name)  # nltk refuses files outside the corpus root
    (corpus / "lexnames").write_text(wordnet_source._lexnames())
    if layout == "zip":
        shutil.make_archive(str(corpus), "zip", root_dir=corpus.parent, base_dir="wordnet")
        shutil.rmtree(corpus)
    wordnet = wordnet_source.load_wordnet()
    assert type(wordnet).__name__ == "WordNetCorpusReader"  # nltk's own reader, not the Debian one
    assert "dog.n.01" in {s.name() for s in wordnet.synsets("dog")}
    assert dstc9.meteor("the car is fast", "the auto is fast", wordnet) > dstc9.meteor(
        "the car is fast", "the auto is fast", _NoSynonyms()
    )


class _NoSynonyms:
    def synsets(self, *args, **kwargs):
        return []


def test_no_java_names_the_install_and_the_way_around(monkeypatch):
    real_which = shutil.which
    monkeypatch.setattr(dstc11.shutil, "which", lambda name, *a, **k: None if name == "java" else real_which(name))
    with pytest.raises(ClarionError) as caught:
        dstc11.corpus_meteor(["the room is clean"], ["the room is very clean"])
    message = str(caught.value)
    assert "\n" not in message
    assert "apt-get install default-jre-headless" in message and "--no-meteor" in message
    # scoring without METEOR needs no Java
    scores = dstc11.generation_scores(["the room is clean"], ["the room is very clean"], meteor=False)
    assert "meteor" not in scores and scores["bleu"] > 0


def test_dstc_evaluate_without_java_is_one_line_and_no_meteor_works(data_root, monkeypatch, capsys):
    from clarion.cli import main

    data = data_root / "dstc11_track5"
    if not (data / "labels.json").is_file():
        pytest.skip("dstc11_track5 not found")
    real_which = shutil.which
    monkeypatch.setattr(dstc11.shutil, "which", lambda name, *a, **k: None if name == "java" else real_which(name))
    args = ["dstc", "evaluate", "--data", str(data), "--pred"]
    gold = data / "labels.json"  # the gold labels scored as a prediction

    def run(*extra):
        try:
            main([*args, str(gold), *extra])
            code = 0
        except SystemExit as exit_:
            code = exit_.code or 0
        return code, capsys.readouterr()

    code, out = run("--json")
    assert code == 2 and out.err.count("\n") == 1 and "--no-meteor" in out.err, out.err
    code, out = run("--json", "--no-meteor")
    assert code == 0 and '"meteor"' not in out.out
