"""The conversation engine with a DSTC knowledge base on the dev side of dstc11_track5's dialogue split (issue 62).

Each dev context (the dialogue up to a user turn) is given to ``Assistant.reply_many`` as ``{"role", "text"}`` turns,
with the ClariQ models trained on train+dev and the DSTC model (default: the train-side model, trained when absent)
over dstc11_track5's knowledge base. On the gold knowledge-seeking turns it counts how the engine answered (grounded
answer, the Grounder's "which place" question, a ClariQ question or a query answer: the last two are misses); it
scores the engine's knowledge answers with the DSTC11 scorer beside the Grounder's own predictions for the same
contexts (``DstcModel.predict``, what ``clarion dstc predict --split dev`` writes). On the other turns it counts the
actions and prints examples of the ClariQ questions asked. Timing: the engine's median ms per turn.

    python benchmarks/converse_knowledge.py [--limit N] [--model DIR] [--batch 8] [--examples 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections import Counter

from clarion.store import cpu_model


def engine_turns(context) -> list[dict]:
    return [{"role": "user" if t.speaker == "U" else "system", "text": t.text} for t in context.turns]


def kind(decision) -> str:
    """What the engine did: ``grounded`` (knowledge cited), ``no_knowledge`` (the Grounder found none),
    ``which_place`` (the Grounder's clarifying question), ``clariq`` (a bank question), ``query`` or ``stop``."""
    from_kb = bool(decision.scores.get("knowledge_seeking"))
    if decision.action == "stop":
        return "stop"
    if decision.action == "clarify":
        return "which_place" if from_kb else "clariq"
    if from_kb:
        return "grounded" if decision.sources else "no_knowledge"
    return "query"


def as_prediction(decision, keys: dict, fmt) -> dict:
    """The decision as a DSTC prediction: knowledge-seeking when the Grounder answered or asked."""
    from clarion.data.dstc import Label

    if kind(decision) not in ("grounded", "no_knowledge", "which_place"):
        return {"target": False}
    return Label(True, tuple(keys[s["id"]] for s in decision.sources), decision.text).to_json(fmt)


def run_engine(assistant, contexts, batch: int) -> tuple[list, list[float]]:
    """The engine's decisions for ``contexts`` (``batch`` at a time) and each batch's ms per turn."""
    decisions, per_turn = [], []
    for start in range(0, len(contexts), batch):
        chunk = [engine_turns(c) for c in contexts[start : start + batch]]
        began = time.perf_counter()
        decisions += assistant.reply_many(chunk)
        per_turn.append(1000 * (time.perf_counter() - began) / len(chunk))
    return decisions, per_turn


def load(model, limit: int | None):
    """(dev dataset, assistant, grounder): the engine built as ``Assistant.load(knowledge=...)`` builds it."""
    from clarion.data.dstc import load_dataset
    from clarion.data.dstc_split import split_dataset
    from clarion.data.location import dataset_dir
    from clarion.dialogue.answer import KnowledgeAnswerer
    from clarion.dialogue.engine import Assistant
    from clarion.dialogue.loading import load_parts
    from clarion.dstc.assistant import Grounder
    from clarion.dstc.models.default import DEFAULT_DATASET, ensure_default_model
    from clarion.dstc.models.pipeline import DataSplit

    dev = split_dataset(load_dataset(dataset_dir(DEFAULT_DATASET), labels=True), "dev")
    if limit:
        dev = dev.subset(range(min(limit, len(dev.contexts))))
    model = model or ensure_default_model(split=DataSplit.train)  # the model that has not seen the dev dialogues
    grounder = Grounder.load(model, dev.knowledge)
    clarifier, rewriter, chooser, _ = load_parts(None, None, None, None, ("train", "dev"))
    return dev, Assistant(clarifier, rewriter, chooser, KnowledgeAnswerer(grounder)), grounder


def show_counts(title: str, counts: Counter, n: int) -> None:
    print(f"{title} ({n} turns): " + ", ".join(f"{k} {v} ({v / n:.1%})" for k, v in counts.most_common()))


def show_scores(name: str, scores: dict) -> None:
    det, sel, gen = scores["detection"], scores["selection"], scores["generation"]
    print(
        f"  {name:<9} detection P/R/F1 {det['prec']:.4f}/{det['rec']:.4f}/{det['f1']:.4f}  selection F1 "
        f"{sel['f1']:.4f} EM {sel['em_acc']:.4f}  BLEU {gen['bleu']:.4f}  ROUGE-1 {gen['rouge_1']:.4f}  "
        f"ROUGE-L {gen['rouge_l']:.4f}"
    )


def show_examples(title: str, rows: list[tuple], k: int) -> None:
    print(f"{title} ({len(rows)}; first {min(k, len(rows))}):")
    for user, said in rows[:k]:
        print(f"  user: {user}\n    -> {said}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="only the first N dev contexts")
    parser.add_argument("--model", default=None, help="DSTC model directory (default: the train-side model)")
    parser.add_argument("--batch", type=int, default=8, help="conversations per reply_many call")
    parser.add_argument("--examples", type=int, default=5, help="examples printed per kind")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from clarion.evaluate.dstc11 import score

    dev, assistant, grounder = load(args.model, args.limit)
    own = grounder.model.predict(dev, prepared=grounder.prepared)
    decisions, per_turn = run_engine(assistant, dev.contexts, args.batch)
    keys = {"/".join(str(p) for p in s.key): s.key for s in grounder.knowledge.snippets()}
    seeking = [i for i, label in enumerate(dev.labels) if label.target]
    other = [i for i, label in enumerate(dev.labels) if not label.target]
    print(f"dev side of dstc11_track5: {len(dev.contexts)} contexts; DSTC model {grounder.directory}")
    print(f"machine: {cpu_model()}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the end")
    show_counts("gold knowledge-seeking", Counter(kind(decisions[i]) for i in seeking), len(seeking))
    same = sum(decisions[i].text == (own[i].response or "") for i in seeking if own[i].target)
    print(f"  engine text identical to the Grounder's response: {same} of {sum(own[i].target for i in seeking)}")
    for name, part in (("knowledge-seeking", seeking), ("all", range(len(dev.contexts)))):
        refs = [dev.labels[i].to_json(dev.format) for i in part]
        print(f"DSTC11 scores (no METEOR) on the {name} dev contexts:")
        show_scores("engine", score(refs, [as_prediction(decisions[i], keys, dev.format) for i in part], meteor=False))
        show_scores("Grounder", score(refs, [own[i].to_json(dev.format) for i in part], meteor=False))
    show_counts("gold not knowledge-seeking", Counter(kind(decisions[i]) for i in other), len(other))
    asked = [dev.contexts[i].last_user_text for i in other if kind(decisions[i]) == "clariq"]
    named = sum(bool(grounder.prepared.tracker.mentions(text)) for text in asked)
    print(f"  ClariQ questions on a turn naming a knowledge-base entity: {named} of {len(asked)}")
    for what, part in (("clariq", other), ("clariq", seeking), ("which_place", seeking), ("which_place", other)):
        rows = [(dev.contexts[i].last_user_text, decisions[i].text) for i in part if kind(decisions[i]) == what]
        gold = "knowledge-seeking" if part is seeking else "not knowledge-seeking"
        show_examples(f"{what} questions on gold {gold} turns", rows, args.examples)
    median = statistics.median(per_turn)
    print(f"engine: median {median:.1f} ms per turn over {len(per_turn)} batches of {args.batch}")


if __name__ == "__main__":
    main()
