"""``benchmarks/dstc_generate_lm.py``'s decoding cost: the weights each token reads, and the timing of one row."""

import pytest


@pytest.fixture(scope="module")
def script(load_benchmark):
    return load_benchmark("dstc_generate_lm")


@pytest.fixture(scope="module")
def tiny():
    """A two-layer Llama with random weights: SmolLM2's shape, a fraction of its size."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=256,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        tie_word_embeddings=True,
    )
    return LlamaForCausalLM(config).eval()


def linear_weights(hidden=64, inner=128, kv=32, vocab=256, layers=2):
    per_layer = 2 * hidden * hidden + 2 * hidden * kv + 3 * hidden * inner  # q, o; k, v; gate, up, down
    return layers * per_layer + vocab * hidden  # the output layer: tied to the embeddings, read whole each token


def test_weight_bytes_counts_each_linear_weight_once_at_its_width(script, tiny):
    assert script.weight_bytes(tiny) == 4 * linear_weights()
    assert script.weight_bytes(script.with_weights(tiny, "bfloat16")) == 2 * linear_weights()
    assert script.weight_bytes(script.with_weights(tiny, "int8")) == linear_weights()


def test_with_weights_leaves_the_model_itself_as_it_was(script, tiny):
    import torch

    script.with_weights(tiny, "bfloat16")
    script.with_weights(tiny, "int8")
    assert all(p.dtype == torch.float32 for p in tiny.parameters())
    assert script.with_weights(tiny, "float32") is tiny


@pytest.mark.parametrize("weights", ["float32", "int8"])
def test_decode_costs_times_prefill_and_each_further_token(script, tiny, weights):
    prefill, per_token = script.decode_costs(script.with_weights(tiny, weights), list(range(1, 20)), tokens=3)
    assert prefill > 0 and per_token > 0
