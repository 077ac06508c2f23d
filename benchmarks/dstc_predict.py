"""Prediction speed of the DSTC pipeline: ``predict`` on 1,000 dstc11_track5 contexts (target: <= 2 minutes).

Loads the default model (``clarion dstc train --split train``; trained here when absent), warms the entity
snippet embeddings once (they are cached on disk by content, as in normal use), then times
``DstcModel.predict`` on the first ``--contexts`` contexts ``--repeats`` times and prints the median, with the
machine. The default model uses no language model (consensus MBR); the LM figure beside it is the same run with a
model trained with ``clarion dstc train --split train --generator lm --out DIR`` and ``--model DIR`` (SmolLM2-135M
decoding of every knowledge-seeking turn; ``--lm-samples 0`` for greedy decoding only).

Run: ``python benchmarks/dstc_predict.py [--contexts 1000] [--repeats 3] [--model DIR] [--lm-samples N]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from clarion.store import cpu_model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contexts", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--model", default=None, help="model directory (default: the default model)")
    parser.add_argument("--lm-samples", type=int, default=None, help="lm generator: sampled candidates per turn")
    args = parser.parse_args()

    from clarion.data.dstc import load_dataset
    from clarion.data.location import dataset_dir
    from clarion.dstc.models.default import DEFAULT_DATASET, ensure_default_model
    from clarion.dstc.models.modeldir import load_model

    directory = dataset_dir(DEFAULT_DATASET)
    model = load_model(args.model or ensure_default_model(say=print))
    if args.lm_samples is not None:
        from dataclasses import replace

        model.config.lm = replace(model.config.lm, samples=args.lm_samples)
    data = load_dataset(directory, labels=False)
    data = data.subset(range(min(args.contexts, len(data.contexts))))
    model.predict(data.subset(range(min(50, len(data.contexts)))))  # load MiniLM once
    times = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        preds = model.predict(data)
        times.append(time.perf_counter() - start)
    print(
        f"dstc predict: {len(data.contexts)} contexts ({sum(p.target for p in preds)} knowledge-seeking), "
        f"median {statistics.median(times):.1f} s over {args.repeats} runs "
        f"(min {min(times):.1f}, max {max(times):.1f}); generator {model.config.generator.value}"
        f"{f' ({model.config.lm.samples} samples)' if model.config.generator.value == 'lm' else ''}; "
        f"{cpu_model()}, {os.cpu_count()} CPUs (shared)"
    )


if __name__ == "__main__":
    main()
