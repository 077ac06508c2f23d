"""Fine-tuning MiniLM on (group, query, document) pairs, and the encoder keys of cached embeddings."""

from __future__ import annotations

import random

import numpy as np
import pytest

from clarion.errors import InputError, ModelError
from clarion.retrieve.dense import ENCODER_ID_FILE, MODEL_NAME, encode, encode_queries, encoder_id
from clarion.retrieve.finetune import FinetuneConfig, finetune, finetuned_id, group_batches, is_finetuned, schedule

PAIRS = [
    ("t1", "tell me about iron", "are you asking about the metal"),
    ("t1", "tell me about iron", "do you mean an iron for clothes"),
    ("t2", "dinosaurs", "which dinosaur are you interested in"),
    ("t3", "how to cook rice", "do you want a rice cooker recipe"),
    ("t3", "how to cook rice", "are you cooking brown rice"),
    ("t4", "Obama family tree", "do you want to know about his children"),
]


def test_batches_never_hold_two_pairs_of_a_group():
    pairs = [(f"g{i % 5}", f"q{i}", f"d{i}") for i in range(40)]
    batches = group_batches(pairs, 4, random.Random(0))
    assert sorted(p for b in batches for p in b) == sorted(pairs)
    for batch in batches:
        assert len(batch) <= 4 and len({p[0] for p in batch}) == len(batch)


def test_schedule_partial_epoch_and_seed():
    config = FinetuneConfig(epochs=1.5, batch_size=2)
    steps = schedule(PAIRS, config)
    assert len(steps) == 3 + 2  # one epoch of 3 batches, then half of the next
    assert steps == schedule(PAIRS, config)


def test_finetuned_id_keys_pairs_and_settings():
    base = finetuned_id(PAIRS, FinetuneConfig())
    assert base.startswith(MODEL_NAME + "-ft-")
    assert base == finetuned_id(list(PAIRS), FinetuneConfig())
    assert base != finetuned_id(PAIRS[:-1], FinetuneConfig())
    assert base != finetuned_id(PAIRS, FinetuneConfig(learning_rate=1e-4))


def test_settings_it_cannot_train_with_are_refused():
    with pytest.raises(InputError, match=r"FinetuneConfig.batch_size must be int in \[2, inf\), got 1"):
        FinetuneConfig(batch_size=1)
    with pytest.raises(InputError, match=r"FinetuneConfig.learning_rate must be float in \(0, inf\), got -1e-05"):
        FinetuneConfig(learning_rate=-1e-5)


def test_encoder_id_of_a_directory_without_one(tmp_path):
    assert encoder_id(None) == MODEL_NAME
    with pytest.raises(ModelError, match=ENCODER_ID_FILE):
        encoder_id(tmp_path)


def test_finetune_moves_the_embeddings_and_is_deterministic(tmp_path):
    config = FinetuneConfig(epochs=1, batch_size=4, learning_rate=1e-4)
    first = finetune(PAIRS, tmp_path / "a", config)
    second = finetune(PAIRS, tmp_path / "b", config)
    assert encoder_id(first) == finetuned_id(PAIRS, config)
    assert not list(tmp_path.glob(".*tmp"))
    texts = [p[1] for p in PAIRS] + [p[2] for p in PAIRS]
    tuned = encode(texts, encoder=first)
    assert np.allclose(tuned, encode(texts, encoder=second), atol=1e-6)
    assert not np.allclose(tuned, encode(texts), atol=1e-3)
    assert np.allclose(encode_queries(texts, encoder=first), tuned, atol=1e-5)
    assert is_finetuned(first)
    (first / "model.safetensors").unlink()  # damaged since: the ranker's training fine-tunes it again
    assert not is_finetuned(first)


def test_an_encoder_that_lost_its_tokenizer_is_refused(tmp_path):
    """Without tokenizer.json transformers builds an empty vocabulary: every word [UNK], wrong answers, exit 0."""
    import shutil

    from clarion.retrieve.dense import load_encoder
    from clarion.retrieve.packaged import minilm_path

    broken = shutil.copytree(minilm_path(), tmp_path / "encoder")
    for name in ("tokenizer.json", "vocab.txt"):
        (broken / name).unlink(missing_ok=True)
    with pytest.raises(ModelError, match="tokenizer has no vocabulary; retrain or reinstall it"):
        load_encoder(broken)
