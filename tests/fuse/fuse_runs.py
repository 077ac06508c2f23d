"""Runs the fusion tests share (``test_fusion_methods.py``, ``test_fusion_errors.py``, ``test_fusion_tuning.py``)."""

from __future__ import annotations

A = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}, "r": {"x": 1.0, "y": 0.0}}
B = {"q": {"c": 30.0, "b": 20.0, "d": 10.0}, "r": {"y": 5.0, "x": 1.0}}

NAN, INF = float("nan"), float("inf")
