"""By-use probe of the DSTC assistant: questions a user might ask about Cambridge places, answered one at a time.

Every question of :data:`QUESTIONS` is asked about every place of :data:`PLACES` through ``Grounder.respond`` (the
default model, dstc11_track5's knowledge), each as a one-turn dialogue. There are no labels: the point is to read the
answers as a user would ("Is there a gym at the Golden Curry?" -> "Yes, the Golden Curry does have a great outdoor
dining area." is wrong whatever a metric says). ``--out`` keeps the answers as JSON; ``--compare`` prints only the
answers that differ from an earlier ``--out`` (e.g. before and after a change, or with ``--set`` overrides).

Run: ``python benchmarks/dstc_probe.py --out probe.json`` (about a minute once the default model is trained), then
``python benchmarks/dstc_probe.py --set rules.ask_entity=null --compare probe.json``. ``--set FIELD=JSON``
changes a prediction-time field of the model's ``PipelineConfig`` (dotted for ``detect.`` / ``select.``) for this run.
``--model DIR`` probes another model directory (e.g. one trained before a change).
"""

from __future__ import annotations

import argparse
import json
import os

PLACES = [
    "the Lensfield Hotel",
    "Zizzi Cambridge",
    "the Gonville Hotel",
    "A and B Guest House",
    "the Golden Curry",
    "the Acorn Guest House",
    "Pizza Hut City Centre",
    "the Ashley Hotel",
    "Curry Garden",
    "the Cambridge Belfry",
]
QUESTIONS = [
    "Is there a sauna at {p}?",
    "Can I pay with Amex at {p}?",
    "Would you recommend {p} for a business trip?",
    "Can my kids stay too at {p}?",
    "Is {p} good for kids?",
    "Do they allow dogs at {p}?",
    "Is there a gym at {p}?",
    "Does {p} have vegan options?",
    "Is {p} quiet at night?",
    "How is the service at {p}?",
    "Is {p} expensive?",
    "Is there parking at {p}?",
    "What do people say about the staff at {p}?",
    "Is {p} romantic?",
    "Does {p} have a bar?",
    "Is {p} clean?",
    "Can I smoke at {p}?",
    "Do they have live music at {p}?",
    "Is the food at {p} spicy?",
    "Is {p} close to the train station?",
    "Tell me about the staff at {p}.",
    "I'd like to know about the location of {p}.",
]


def overrides(settings: list[str]) -> dict:
    """``FIELD=JSON`` settings as the nested overrides :func:`dstc_cv.merged` takes (``detect.`` / ``select.``
    fields dotted; :func:`clarion.dstc.models.options.parse_settings`); a malformed one exits with its line."""
    from clarion.dstc.models.options import parse_settings
    from clarion.errors import InputError

    try:
        return parse_settings(settings)
    except InputError as err:
        raise SystemExit(str(err)) from None


def probe_parser(description: str, show: int | None = None) -> argparse.ArgumentParser:
    """The options every probe takes: ``--out``, ``--compare``, ``--set`` and ``--model``; with ``show``, a counting
    probe's ``--show`` (wrong answers printed per question, default ``show``)."""
    parser = argparse.ArgumentParser(description=description)
    if show is not None:
        parser.add_argument("--show", type=int, default=show, help="wrong answers printed per question")
    parser.add_argument("--out", help="write the answers here (JSON)")
    parser.add_argument("--compare", help="print only the answers that differ from this earlier --out")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=JSON", help="a config override")
    parser.add_argument("--model", help="a model directory (default: the default model, trained when absent)")
    return parser


def probed_grounder(args: argparse.Namespace):
    """The ``Grounder`` a probe asks: ``--model`` (default: the default model) with the ``--set`` overrides."""
    from dstc_cv import merged

    from clarion.dstc.assistant import Grounder

    if args.compare and not os.path.isfile(args.compare):  # before the minutes of asking, not after
        raise SystemExit(f"error: --compare {args.compare}: no such file")
    grounder = Grounder.load(args.model)
    if args.set:  # prediction-time fields: the model keeps what it learnt, the knowledge stays bound
        grounder.model.config = merged(grounder.model.config, overrides(args.set), "--set")
    return grounder


def save_answers(path: str | None, rows: list[dict]) -> None:
    """Write a probe's answers (``--out``) when a path is given."""
    if path:
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(rows, handle, indent=1, ensure_ascii=False)


def earlier_answers(path: str) -> dict[str, dict]:
    """An earlier probe's answers (``--compare``), by question."""
    with open(path, encoding="utf-8") as handle:
        return {row["question"]: row for row in json.load(handle)}


def print_tally(rows: list[dict], group, label, show: int) -> None:
    """For a probe that counts right answers: per group of ``rows`` (``group(row)``, in first-seen order) how many
    were right, headed by ``label(group)``, and up to ``show`` of its wrong answers."""
    from collections import Counter

    right, asked = Counter(), Counter()
    for row in rows:
        right[group(row)] += row["right"]
        asked[group(row)] += 1
    for key in asked:
        print(f"{right[key]:4d} / {asked[key]:4d} right | {label(key)}")
        for row in [r for r in rows if not r["right"] and group(r) == key][:show]:
            print(f"       {row['question']} -> {row['response']}")


def print_verdict_changes(rows: list[dict], path: str, tag=lambda row: "") -> None:
    """For a probe that counts right answers (``rows`` with ``question``, ``right``, ``response``): print the answers
    that differ from the earlier run at ``path`` (``--compare``), right -> wrong first, each with ``tag(row)`` after its
    verdicts, then how many moved which way."""
    from collections import Counter

    before = earlier_answers(path)
    changed = [r for r in rows if r["question"] in before and before[r["question"]]["response"] != r["response"]]
    changed.sort(key=lambda r: (before[r["question"]]["right"] <= r["right"], r["right"]))
    verdicts = ("wrong", "right")
    for row in changed:
        old = before[row["question"]]
        print(f"{verdicts[old['right']]} -> {verdicts[row['right']]}{tag(row)}: {row['question']}")
        print(f"  before: {old['response']}\n  now:    {row['response']}")
    moves = Counter((before[r["question"]]["right"], r["right"]) for r in changed)
    print(
        f"{len(changed)} of {len(rows)} answers changed: {moves[(False, True)]} wrong -> right, "
        f"{moves[(True, False)]} right -> wrong, {moves[(False, False)]} wrong -> wrong, "
        f"{moves[(True, True)]} right -> right"
    )


def main() -> None:
    args = probe_parser(__doc__.splitlines()[0]).parse_args()
    grounder = probed_grounder(args)
    rows = []
    for place in PLACES:
        for question in QUESTIONS:
            text = question.format(p=place)
            reply = grounder.respond([text])
            rows.append(
                {
                    "question": text,
                    "knowledge_seeking": reply.knowledge_seeking,
                    "snippets": [s.title or s.body for s in reply.snippets],
                    "response": reply.response,
                }
            )
    save_answers(args.out, rows)
    if args.compare:
        before = earlier_answers(args.compare)
        changed = [row for row in rows if before.get(row["question"], {}).get("response") != row["response"]]
        for row in changed:
            print(f"{row['question']}\n  before: {before.get(row['question'], {}).get('response')}")
            print(f"  now:    {row['response']}")
        print(f"{len(changed)} of {len(rows)} answers changed")
        return
    for row in rows:
        flag = "KS" if row["knowledge_seeking"] else "--"
        print(f"{flag} {row['question']}\n   {row['response'] or ''}")


if __name__ == "__main__":
    main()
