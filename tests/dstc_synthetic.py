"""A small synthetic DSTC11 data directory for the model and CLI tests (enough turns to train on)."""

from __future__ import annotations

import json
from pathlib import Path

ENTITIES = {
    ("hotel", 0): "ALPHA LODGE",
    ("hotel", 1): "BETA HOUSE HOTEL",
    ("restaurant", 2): "THE GOLDEN SPOON",
}
ASPECTS = {
    "quiet": ("The rooms were very quiet at night.", "Is it quiet at night?"),
    "clean": ("Our bathroom was spotless and clean.", "Are the bathrooms clean?"),
    "view": ("We had a wonderful view of the river.", "Does it have a nice view?"),
    "staff": ("The staff were friendly and helpful.", "Is the staff friendly?"),
}
FILLER = ("We arrived on a Monday.", "It was a business trip.")
BOOKINGS = (
    "Please book it for {n} people.",
    "Can I get the phone number?",
    "I need it for {n} nights starting Friday.",
    "What is the postcode?",
)


def knowledge() -> dict:
    out: dict = {}
    for (domain, eid), name in ENTITIES.items():
        reviews = {}
        for doc, (aspect, (sentence, _)) in enumerate(ASPECTS.items()):
            sentences = [FILLER[doc % 2], sentence.replace("rooms", f"{aspect} rooms" if eid else "rooms")]
            reviews[str(doc)] = {"traveler_type": "Couples", "sentences": dict(enumerate(sentences))}
            reviews[str(doc)]["sentences"] = {str(k): v for k, v in reviews[str(doc)]["sentences"].items()}
        faqs = {"0": {"question": f"Does {name.title()} have parking?", "answer": "Yes, free parking."}}
        out.setdefault(domain, {})[str(eid)] = {"name": name, "reviews": reviews, "faqs": faqs}
    return out


def dialogues() -> tuple[list, list]:
    logs, labels = [], []
    for (domain, eid), name in ENTITIES.items():
        for k, (aspect, (_, question)) in enumerate(ASPECTS.items()):
            opening = {"speaker": "U", "text": f"I want a {domain} number {k} for {aspect}."}
            system = {"speaker": "S", "text": f"{name.title()} is a good choice."}
            booking = BOOKINGS[k % len(BOOKINGS)].format(n=k + 2)
            logs.append([opening, system, {"speaker": "U", "text": booking}])
            labels.append({"target": False})
            logs.append([opening, system, {"speaker": "U", "text": question}])
            ref = {"domain": domain, "entity_id": eid, "doc_type": "review", "doc_id": k, "sent_id": 1}
            labels.append({"target": True, "knowledge": [ref], "response": f"Guests say {name.title()} is {aspect}."})
    return logs, labels


def write_synthetic(root: Path, *, labels: bool = True) -> Path:
    """Write logs.json, knowledge.json (and labels.json) under ``root``; returns ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    logs, gold = dialogues()
    (root / "logs.json").write_text(json.dumps(logs))
    (root / "knowledge.json").write_text(json.dumps(knowledge()))
    if labels:
        (root / "labels.json").write_text(json.dumps(gold))
    return root
