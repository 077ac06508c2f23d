"""The default DSTC model: its configuration, where it lives in the cache, and training a model into a directory.

The CLI (``clarion dstc``) and the Python API (:class:`clarion.dstc.assistant.Grounder`) share these, so both find
and train the same model: the default config (tiny when ``CLARION_TINY=1``) trained on every labelled context of
``dstc11_track5`` (``all``), keyed by the config and the data's fingerprint. A model is better the more dialogues it
has learnt from (train cross-validation: three folds' worth of training contexts against four scored the same held-out
fold 0.006-0.007 lower on detection F1, selection F1, BLEU and ROUGE-L; docs/dstc.md), so the model that answers new
dialogues learns from all of them. Predicting dstc11_track5's own dev side uses the model of its train side instead
(:func:`held_out_split`), which has not seen those dialogues: that is how the dev scores are measured.
"""

from __future__ import annotations

import os
from pathlib import Path

from clarion.dstc.models.pipeline import DataSplit, PipelineConfig
from clarion.store import Progress, no_progress

DEFAULT_DATASET = "dstc11_track5"


def default_config() -> PipelineConfig:
    """The default pipeline config; :meth:`PipelineConfig.tiny` when ``CLARION_TINY=1`` (CI)."""
    return PipelineConfig.tiny() if os.environ.get("CLARION_TINY") == "1" else PipelineConfig()


def data_fingerprint(directory: Path, split: DataSplit, labels: bool = True) -> str:
    """A short hash of the data directory's files (with labels.json unless ``labels`` is off) and the split."""
    from clarion.data.dstc import KNOWLEDGE, LABELS, LOGS
    from clarion.data.io import fingerprint_files

    names = [LOGS, KNOWLEDGE] + ([LABELS] if labels else [])
    return f"{fingerprint_files(Path(directory) / n for n in names)[:12]}-{DataSplit(split).value}"


def default_model_dir(data_dir: str | Path | None = None, split: DataSplit | str = DataSplit.all) -> Path:
    """Where the default model (dstc11_track5, default config) trained on ``split`` lives in the cache: ``all`` (the
    default model) or ``train`` (the one that has not seen the dev side)."""
    from clarion.data.location import dataset_dir
    from clarion.store import model_dir

    directory = dataset_dir(DEFAULT_DATASET, data_dir)
    return model_dir("dstc", "pipeline", default_config().to_json(), data_fingerprint(directory, DataSplit(split)))


def held_out_split(directory: Path, split: DataSplit | str, data_dir: str | Path | None = None) -> DataSplit:
    """The split of dstc11_track5 the default model for predicting ``split`` of ``directory`` is trained on: ``train``
    for dstc11_track5's own dev side (so that its dev scores are held out), else ``all``."""
    from clarion.data.location import dataset_dir
    from clarion.errors import DataError

    if DataSplit(split) is not DataSplit.dev:
        return DataSplit.all
    try:
        same = Path(directory).resolve() == dataset_dir(DEFAULT_DATASET, data_dir).resolve()
    except DataError:  # dstc11_track5 is not there: the directory is another dataset
        same = False
    return DataSplit.train if same else DataSplit.all


def train_into(
    directory: Path,
    split: DataSplit,
    out: Path | None,
    config: PipelineConfig,
    progress: Progress = no_progress,
) -> Path:
    """Train on ``split`` of the data directory and save the model to ``out`` (default: its cache directory).

    A model trained on the train side records its dev scores (official-compatible, DSTC11 without METEOR) in
    ``meta.json``. Returns the model directory.
    """
    from clarion.data.dstc import load_dataset
    from clarion.dstc.models.modeldir import save_model
    from clarion.dstc.models.pipeline import apply_split
    from clarion.dstc.models.train import train
    from clarion.store import model_dir, writable_cache

    if out is None:
        writable_cache()
    full = load_dataset(directory, labels=True)
    dataset = apply_split(full, split)
    fingerprint = data_fingerprint(directory, split)
    out = out or model_dir("dstc", "pipeline", config.to_json(), fingerprint)
    model, info = train(dataset, config, progress)
    info.update({"data": str(directory), "split": DataSplit(split).value, "contexts": len(dataset.contexts)})
    if DataSplit(split) is DataSplit.train:
        info["dev"] = _dev_scores(model, apply_split(full, DataSplit.dev), progress)
    save_model(model, out, fingerprint, info)
    return out


def _dev_scores(model, dev, progress: Progress) -> dict:
    """Official-compatible scores on the dev side (DSTC11 without the METEOR jar), recorded in meta.json.

    A model with the ``lm`` generator records detection and selection only: generating the dev responses with the
    LM takes about 20 minutes on a 2-core CPU, which ``clarion dstc predict`` and ``evaluate`` spend when asked
    (its detection and selection are the ``consensus`` generator's, which answers without the LM)."""
    from dataclasses import replace

    from clarion.data.dstc_schema import Format
    from clarion.dstc.evaluate import SCORERS
    from clarion.respond.consensus import Generator

    if not dev.contexts:
        return {}
    generation = model.config.generator is not Generator.lm
    if not generation:
        model = replace(model, config=replace(model.config, generator=Generator.consensus))
    hyps = [p.to_json(dev.format) for p in model.predict(dev, progress)]
    refs = [label.to_json(dev.format) for label in dev.labels]
    options = {"meteor": False, "generation": generation} if dev.format is Format.DSTC11 else {"generation": False}
    return SCORERS[dev.format](refs, hyps, **options)


def ensure_default_model(
    data_dir: str | Path | None = None,
    progress: Progress = no_progress,
    say=None,
    split: DataSplit | str = DataSplit.all,
) -> Path:
    """The default model's directory (trained on ``split`` of dstc11_track5: ``all``, or ``train`` for scoring its
    dev side), training it first when absent or saved by an older clarion in a format this one no longer reads
    (:func:`clarion.store.ensure`; ``say(message)`` announces that, default stderr)."""
    from clarion.data.location import dataset_dir
    from clarion.dstc.models.modeldir import stale_format
    from clarion.store import ensure

    split = DataSplit(split)

    def train(directory: Path) -> None:
        train_into(dataset_dir(DEFAULT_DATASET, data_dir), split, directory, default_config(), progress)

    on = f"{DEFAULT_DATASET} ({'every labelled context' if split is DataSplit.all else f'{split.value} split'})"
    return ensure(default_model_dir(data_dir, split), train, "the default DSTC model", on, stale=stale_format, say=say)
