"""Settings of a pipeline configuration given as ``FIELD=VALUE`` (a JSON value: ``true``, ``0.3``, ``null``).

``clarion dstc predict`` and ``respond`` take them (``--set``) for the fields a trained model reads only when it
predicts (:func:`prediction_config`: "rules.ask_entity=null" turns a rule off without retraining,
"rules.ask_entity=true" turns it back on); ``clarion dstc train`` and the benchmarks take any field, nested ones
dotted ("detect.entity_faq_cosine=0.5"), and train with them. A rule that is not a DSTC rule of
:data:`clarion.rules.RULES`, on or off, is an InputError naming it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict

from clarion.dstc.models.config import PipelineConfig
from clarion.errors import ClarionError, InputError
from clarion.rules import rules_of

TRAINING_FIELDS = frozenset({"detect", "select", "lm", "generator", "max_contexts", "dense"})
"""The fields a model is trained with (training reads them: changing one needs a new model; ``generator`` has its
own option). Rules marked ``training`` (:data:`clarion.rules.RULES`) are fixed by training too."""


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
        if key == "rules" and isinstance(value, dict):
            fields["rules"] = _merged_rules(fields["rules"], value, option)
            continue
        if key not in fields:
            hint = f" (a rule: rules.{key})" if key in rules_of("dstc") else ""
            raise InputError(f"{option}: PipelineConfig has no field {key!r}{hint}")
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


def _merged_rules(rules: dict, overrides: dict, option: str) -> dict:
    """``rules`` with ``overrides`` (name -> parameters to set, ``true``: on with its defaults, ``null`` or ``false``:
    off) merged in."""
    out, known = dict(rules), rules_of("dstc")
    for name, value in overrides.items():
        if name not in known:
            raise InputError(f"{option}: no rule {name!r}; rules: {', '.join(known)}")
        if value is None or value is False:
            out.pop(name, None)
        elif value is True:
            out[name] = out.get(name, {})
        elif isinstance(value, dict):
            out[name] = {**out.get(name, {}), **value}
        else:
            raise InputError(f"{option}: rules.{name} takes true, null or parameters, got {value!r}")
    return out


def prediction_config(config: PipelineConfig, settings: Sequence[str], option: str = "--set") -> PipelineConfig:
    """``config`` with ``FIELD=VALUE`` settings of fields a trained model reads only when it predicts; a field of
    :data:`TRAINING_FIELDS` is refused (it needs a model trained with it)."""
    overrides = parse_settings(settings, option)
    named = overrides.get("rules") if isinstance(overrides.get("rules"), dict) else {}
    known = rules_of("dstc")
    trained = sorted(TRAINING_FIELDS.intersection(overrides))
    trained += [f"rules.{name}" for name in sorted(named) if name in known and known[name].training]
    if trained:
        raise InputError(f"{option}: {trained[0]} is fixed when the model is trained; train a model with it instead")
    return with_overrides(config, overrides, option)
