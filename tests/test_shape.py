"""The shape rules of the source tree: small modules and functions, small configurations, no benchmark's city."""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

import clarion
from clarion.dstc.models.config import PipelineConfig
from clarion.rules import RULES, default_rules

SRC = Path(clarion.__file__).parent


def _modules():
    yield from sorted(SRC.rglob("*.py"))


def test_no_module_over_400_lines_and_no_function_over_60():
    long_modules = [str(p) for p in _modules() if len(p.read_text().splitlines()) > 400]
    assert long_modules == []
    long_functions = [
        f"{p.name}:{node.name}"
        for p in _modules()
        for node in ast.walk(ast.parse(p.read_text()))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno - node.lineno + 1 > 60
    ]
    assert long_functions == []


def test_the_pipeline_config_lists_rules_by_name_in_at_most_20_fields():
    assert len(dataclasses.fields(PipelineConfig)) <= 20
    assert set(PipelineConfig().rules) == set(default_rules()) and set(default_rules()) <= set(RULES)


def test_no_source_text_names_a_benchmarks_city():
    city = re.compile(r"cambridge|san\s*francisco", re.IGNORECASE)
    assert [str(p) for p in SRC.rglob("*.py") if city.search(p.read_text())] == []
