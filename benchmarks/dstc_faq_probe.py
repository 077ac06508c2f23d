"""FAQ probe of the DSTC assistant: natural questions about FAQ aspects, asked at every place that has such an FAQ.

Each question of :data:`RESTAURANT` / :data:`HOTEL` is asked, as a one-turn dialogue through ``Grounder.respond`` (the
default model, dstc11_track5's knowledge), about every place of its domain with an FAQ whose question matches the
pattern beside it ("Can I pay by card at {p}?" where an FAQ asks about payment, credit or cards) — 1,712 questions.
An answer counts as right when the turn is knowledge-seeking and that FAQ is among the selected snippets. DSTC11's
dialogues rarely ask these things (halal food, high chairs, luggage), so this is what a user finds and the train
cross-validation cannot show; the dstc_probe.py answers are read by eye, these are counted.

Run: ``python benchmarks/dstc_faq_probe.py --out faq.json`` (about two minutes once the default model is trained), then
``python benchmarks/dstc_faq_probe.py --set detect.entity_faq_cosine=0.65 --compare faq.json`` to see what a setting
changes (right -> wrong first). ``--set`` and ``--model`` as in dstc_probe.py.
"""

from __future__ import annotations

import re

RESTAURANT = [
    ("Do they have halal food at {p}?", "halal"),
    ("Is the food at {p} halal?", "halal"),
    ("Does {p} have vegetarian food?", "vegetarian|vegan"),
    ("Is there gluten-free food at {p}?", "gluten"),
    ("Can I get food delivered from {p}?", "deliver"),
    ("Can I get my food to go at {p}?", "take-?out|take ?away|to go"),
    ("Do they have high chairs for my baby at {p}?", "baby|babies|high chair|infant"),
    ("Is there wifi for customers at {p}?", "wi-?fi"),
    ("Can I bring my own wine to {p}?", "byob|bring (?:my|your) own"),
    ("Is there live music in the evening at {p}?", "live music"),
    ("Can I sit outside at {p}?", "outdoor|outside|patio"),
    ("Can I get in with a wheelchair at {p}?", "wheelchair|accessib|disab"),
    ("Can I pay by card at {p}?", "payment|credit|card"),
]
HOTEL = [
    ("Is the breakfast free at {p}?", "breakfast"),
    ("Can I bring my dog to {p}?", "pet|dog"),
    ("Is there a gym at {p}?", "gym|fitness"),
    ("Is there a pool at {p}?", "pool"),
    ("Can I do my laundry at {p}?", "laundry"),
    ("Is there a lift at {p}?", "lift|elevator"),
    ("What time is check-out at {p}?", "check.?out"),
    ("Is there a shuttle to the airport from {p}?", "shuttle|airport"),
    ("Can I leave my luggage at {p}?", "luggage|baggage"),
    ("Is there room service at {p}?", "room service"),
    ("Can I smoke at {p}?", "smok"),
    ("Is the wifi free at {p}?", "wi-?fi|internet"),
]


def probe_items(knowledge) -> list[tuple[str, str, tuple, set]]:
    """``(template, question, entity key, keys of the matching FAQs)`` for every place of the domain with one."""
    items = []
    for domain, questions in (("restaurant", RESTAURANT), ("hotel", HOTEL)):
        for entity in sorted(e for e in knowledge.entity_names if e[0] == domain):
            faqs = [s for s in knowledge.entity_snippets(*entity) if s.doc_type == "faq"]
            name = knowledge.entity_names[entity].title()
            for template, pattern in questions:
                hits = {s.key for s in faqs if re.search(pattern, s.title, re.I)}
                if hits:
                    items.append((template, template.format(p=name), entity, hits))
    return items


def main() -> None:
    from dstc_probe import print_tally, print_verdict_changes, probe_parser, probed_grounder, save_answers

    args = probe_parser(__doc__.splitlines()[0], show=3).parse_args()
    grounder = probed_grounder(args)
    items = probe_items(grounder.knowledge)
    replies = grounder.respond_many([[question] for _, question, _, _ in items])
    rows = []
    for (template, question, _, hits), reply in zip(items, replies, strict=True):
        ok = reply.knowledge_seeking and any(s.key in hits for s in reply.snippets)
        rows.append({"template": template, "question": question, "right": ok, "response": reply.response})
    print_tally(rows, lambda row: row["template"], str, args.show)
    print(f"all: {sum(row['right'] for row in rows)} / {len(rows)} right")
    save_answers(args.out, rows)
    if args.compare:
        print_verdict_changes(rows, args.compare)


if __name__ == "__main__":
    main()
