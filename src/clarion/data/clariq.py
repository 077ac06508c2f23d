"""Readers for every ClariQ file (github.com/aliannejadi/ClariQ).

- topic TSVs: ``train.tsv``, ``dev.tsv``, ``test_with_labels.tsv`` (full columns) and ``test.tsv``
  (``topic_id``, ``initial request`` with a space) -> :func:`read_topics`, :func:`read_labels`
- ``question_bank.tsv`` -> :func:`read_question_bank`
- per-topic/per-facet ``.eval`` JSON (metric -> id -> value) -> :func:`read_eval_json`
- multi-turn runs (``context_id 0 "question text" rank score run_id``) -> :func:`read_multi_turn_run`
- multi-turn conversations and evaluation tables (pickles or JSON) -> :func:`read_conversations`,
  :func:`read_eval_table`
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clarion.data.clariq_constants import NO_QUESTION  # noqa: F401  (re-exported)
from clarion.data.io import fingerprint_config, fingerprint_files, read_json, read_lines
from clarion.data.safe_pickle import load_pickle
from clarion.data.trec import RunRow, _number
from clarion.data.tsv import read_tsv
from clarion.errors import DataError, InputError
from clarion.types import Topic

_ALIASES = {"initial request": "initial_request"}
LABEL_COLUMNS = ("topic_id", "initial_request", "clarification_need", "facet_id", "question_id")


def read_topics(path: str | Path, check: Callable[[str], object] | None = None) -> list[Topic]:
    """The distinct topics of any ClariQ TSV with ``topic_id`` and ``initial_request`` (or
    ``initial request``), in file order. ``check`` judges each request; its :class:`InputError` becomes a
    :class:`DataError` naming the file, line and topic."""
    topics: dict[str, Topic] = {}
    for row in read_tsv(path, required=("topic_id", "initial_request"), aliases=_ALIASES):
        tid, request = row["topic_id"].strip(), row["initial_request"].strip()
        _check_id(path, row.line, "topic_id", tid)
        if not request:
            raise DataError(path, f"empty initial_request for topic {tid}", row.line)
        if check is not None:
            try:
                check(request)
            except InputError as err:
                raise DataError(path, f"topic {tid}: {err}", row.line) from None
        if topics.setdefault(tid, Topic(tid, request)).request != request:
            raise DataError(path, f"topic {tid} repeated with another initial_request", row.line)
    return list(topics.values())


def _check_id(path: str | Path, line: int, name: str, value: str) -> None:
    """Ids are written into whitespace-separated run files: non-empty, one word, no control characters."""
    if not value:
        raise DataError(path, f"empty {name}", line)
    if any(c.isspace() for c in value):
        raise DataError(path, f"{name} must be one word, got {value!r}", line)
    if not value.isprintable():
        raise DataError(path, f"{name} must not hold control characters, got {value!r}", line)


@dataclass
class ClariqLabels:
    """The labels of a ClariQ split: per topic its request, need, facets and relevant questions."""

    path: str
    requests: dict[str, str] = field(default_factory=dict)
    need: dict[str, int] = field(default_factory=dict)
    questions: dict[str, set[str]] = field(default_factory=dict)
    facets: dict[str, list[str]] = field(default_factory=dict)
    question_text: dict[str, str] = field(default_factory=dict)
    facet_desc: dict[str, str] = field(default_factory=dict)
    topic_desc: dict[str, str] = field(default_factory=dict)
    """topic_id -> the TREC Web track description of the topic (a rewording of the request, longer)."""
    answers: dict[tuple[str, str], str] = field(default_factory=dict)
    """(facet_id, question_id) -> the user's answer to that question under that facet."""

    @property
    def topics(self) -> list[Topic]:
        return [Topic(t, r) for t, r in self.requests.items()]

    def only(self, topic_ids: Iterable[str]) -> ClariqLabels:
        """These labels cut to ``topic_ids`` (file order kept); an id the labels lack is an error."""
        keep = set(topic_ids)
        missing = sorted(keep - set(self.requests))
        if missing:
            raise DataError(self.path, f"no such topic in the labels: {missing[0]!r}")
        facets = {t: list(fs) for t, fs in self.facets.items() if t in keep}
        kept_facets = {f for fs in facets.values() for f in fs}
        questions = {t: set(qs) for t, qs in self.questions.items() if t in keep}
        kept_questions = set().union(*questions.values()) if questions else set()
        return ClariqLabels(
            self.path,
            {t: r for t, r in self.requests.items() if t in keep},
            {t: n for t, n in self.need.items() if t in keep},
            questions,
            facets,
            {q: x for q, x in self.question_text.items() if q in kept_questions},
            {f: d for f, d in self.facet_desc.items() if f in kept_facets},
            {t: d for t, d in self.topic_desc.items() if t in keep},
            {(f, q): a for (f, q), a in self.answers.items() if f in kept_facets},
        )


def read_labels(path: str | Path) -> ClariqLabels:
    """A labelled ClariQ TSV (train/dev/test_with_labels) with its topic, facet and question columns."""
    labels = ClariqLabels(str(path))
    for row in read_tsv(path, required=LABEL_COLUMNS, aliases=_ALIASES):
        tid = row["topic_id"].strip()
        need = row["clarification_need"].strip()
        if need not in {"1", "2", "3", "4"}:
            raise DataError(path, f"clarification_need must be 1-4, got {need!r}", row.line)
        _check_id(path, row.line, "topic_id", tid)
        request = row["initial_request"].strip()
        if labels.requests.setdefault(tid, request) != request:
            raise DataError(path, f"topic {tid} repeated with another initial_request", row.line)
        if labels.need.setdefault(tid, int(need)) != int(need):
            raise DataError(path, f"topic {tid} repeated with another clarification_need", row.line)
        qid, fid = row["question_id"].strip(), row["facet_id"].strip()
        _check_id(path, row.line, "question_id", qid)
        _check_id(path, row.line, "facet_id", fid)
        labels.questions.setdefault(tid, set()).add(qid)
        facets = labels.facets.setdefault(tid, [])
        if fid not in facets:
            facets.append(fid)
        labels.question_text.setdefault(qid, row.get("question", "") or "")
        labels.facet_desc.setdefault(fid, row.get("facet_desc", "") or "")
        desc = (row.get("topic_desc", "") or "").strip().replace("\\'", "'").replace('\\"', '"')  # official escapes
        labels.topic_desc.setdefault(tid, desc)
        labels.answers.setdefault((fid, qid), row.get("answer", "") or "")
    return labels


def read_question_bank(path: str | Path) -> dict[str, str]:
    """``question_id -> question`` for the whole bank (``Q00001`` is the empty "no question")."""
    bank: dict[str, str] = {}
    for row in read_tsv(path, required=("question_id", "question")):
        qid = row["question_id"].strip()
        _check_id(path, row.line, "question_id", qid)
        if qid in bank:
            raise DataError(path, f"duplicate question_id {qid}", row.line)
        bank[qid] = row["question"].strip()
    return bank


def read_eval_json(path: str | Path) -> dict[str, dict[str, float]]:
    """A per-topic or per-facet ``.eval`` file: ``{metric: {id: value}}``."""
    data = read_json(path)
    if not isinstance(data, dict) or not data:
        raise DataError(path, "expected a JSON object {metric: {id: value}}")
    out: dict[str, dict[str, float]] = {}
    for metric, values in data.items():
        if not isinstance(values, dict):
            raise DataError(path, f"metric {metric!r}: expected an object {{id: value}}")
        for key, value in values.items():
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise DataError(path, f"metric {metric!r}, id {key!r}: value is not a number: {value!r}")
            if not _is_finite(value):
                raise DataError(path, f"metric {metric!r}, id {key!r}: value is not finite: {value!r:.60}")
        out[metric] = {str(k): float(v) for k, v in values.items()}
    return out


_MULTI_TURN_LINE = re.compile(r'^(\S+)\s+(\S+)\s+"(.*)"\s+(\S+)\s+(\S+)\s+(\S+)\s*$')


def read_multi_turn_run(path: str | Path) -> list[RunRow]:
    """A multi-turn run, ``context_id 0 "question text" rank score run_id``; ``doc_id`` holds the text."""
    rows = []
    for line, text in read_lines(path):
        match = _MULTI_TURN_LINE.match(text)
        if not match:
            raise DataError(path, 'expected: context_id 0 "question text" rank score run_id', line)
        cid, _, question, rank, score, run_id = match.groups()
        rows.append(
            RunRow(
                cid,
                question,
                _number(path, line, rank, "rank", int),
                _number(path, line, score, "score"),
                run_id,
                line,
            )
        )
    return rows


def _load_table(path: str | Path) -> Any:
    """JSON when the file says so (a ``.json`` name, or text opening with ``{`` or ``[`` whatever its name, e.g. a
    ``.eval`` file), else a pickle (read by the restricted unpickler)."""
    path = Path(path)
    if path.suffix == ".json":
        return read_json(path)
    try:
        with path.open("rb") as handle:
            head = handle.read(64).lstrip(b"\xef\xbb\xbf \t\r\n")
    except OSError:
        head = b""  # load_pickle names the problem
    return read_json(path) if head[:1] in (b"{", b"[") else load_pickle(path)


def read_conversations(path: str | Path) -> dict[str, dict[str, Any]]:
    """Multi-turn conversations (the ClariQ synthetic ``*.pkl`` dicts, or the same as JSON).

    Each entry (keyed by context id) has ``initial_request``, ``topic_id``, ``facet_id`` and
    ``conversation_context``, a list of ``{'question': ..., 'answer': ...}`` turns.
    """
    data = _load_table(path)
    if isinstance(data, list):
        data = {str(c.get("context_id", i)): c for i, c in enumerate(data) if isinstance(c, dict)}
    if not isinstance(data, dict) or not data:
        raise DataError(path, "expected a non-empty dict {context_id: conversation}")
    out: dict[str, dict[str, Any]] = {}
    for cid, conv in data.items():
        if not isinstance(conv, dict):
            raise DataError(path, f"context {cid}: expected a dict")
        for key in ("initial_request", "conversation_context"):
            if key not in conv:
                raise DataError(path, f"context {cid}: missing field {key!r}")
        turns = conv["conversation_context"]
        if not isinstance(turns, list) or not all(
            isinstance(t, dict) and {"question", "answer"} <= set(t) for t in turns
        ):
            raise DataError(path, f"context {cid}: conversation_context must be a list of question/answer dicts")
        out[str(cid)] = conv
    return out


def read_eval_table(path: str | Path) -> dict[str, dict[str, dict[str, Any]]]:
    """A document-relevance lookup table (the official ``*_eval.pkl``, or JSON of the same shape):
    ``{metric: {context_id: {question_id: {'no_answer': x, 'with_answer': y}, 'MAX': ..., 'MIN': ...}}}``."""
    data = _load_table(path)
    if not isinstance(data, dict) or not data:
        raise DataError(path, "expected {metric: {context_id: {question_id: values}}}")
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for metric, contexts in data.items():
        if not isinstance(contexts, dict):
            raise DataError(path, f"metric {metric!r}: expected a dict of contexts")
        out[str(metric)] = {str(c): q for c, q in contexts.items()}
        for cid, questions in out[str(metric)].items():
            if not isinstance(questions, dict):
                raise DataError(path, f"metric {metric!r}, context {cid}: expected a dict of questions")
            if "MIN" not in questions:
                raise DataError(path, f"metric {metric!r}, context {cid}: missing the 'MIN' entry")
            for qid, entry in questions.items():
                if not _is_table_value(entry):
                    raise DataError(
                        path,
                        f"metric {metric!r}, context {cid}, question {qid!r}: expected a number or "
                        f"{{'no_answer': x, 'with_answer': y}}, got {entry!r:.60}",
                    )
                values = entry.values() if isinstance(entry, dict) else [entry]
                if any(_is_number(v) and not _is_finite(v) for v in values):
                    raise DataError(
                        path, f"metric {metric!r}, context {cid}, question {qid!r}: value is not finite: {entry!r:.60}"
                    )
    return out


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_finite(value: float) -> bool:
    """A number the scorers can use: not NaN, not infinite, not an integer too large for a float."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _is_table_value(entry: Any) -> bool:
    """A table value: a number, or a dict whose ``with_answer`` is a number (what the scorer reads)."""
    if isinstance(entry, dict):
        entry = entry.get("with_answer")
    return _is_number(entry)


def labels_file(split: str) -> str:
    """The file holding a split's labels: ``test_with_labels.tsv`` for ``test``, ``<split>.tsv`` otherwise."""
    return "test_with_labels.tsv" if split == "test" else f"{split}.tsv"


@dataclass
class ClariQ:
    """The ClariQ files of one data directory, read on first use."""

    root: Path
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)
    restricted: dict[str, frozenset[str]] = field(default_factory=dict)
    """split -> the only topics whose labels are read (:meth:`restricted_to`); empty: every topic."""

    @classmethod
    def load(cls, data_dir: str | Path | None = None) -> ClariQ:
        from clarion.data.location import dataset_dir

        return cls(dataset_dir("clariq", data_dir))

    def path(self, name: str) -> Path:
        return self.root / name

    def _memo(self, key: str, fn, *args):
        if key not in self._cache:
            self._cache[key] = fn(*args)
        return self._cache[key]

    def labels(self, split: str) -> ClariqLabels:
        """Labels of ``train``, ``dev`` or ``test`` (the last needs ``test_with_labels.tsv``)."""
        path = self.path(labels_file(split))
        if split == "test" and not path.exists():
            raise DataError(path, "no such file: the test labels are fetched by `clarion data fetch clariq`")
        labels = self._memo(f"labels:{split}", read_labels, path)
        if split not in self.restricted:
            return labels
        return self._memo(f"labels:{self._cut(split)}", labels.only, self.restricted[split])

    def _cut(self, split: str) -> str:
        """``split:id,id,...``: a restricted split and its topics, as memo and fingerprint keys."""
        return f"{split}:{','.join(sorted(self.restricted[split]))}"

    def restricted_to(self, split: str, topic_ids: Iterable[str]) -> ClariQ:
        """This dataset with ``split``'s labels cut to ``topic_ids``. Topic files, the bank and the other splits
        stay whole, so the other topics' requests are still known, unlabelled requests: for a model trained on
        the result they are what dev's topics are for a model trained on train (a dev-like check from one
        split's labels, or a small training set for tests)."""
        data = ClariQ(self.root, self._cache, {**self.restricted, split: frozenset(topic_ids)})
        data.labels(split)  # unknown ids fail here, naming the file
        return data

    def fingerprint(self, labelled: Iterable[str], pool: Iterable[str] = ()) -> str:
        """Fingerprint of what a model trained on ``labelled`` splits reads: their label files (and the topics
        they are restricted to), the topic files of the ``pool`` splits and the question bank (files that do not
        exist are skipped)."""
        labelled = list(labelled)
        names = {"question_bank.tsv"} | {labels_file(s) for s in labelled} | {f"{s}.tsv" for s in pool}
        files = fingerprint_files(p for p in (self.path(n) for n in sorted(names)) if p.exists())
        cuts = [self._cut(s) for s in sorted(set(labelled) & set(self.restricted))]
        return fingerprint_config({"files": files, "restricted": cuts}) if cuts else files

    def require_training_files(self, splits: Iterable[str]) -> None:
        """Read the question bank and the labels of ``splits`` now (they are memoised), so that a missing or
        malformed file fails before a training says it starts."""
        _ = self.bank
        for split in splits:
            self.labels(split)

    def topics(self, split: str) -> list[Topic]:
        return self._memo(f"topics:{split}", read_topics, self.path(f"{split}.tsv"))

    @property
    def bank(self) -> dict[str, str]:
        return self._memo("bank", read_question_bank, self.path("question_bank.tsv"))

    def known_requests(self, splits: Iterable[str] = ("train", "dev", "test")) -> list[Topic]:
        """Topics of the given splits whose files exist (used as the set of 'other known requests')."""
        out = []
        for split in splits:
            if self.path(f"{split}.tsv").exists():
                out.extend(self.topics(split))
        return out
