"""WordNet 3.0 from Debian's ``wordnet-base``/``wordnet-sense-index`` files or nltk's data path; nothing is downloaded.

Used by METEOR (:mod:`clarion.evaluate.dstc9`), the need features (:mod:`clarion.detect.lexicon`) and the FAQ answers'
antonyms (:mod:`clarion.respond.faq_answers`).
"""

from __future__ import annotations

import functools
import gzip
import io
import os
import re
import threading
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from clarion.errors import ClarionError

DEBIAN_WORDNET = Path("/usr/share/wordnet")
_LEXNAMES_MAN = Path("/usr/share/man/man5/lexnames.5WN.gz")
_CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}


def _lexnames() -> str:
    """The WordNet 3.0 ``lexnames`` file (Debian ships its table only in the ``lexnames(5WN)`` man page)."""
    try:
        with gzip.open(_LEXNAMES_MAN, "rt", encoding="utf-8") as handle:
            man = handle.read()
    except OSError:
        raise ClarionError(f"cannot read {_LEXNAMES_MAN}: apt-get install wordnet-base") from None
    rows = re.findall(r"^(\d\d)\t(\S+)\s*\t", man, re.M)
    return "".join(f"{num}\t{name}\t{_CATEGORY[name.split('.')[0]]}\n" for num, name in rows)


READING = threading.Lock()
"""nltk's WordNet reader seeks in shared open files: hold this for each lookup (the service reads from several threads,
and every module that looks words up shares the one reader)."""

WORDNET_HOW = (
    "on Debian/Ubuntu apt-get install wordnet-base wordnet-sense-index; elsewhere run "
    "python -m nltk.downloader wordnet on a machine with network (or set CLARION_WORDNET_DIR to a WordNet dict dir)"
)
"""How to get WordNet, either way; every WordNet error ends with it."""


@functools.cache
def load_wordnet(root: str | None = None) -> Any:
    """nltk's ``WordNetCorpusReader`` on WordNet 3.0, from the first place that has it.

    ``root`` (or ``$CLARION_WORDNET_DIR``) when given; else Debian's files (``wordnet-base``,
    ``wordnet-sense-index`` in ``/usr/share/wordnet``); else nltk's data path (``nltk.data.find("corpora/wordnet")``,
    or the ``wordnet.zip`` that ``python -m nltk.downloader wordnet`` puts there). Nothing is downloaded; when none
    has it, :class:`ClarionError` says how to get it either way. Loading takes ~5 s; the reader is cached per process.
    """
    explicit = root or os.environ.get("CLARION_WORDNET_DIR")
    if explicit or (DEBIAN_WORDNET / "data.noun").is_file():
        return _debian_reader(Path(explicit or DEBIAN_WORDNET))
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    for resource in ("corpora/wordnet", "corpora/wordnet.zip/wordnet/"):  # the downloader may leave the zip
        try:
            found = nltk.data.find(resource)
            break
        except LookupError:
            continue
    else:
        raise ClarionError(f"WordNet 3.0 not found: {WORDNET_HOW}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "multilingual functions are not available"
        return WordNetCorpusReader(found, None)


def _debian_reader(path: Path) -> Any:
    """The reader on a WordNet 3.0 dict directory laid out as Debian's. Debian lacks the ``lexnames`` file, which
    is rebuilt from the package's ``lexnames(5WN)`` man page; the OMW mapping (multilingual lookups, unused by
    METEOR) is switched off. The directory is added to ``nltk.data.path``, which nltk requires of every corpus
    root it opens."""
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    if not (path / "data.noun").is_file():
        raise ClarionError(f"WordNet not found in {path}: {WORDNET_HOW}")
    lexnames = (path / "lexnames").read_text() if (path / "lexnames").is_file() else _lexnames()

    class _DebianWordNet(WordNetCorpusReader):
        def open(self, file):
            return io.StringIO(lexnames) if file == "lexnames" else super().open(file)

        def map_wn(self, version="wordnet"):
            return None

    if str(path) not in nltk.data.path:
        nltk.data.path.append(str(path))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "multilingual functions are not available"
        return _DebianWordNet(str(path), None)


def sense_counts(entry: str) -> tuple[int, int]:
    """How many synsets nltk's ``synsets(entry)`` returns (every part of speech, inflected forms found by morphy) and
    in how many lexicographer files they lie (from :func:`_lexicographer_files`), without building the synsets: nothing
    is kept in nltk's synset cache, which would grow for as long as a service runs. Hold :data:`READING` around it."""
    from nltk.corpus.reader.wordnet import POS_LIST

    reader = load_wordnet()
    lemma, count, files = entry.lower(), 0, set()
    for pos in POS_LIST:
        for form in reader._morphy(lemma, pos, True):
            offsets = reader._lemma_pos_offset_map[form].get(pos, [])
            if offsets:
                known, lexicographer = _lexicographer_files(pos)
                count += len(offsets)
                files.update(lexicographer[np.searchsorted(known, offsets)].tolist())
    return count, len(files)


@functools.cache
def _lexicographer_files(pos: str) -> tuple[np.ndarray, np.ndarray]:
    """Every synset of part of speech ``pos``: its offset in the data file (ascending) and its lexicographer file
    number, the first two fields of its line, read once from the whole file (a few tenths of a second) rather than by
    a seek and a line per synset looked up, which took most of the need features' WordNet time."""
    reader = load_wordnet()
    with reader.root.join(f"data.{reader._FILEMAP[pos]}").open() as handle:
        rows = re.findall(rb"^(\d{8}) (\d\d) ", handle.read(), re.M)
    return np.array([int(o) for o, _ in rows], dtype=np.int64), np.array([int(f) for _, f in rows], dtype=np.int16)
