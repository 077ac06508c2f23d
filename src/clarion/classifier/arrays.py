"""A classifier's state as plain arrays: text (a LightGBM model) as UTF-8 bytes, boosters read back from it, and
:func:`booster_predict`, how every stage asks a LightGBM booster for scores."""

from __future__ import annotations

import numpy as np

from clarion.errors import ModelError


def text_array(text: str) -> np.ndarray:
    """``text`` as a uint8 array of its UTF-8 bytes (saved with the other arrays, loaded without pickle)."""
    return np.frombuffer(text.encode("utf-8"), dtype=np.uint8).copy()


def array_text(array: np.ndarray) -> str:
    """The text :func:`text_array` stored (also a NumPy str array, as older need models saved LightGBM's text)."""
    array = np.asarray(array)
    if array.dtype.kind == "U":
        return str(array)
    return array.astype(np.uint8).tobytes().decode("utf-8")


def booster_from_text(text: str, where: str):
    """A LightGBM booster from its saved text; a truncated or foreign text raises :class:`ModelError` naming
    ``where``. LightGBM aborts the whole process on some truncated model texts, so they are checked first."""
    import lightgbm as lgb

    if not isinstance(text, str) or "end of trees" not in text or "end of parameters" not in text:
        raise ModelError(f"{where}: not a complete LightGBM model (truncated?); retrain it")
    try:
        return lgb.Booster(model_str=text)
    except lgb.basic.LightGBMError as err:
        raise ModelError(f"{where}: not a LightGBM model ({err}); retrain it") from None


SMALL_PREDICTION = 10_000
"""Rows below which a LightGBM booster predicts on one thread (:func:`booster_predict`)."""


def booster_predict(booster, X) -> np.ndarray:
    """``booster.predict(X)``, on one thread for fewer than :data:`SMALL_PREDICTION` rows. Left to LightGBM's default
    in a thread whose OpenMP count is one per core (a library caller's, say), every call on a few rows wakes a team of
    threads that then spin, waiting for more work: several times the CPU time of the prediction itself, for rows one
    thread scores in well under a millisecond."""
    threads = 1 if len(X) < SMALL_PREDICTION else 0  # 0: LightGBM's default
    return booster.predict(X, num_threads=threads)
