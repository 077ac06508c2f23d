"""A classifier's state as plain arrays: text (a LightGBM model) as UTF-8 bytes, and boosters read back from it."""

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
