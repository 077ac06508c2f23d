"""Ablation of the LM-free DSTC response generators, on the train split (leave-one-dialogue-out) and on dev.

``--part val``: every knowledge-seeking turn of the dstc11_track5 train split answered from the *other* train
dialogues' responses (the model's neighbour bank minus the turn's own dialogue), with the turn's gold snippets
(their keys and mean embedding) as the selected knowledge. This is the validation slice on which the consensus
generator's settings were chosen; no dev data is used.
``--part oof``: the same question with *predicted* knowledge: the train split's dialogues in ``--folds`` folds (by a
hash of the dialogue id; default 5); each fold is answered by a model trained on the other folds (detection, entity
and snippets predicted, the neighbour bank of those folds only), scored on its true positives, unweighted. Its
selection is as imperfect as on dev, which the ``val`` part's gold snippets are not: a utility change that ``val``
rated level on METEOR and +0.005 on ROUGE-2 lost 0.0026 METEOR on dev, and two-fold ``oof`` had seen the same -0.0027.
The bank matters too: with two folds it holds half the training turns, and a choice that makes up for weak pools
(a support-by-the-snippets term) gained +0.005 BLEU there, ~0 with five folds and lost 0.012 on dev, whose bank is
all of train (docs/dstc.md). No dev data is used; about 5 minutes with 5 folds.
``--part dev``: ``DstcModel.predict`` on the dev split with each generator (predicted detection, entity and
snippets, as ``clarion dstc predict --split dev --generator G``), scored on detection true positives and
multiplied by detection F1 like the official scorer; with ``--bootstrap N`` each score's standard error and 95%
interval over N resamples of the true-positive turns (how far another draw of as many turns could move it).

Scores: corpus BLEU (sacrebleu), ROUGE-1/2/L F (rouge-score, stemmer) and, with ``--meteor``, METEOR 1.5 (Java).

Run: ``python benchmarks/dstc_generate.py [--part val|oof|dev|both] [--meteor] [--folds N] [--model DIR]
[--bootstrap N]``
(``both``: val and dev).
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def variants(knowledge):
    """name -> generate(bank, query_emb, knowledge_emb, name, keys) for the val ablation: the consensus generator's
    steps switched on one after the other (``knowledge``: the knowledge base, kept for the call's shape)."""
    from clarion.respond.consensus import consensus_response as consensus
    from clarion.respond.consensus import neighbour_response

    return {
        "neighbour (k=20, MBR unigram+bigram Dice)": lambda b, q, k, n, keys: neighbour_response(b, q, k, n, 1.0, 20),
        "consensus, no same-knowledge pool, no follow-up": lambda b, q, k, n, keys: consensus(
            b, q, k, n, (), follow_up=""
        ),
        "consensus, no follow-up": lambda b, q, k, n, keys: consensus(b, q, k, n, keys, follow_up=""),
        "consensus, one follow-up for every domain": lambda b, q, k, n, keys: consensus(
            b, q, k, n, keys, follow_up=b.closings.default
        ),
        "consensus (default: follow-up by domain)": lambda b, q, k, n, keys: consensus(b, q, k, n, keys),
    }


def score(hyps, refs, meteor: bool, weight: float = 1.0) -> dict[str, float]:
    from clarion.evaluate.dstc11 import generation_scores

    return {k: round(v * weight, 4) for k, v in generation_scores(hyps, refs, meteor=meteor).items()}


def val_part(model, meteor: bool) -> None:
    from clarion.data.dstc import load_dataset
    from clarion.data.dstc_split import dialogue_ids, split_dataset
    from clarion.data.location import dataset_dir
    from clarion.ground.names import display_name
    from clarion.respond.consensus import NeighbourBank

    train = split_dataset(load_dataset(dataset_dir("dstc11_track5")), "train")
    turns = [i for i, lab in enumerate(train.labels) if lab.target and lab.knowledge]
    bank = model.bank
    if len(turns) != len(bank.responses):
        raise SystemExit("the model's bank does not match the train split (train it with --split train)")
    dialogue = np.array(dialogue_ids(train.contexts))[turns]
    refs = [train.labels[i].response or "" for i in turns]
    generators = variants(train.knowledge)
    outputs: dict[str, list[str]] = {name: [] for name in generators}
    for j in range(len(turns)):
        keep = np.flatnonzero(dialogue != dialogue[j])
        sub = NeighbourBank(
            [bank.responses[t] for t in keep],
            [bank.names[t] for t in keep],
            bank.query_emb[keep],
            bank.knowledge_emb[keep],
            [bank.keys[t] for t in keep],
            bank.closings,  # learnt from every train response (as the model's are)
        )
        keys, name = sorted(bank.keys[j], key=str), display_name(bank.names[j])
        for variant, generate in generators.items():
            outputs[variant].append(generate(sub, bank.query_emb[j], bank.knowledge_emb[j], name, keys))
    print(f"val: {len(turns)} knowledge-seeking train turns, leave-one-dialogue-out, gold knowledge")
    for variant, hyps in outputs.items():
        print(f"  {variant}: {score(hyps, refs, meteor)}")


def oof_part(meteor: bool, folds: int = 5) -> None:
    from clarion.data.dstc import load_dataset
    from clarion.data.dstc_split import dialogue_folds, split_dataset
    from clarion.data.location import dataset_dir
    from clarion.dstc.models.default import default_config
    from clarion.dstc.models.train import train
    from clarion.respond.consensus import Generator

    data = split_dataset(load_dataset(dataset_dir("dstc11_track5")), "train")
    fold = np.array(dialogue_folds(data.contexts, folds))
    generators = [g for g in Generator if g is not Generator.lm]
    hyps: dict[Generator, list[str]] = {g: [] for g in generators}
    refs: list[str] = []
    exact = 0
    for k in range(folds):
        held_out = data.subset(np.flatnonzero(fold == k))
        model, _ = train(data.subset(np.flatnonzero(fold != k)), default_config())
        for generator in generators:
            model.config.generator = generator
            preds = model.predict(held_out)
            pairs = [(p, g) for p, g in zip(preds, held_out.labels, strict=True) if p.target and g.target]
            hyps[generator] += [p.response or "" for p, _ in pairs]
            if generator is generators[0]:
                refs += [g.response or "" for _, g in pairs]
                exact += sum(set(p.knowledge) == set(g.knowledge) for p, g in pairs)
    print(f"oof: {len(refs)} true-positive train turns, {folds} dialogue folds, predicted knowledge ({exact} exact)")
    for generator, texts in hyps.items():
        print(f"  {generator.value}: {score(texts, refs, meteor)}")


def dev_part(model, meteor: bool, resamples: int = 0) -> None:
    from clarion.data.dstc import load_dataset
    from clarion.data.dstc_split import split_dataset
    from clarion.data.location import dataset_dir
    from clarion.respond.consensus import Generator

    dev = split_dataset(load_dataset(dataset_dir("dstc11_track5")), "dev")
    print(f"dev: {len(dev.contexts)} contexts, predicted detection / entity / snippets")
    for generator in Generator:
        if generator is Generator.lm and model.lm is None and model.lm_dir is None:
            continue  # the model was not trained with --generator lm
        model.config.generator = generator
        start = time.perf_counter()
        preds = model.predict(dev)
        seconds = time.perf_counter() - start
        pairs = [(p.response, g.response) for p, g in zip(preds, dev.labels, strict=True) if p.target and g.target]
        tp, fp = len(pairs), sum(p.target and not g.target for p, g in zip(preds, dev.labels, strict=True))
        fn = sum(g.target and not p.target for p, g in zip(preds, dev.labels, strict=True))
        f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
        hyps, refs = [p for p, _ in pairs], [g or "" for _, g in pairs]
        print(f"  {generator.value}: {score(hyps, refs, meteor, f1)} (detection F1 {f1:.4f}; predict {seconds:.0f} s)")
        if resamples:
            print(f"    bootstrap over the {len(hyps)} turns ({resamples} resamples, x detection F1): ", end="")
            print(
                ", ".join(
                    f"{k} SE {b.se:.4f} [{b.low:.4f}, {b.high:.4f}]"
                    for k, b in spread(hyps, refs, meteor, f1, resamples)
                )
            )


def spread(hyps, refs, meteor: bool, weight: float, resamples: int):
    """Per metric the bootstrap interval of the dev score over resampled true-positive turns."""
    from dataclasses import replace

    from clarion.evaluate.dstc11 import bleu_statistic, meteor_statistic, rouge_turns
    from clarion.evaluate.result import bootstrap

    def scaled(b):
        return replace(b, value=b.value * weight, se=b.se * weight, low=b.low * weight, high=b.high * weight)

    out = [
        (
            "bleu",
            scaled(bootstrap(len(hyps), bleu_statistic(hyps, refs), resamples)),
        )
    ]
    if meteor:
        with meteor_statistic(hyps, refs) as statistic:
            out.append(("meteor", scaled(bootstrap(len(hyps), statistic, resamples))))
    for key, values in rouge_turns(hyps, refs).items():
        values = np.asarray(values)
        out.append(
            (key, scaled(bootstrap(len(values), lambda r, v=values: v[r].mean(axis=-1), resamples, vectorised=True)))
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["val", "oof", "dev", "both"], default="both")
    parser.add_argument("--meteor", action="store_true", help="also run the METEOR 1.5 jar (Java)")
    parser.add_argument("--model", default=None, help="model directory (default: the default model of the train split)")
    parser.add_argument("--folds", type=int, default=5, help="oof: dialogue folds (each answered by the others)")
    parser.add_argument(
        "--bootstrap", type=int, default=0, metavar="N", help="dev: also resample the true-positive turns N times"
    )
    args = parser.parse_args()

    from threadpoolctl import threadpool_limits

    from clarion.dstc.models.default import default_model_dir
    from clarion.dstc.models.modeldir import load_model
    from clarion.dstc.models.pipeline import DataSplit

    if args.part == "oof":
        if args.folds < 2:
            parser.error("--folds must be at least 2")
        oof_part(args.meteor, args.folds)
        return
    model = load_model(args.model or default_model_dir(split=DataSplit.train))  # dev and val: held out
    with threadpool_limits(limits=1, user_api="blas"):
        if args.part in ("val", "both"):
            val_part(model, args.meteor)
    if args.part in ("dev", "both"):
        dev_part(model, args.meteor, args.bootstrap)


if __name__ == "__main__":
    main()
