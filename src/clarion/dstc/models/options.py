"""Settings of a pipeline configuration given as ``FIELD=VALUE`` (a JSON value: ``true``, ``0.3``, ``null``).

``clarion dstc predict`` and ``respond`` take them (``--set``) for the fields a trained model reads only when it
predicts (:func:`prediction_config`: "aspect_anchors=true" turns on an option without retraining); ``clarion dstc
train`` and the benchmarks take any field, nested ones dotted ("detect.entity_faq_cosine=0.5"), and train with them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict

from clarion.dstc.models.pipeline import PipelineConfig
from clarion.errors import ClarionError, InputError

TRAINING_FIELDS = frozenset({"detect", "select", "lm", "generator", "max_contexts", "dense", "relevance_gate"})
"""The fields a model is trained with (training reads them: changing one needs a new model; ``generator`` has its
own option, and a model trained without the relevance gate has no embedded bodies to gate)."""


def parse_settings(settings: Sequence[str], option: str = "--set") -> dict:
    """``FIELD=VALUE`` settings as nested overrides (``detect.x=1`` -> ``{"detect": {"x": 1}}``); a setting without
    ``=`` or whose value is not JSON is an :class:`~clarion.errors.InputError` naming it."""
    out: dict = {}
    for setting in settings:
        field, sep, raw = setting.partition("=")
        if not sep or not field:
            raise InputError(f"{option} {setting!r}: expected FIELD=VALUE")
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            raise InputError(f'{option} {setting!r}: the value is not JSON (a number, true, null, "text")') from None
        *path, name = field.split(".")
        target = out
        for part in path:
            target = target.setdefault(part, {})
            if not isinstance(target, dict):
                raise InputError(f"{option} {setting!r}: {part} is not a group of fields")
        target[name] = value
    return out


def with_overrides(config: PipelineConfig, overrides: dict, option: str = "--set") -> PipelineConfig:
    """A new configuration: ``config`` with ``overrides`` merged in (``detect``, ``select`` and ``lm`` take objects of
    their own fields) and checked as any configuration is; an unknown field or a value out of its bounds is an
    :class:`~clarion.errors.InputError` naming ``option``."""
    fields = {**config.to_json(), "lm": asdict(config.lm)}
    for key, value in overrides.items():
        if key not in fields:
            raise InputError(f"{option}: PipelineConfig has no field {key!r}")
        if isinstance(fields[key], dict) != isinstance(value, dict):
            raise InputError(f"{option}: {key} takes {'fields' if isinstance(fields[key], dict) else 'a value'}")
        unknown = sorted(set(value).difference(fields[key])) if isinstance(value, dict) else []
        if unknown:
            raise InputError(f"{option}: PipelineConfig.{key} has no field {unknown[0]!r}")
        fields[key] = {**fields[key], **value} if isinstance(value, dict) else value
    try:
        return PipelineConfig.from_json(fields)
    except (ClarionError, TypeError, ValueError) as err:
        raise InputError(f"{option}: {err}") from None


def prediction_config(config: PipelineConfig, settings: Sequence[str], option: str = "--set") -> PipelineConfig:
    """``config`` with ``FIELD=VALUE`` settings of fields a trained model reads only when it predicts; a field of
    :data:`TRAINING_FIELDS` is refused (it needs a model trained with it)."""
    overrides = parse_settings(settings, option)
    trained = sorted(TRAINING_FIELDS.intersection(overrides))
    if trained:
        raise InputError(f"{option}: {trained[0]} is fixed when the model is trained; train a model with it instead")
    return with_overrides(config, overrides, option)
