"""Wording probe of the DSTC assistant: FAQ aspects asked in other words than the FAQ probe's, and review questions.

:data:`FAQ_RESTAURANT` / :data:`FAQ_HOTEL` hold 146 wordings of places' FAQ aspects ("Is the front desk at {p} open all
night?", "My wife only eats halal, is {p} an option?"), each asked, as a one-turn dialogue through
``Grounder.respond``, about every place of its domain with an FAQ whose question matches the pattern beside it; right
when the turn is knowledge-seeking and such an FAQ is among the selected snippets. :data:`REVIEW_RESTAURANT` /
:data:`REVIEW_HOTEL` hold 44 review questions, several naming a word of some FAQ ("Would a wheelchair fit comfortably
between the tables at {p}?", "Are the rooms at {p} big enough for my luggage?"), asked at every place with reviews;
right when the turn is knowledge-seeking and a review snippet is among the selected (the controls of a rule that lets
FAQs answer more often). The wordings were written in five sets on 2026-11-27, each before the run it first judged
(docs/dstc.md); the patterns miss a few FAQs ("Is there workout rooms available onsite?"), so
read the answers a change moves, not only the counts.

Run: ``python benchmarks/dstc_wording_probe.py --out wording.json`` (a few minutes once the default model is trained),
then ``python benchmarks/dstc_wording_probe.py --set rules.ask_entity=null --compare wording.json`` to see what a
setting changes. ``--set`` and ``--model`` as in dstc_probe.py.
"""

from __future__ import annotations

import re

FAQ_RESTAURANT = [
    ("Do they take credit cards at {p}?", "payment|credit|card"),
    ("Does {p} accept Visa?", "payment|credit|card"),
    ("Is {p} halal?", "halal"),
    ("Are there vegan dishes at {p}?", "vegetarian|vegan"),
    ("Can a coeliac eat at {p}?", "gluten"),
    ("Does {p} deliver?", "deliver"),
    ("Can I order takeaway from {p}?", "take-?out|take ?away|to go"),
    ("Are there booster seats for kids at {p}?", "baby|babies|high ?chair|infant"),
    ("Can I get online at {p}?", "wi-?fi"),
    ("Is there a band playing at {p}?", "live music"),
    ("Does {p} have a patio?", "outdoor|outside|patio"),
    ("Is {p} accessible for disabled guests?", "wheelchair|accessib|disab"),
    ("Do they sell beer at {p}?", "alcohol|beer"),
    ("Is it easy to park at {p}?", "park"),
    ("Which cards can I pay with at {p}?", "payment|credit|card"),
    ("Is the food at {p} prepared halal?", "halal"),
    ("Does {p} cater for vegetarians?", "vegetarian|vegan"),
    ("I can't eat gluten, is {p} OK for me?", "gluten"),
    ("Can {p} bring the food to my house?", "deliver"),
    ("Does {p} do food to take away?", "take-?out|take ?away|to go"),
    ("We have a baby, is there a high chair at {p}?", "baby|babies|high ?chair|infant"),
    ("Is there internet access for diners at {p}?", "wi-?fi"),
    ("Are there musicians at {p} at night?", "live music"),
    ("Are there tables outdoors at {p}?", "outdoor|outside|patio"),
    ("My friend uses a wheelchair, can she get into {p}?", "wheelchair|accessib|disab"),
    ("Can I have a glass of wine with dinner at {p}?", "alcohol|beer|wine"),
    ("Where do I leave my car when I go to {p}?", "park"),
    ("Do I have to pay cash at {p} or is card fine?", "payment|credit|card"),
    ("Is the meat at {p} halal?", "halal"),
    ("Is there anything meat-free on the menu at {p}?", "vegetarian|vegan"),
    ("Are there gluten-free dishes at {p}?", "gluten"),
    ("Does {p} offer home delivery?", "deliver"),
    ("Can I pick up an order from {p}?", "take-?out|take ?away|to go"),
    ("Do they have seats for toddlers at {p}?", "baby|babies|high ?chair|infant"),
    ("Does {p} have a wifi password for guests?", "wi-?fi"),
    ("Do they play live music at {p}?", "live music"),
    ("Can we eat in the garden at {p}?", "outdoor|outside|patio"),
    ("Is {p} step-free for wheelchairs?", "wheelchair|accessib|disab"),
    ("Does {p} have a drinks license?", "alcohol|beer|wine"),
    ("Is there a car park at {p}?", "park"),
    ("I'm coeliac, does {p} have gluten-free food?", "gluten"),
    ("My wife only eats halal, is {p} an option?", "halal"),
    ("Is {p} suitable for a vegetarian?", "vegetarian|vegan"),
    ("Will {p} deliver to my hotel?", "deliver"),
    ("Is takeout possible at {p}?", "take-?out|take ?away|to go"),
    ("Does {p} provide a highchair?", "baby|babies|high ?chair|infant"),
    ("Is the wifi at {p} free for diners?", "wi-?fi"),
    ("Any live music at {p} this weekend?", "live music"),
    ("Is BYOB allowed at {p}?", "byob|bring (?:my|your) own"),
    ("Can someone in a wheelchair get around {p}?", "wheelchair|accessib|disab"),
    ("Can I use a credit card at {p}?", "payment|credit|card"),
    ("Do you know if {p} serves halal meat?", "halal"),
    ("Does {p} have anything gluten free for my son?", "gluten"),
    ("Are vegetarian meals available at {p}?", "vegetarian|vegan"),
    ("Is home delivery an option with {p}?", "deliver"),
    ("Can I order takeout from {p} tonight?", "take-?out|take ?away|to go"),
    ("Is there a highchair for our toddler at {p}?", "baby|babies|high ?chair|infant"),
    ("Does {p} offer wifi to customers?", "wi-?fi"),
    ("Does {p} ever have live music?", "live music"),
    ("Does {p} let guests BYOB?", "byob|bring (?:my|your) own"),
    ("Is {p} wheelchair friendly?", "wheelchair|accessib|disab"),
    ("What payment methods does {p} take?", "payment|credit|card"),
]
FAQ_HOTEL = [
    ("Is the front desk at {p} open all night?", "front desk|reception"),
    ("Does {p} take credit cards?", "payment|credit|card"),
    ("Are dogs allowed at {p}?", "pet|dog"),
    ("Does {p} have a fitness room?", "gym|fitness"),
    ("Can I go swimming at {p}?", "pool|swim"),
    ("Is there a washing machine at {p}?", "laundry"),
    ("Does {p} have an elevator?", "lift|elevator"),
    ("When do I have to leave my room at {p}?", "check.?out"),
    ("Does {p} offer airport transfers?", "shuttle|airport"),
    ("Can {p} hold my bags after I check out?", "luggage|baggage"),
    ("Can I order food to my room at {p}?", "room service"),
    ("Is there a smoking area at {p}?", "smok"),
    ("Do I have to pay for the internet at {p}?", "wi-?fi|internet"),
    ("What languages do the staff speak at {p}?", "language"),
    ("Is there a safe in the rooms at {p}?", "safe"),
    ("Can I get an extra bed at {p}?", "extra bed"),
    ("Is there a spa at {p}?", "\\bspa\\b"),
    ("Is there a concierge at {p}?", "concierge"),
    ("Do the rooms at {p} get cleaned every day?", "housekeeping|cleaned"),
    ("Is there a kettle in the room at {p}?", "coffee|tea"),
    ("How old do I have to be to check in at {p}?", "age|minimum"),
    ("Does {p} have meeting rooms?", "meeting|conference|banquet"),
    ("Do I need to pay a deposit at {p}?", "security deposit"),
    ("Can I bring my kids to {p}?", "child|\\bkids?\\b"),
    ("Until what time is reception staffed at {p}?", "front desk|reception"),
    ("Which credit cards does {p} accept?", "payment|credit|card"),
    ("Is {p} pet friendly?", "pet|dog"),
    ("Can I work out at {p}?", "gym|fitness"),
    ("Does {p} have a swimming pool?", "pool|swim"),
    ("Can I get my clothes washed at {p}?", "laundry|dry clean"),
    ("Is there an elevator in {p}?", "lift|elevator"),
    ("By when must I check out of {p}?", "check.?out"),
    ("Can {p} pick me up from the airport?", "shuttle|airport"),
    ("Is there somewhere to keep my suitcase at {p}?", "luggage|baggage"),
    ("Can I have breakfast brought to my room at {p}?", "room service"),
    ("Am I allowed to smoke in my room at {p}?", "smok"),
    ("Is there wifi in the rooms at {p}?", "wi-?fi|internet"),
    ("Does the staff at {p} speak Spanish?", "language"),
    ("Do the rooms at {p} have a safety deposit box?", "safe"),
    ("Is a rollaway bed available at {p}?", "extra bed"),
    ("Is there housekeeping every day at {p}?", "housekeeping|cleaned"),
    ("Is there a coffee maker in the rooms at {p}?", "coffee|tea"),
    ("Is there a conference room at {p}?", "meeting|conference|banquet"),
    ("Is someone at the desk of {p} around the clock?", "front desk|reception"),
    ("Can I pay by Mastercard at {p}?", "payment|credit|card"),
    ("Can my cat stay with me at {p}?", "pet|dog|cat"),
    ("Is there a gym I can use at {p}?", "gym|fitness"),
    ("Is there an indoor pool at {p}?", "pool|swim"),
    ("Is there a laundry service at {p}?", "laundry|dry clean"),
    ("Are there stairs only at {p} or is there a lift?", "lift|elevator"),
    ("What is the latest check-out time at {p}?", "check.?out"),
    ("Is there a shuttle bus from {p}?", "shuttle|airport"),
    ("Can I drop off my luggage early at {p}?", "luggage|baggage"),
    ("Can I get dinner in my room at {p}?", "room service"),
    ("Is {p} a non-smoking hotel?", "smok"),
    ("Is the internet free at {p}?", "wi-?fi|internet"),
    ("Does anyone at {p} speak French?", "language"),
    ("Where can I lock away my valuables at {p}?", "safe"),
    ("Can we add a cot or extra bed at {p}?", "extra bed"),
    ("How often are the rooms made up at {p}?", "housekeeping|cleaned"),
    ("Can I make tea in my room at {p}?", "coffee|tea"),
    ("Can I hold a business meeting at {p}?", "meeting|conference|banquet"),
    ("Is the gym at {p} free for guests?", "gym|fitness"),
    ("Does {p} have a spa?", "\\bspa\\b"),
    ("Do they have a concierge desk at {p}?", "concierge"),
    ("Is there an airport shuttle at {p}?", "shuttle|airport"),
    ("Does {p} offer laundry?", "laundry"),
    ("Is there a lift at {p} for my luggage?", "lift|elevator"),
    ("Where do I store luggage at {p}?", "luggage|baggage"),
    ("Is the front desk at {p} staffed at night?", "front desk|reception"),
    ("What languages does the staff at {p} speak?", "language"),
    ("Are children welcome at {p}?", "child|\\bkids?\\b"),
    ("Is there a minimum age at {p}?", "age|minimum"),
    ("Are there meeting facilities at {p}?", "meeting|conference|banquet"),
    ("Can I use the gym at {p} early in the morning?", "gym|fitness"),
    ("Is there a spa at {p} I could book?", "\\bspa\\b"),
    ("Can the concierge at {p} book a taxi?", "concierge"),
    ("Does {p} run a shuttle to the station?", "shuttle|airport"),
    ("Is there a laundry room at {p}?", "laundry"),
    ("Does {p} have a lift to the upper floors?", "lift|elevator"),
    ("Can I leave my luggage at {p} after checkout?", "luggage|baggage"),
    ("Is there a safety deposit box in the rooms at {p}?", "safe"),
    ("Which languages are spoken at {p}?", "language"),
    ("Is there a banquet hall at {p}?", "meeting|conference|banquet"),
]
REVIEW_RESTAURANT = [
    "Is the neighbourhood around {p} nice?",
    "Are the waiters at {p} friendly?",
    "Does {p} have a nice view?",
    "Is {p} good value for money?",
    "Is the atmosphere at {p} cosy?",
    "How is the wine selection at {p}?",
    "What is the service like at {p}?",
    "Is {p} a good place for a birthday dinner?",
    "How long do you usually wait for food at {p}?",
    "Is the music too loud at {p}?",
    "Are the desserts at {p} worth it?",
    "How are the cocktails at {p}?",
    "Is the vegetarian food at {p} any good?",
    "How is the live music at {p}, is it too loud?",
    "Can I bring a friend who is picky about food to {p}?",
    "Is the gluten free pasta at {p} tasty?",
    "Do people say the service at {p} is fast?",
    "Is the halal chicken at {p} tasty?",
    "Is the live music at {p} good?",
    "Would a wheelchair fit comfortably between the tables at {p}?",
    "Is the vegetarian curry at {p} worth ordering?",
    "Are the portions at {p} big?",
]
REVIEW_HOTEL = [
    "Is the neighbourhood around {p} nice?",
    "Are the staff at {p} friendly?",
    "Are the rooms at {p} clean?",
    "Is the breakfast at {p} tasty?",
    "Are the beds at {p} comfortable?",
    "Is the wifi at {p} fast?",
    "What is the location of {p} like?",
    "Is the bathroom at {p} clean?",
    "Is {p} noisy at night?",
    "How big are the rooms at {p}?",
    "Is {p} worth the price?",
    "How is the internet connection at {p}?",
    "Is the gym at {p} well equipped and clean?",
    "Is the front desk staff at {p} friendly?",
    "Can I hold a quiet conversation in the lobby of {p}?",
    "Are the rooms at {p} big enough for my luggage?",
    "How good is the breakfast at {p}?",
    "Is the gym at {p} busy in the evening?",
    "Is the room at {p} large enough for my luggage and a cot?",
    "Is the lift at {p} noisy at night?",
    "Is the wifi at {p} good enough for video calls?",
    "How is the view from the rooms at {p}?",
]


def probe_items(knowledge) -> list[tuple[str, str, str, set | None]]:
    """``(kind, template, question, keys of the matching FAQs or None)`` for every place each question fits."""
    items = []
    domains = (("restaurant", FAQ_RESTAURANT, REVIEW_RESTAURANT), ("hotel", FAQ_HOTEL, REVIEW_HOTEL))
    for domain, faqs, reviews in domains:
        for entity in sorted(e for e in knowledge.entity_names if e[0] == domain):
            snippets = list(knowledge.entity_snippets(*entity))
            name = knowledge.entity_names[entity].title()
            for template, pattern in faqs:
                hits = {s.key for s in snippets if s.doc_type == "faq" and re.search(pattern, s.title, re.I)}
                if hits:
                    items.append(("faq", template, template.format(p=name), hits))
            if any(s.doc_type != "faq" for s in snippets):
                items.extend(("review", template, template.format(p=name), None) for template in reviews)
    return items


def main() -> None:
    from dstc_probe import print_tally, print_verdict_changes, probe_parser, probed_grounder, save_answers

    args = probe_parser(__doc__.splitlines()[0], show=2).parse_args()
    grounder = probed_grounder(args)
    items = probe_items(grounder.knowledge)
    replies = grounder.respond_many([[question] for _, _, question, _ in items])
    rows = []
    for (kind, template, question, hits), reply in zip(items, replies, strict=True):
        if kind == "faq":
            ok = reply.knowledge_seeking and any(s.key in hits for s in reply.snippets)
        else:
            ok = reply.knowledge_seeking and any(s.doc_type != "faq" for s in reply.snippets)
        rows.append(
            {"kind": kind, "template": template, "question": question, "right": bool(ok), "response": reply.response}
        )
    print_tally(rows, lambda row: (row["kind"], row["template"]), lambda key: f"{key[0]:6s} | {key[1]}", args.show)
    for kind in ("faq", "review"):
        of_kind = [row for row in rows if row["kind"] == kind]
        print(f"{kind}: {sum(row['right'] for row in of_kind)} / {len(of_kind)} right")
    save_answers(args.out, rows)
    if args.compare:
        print_verdict_changes(rows, args.compare, lambda row: f" ({row['kind']})")


if __name__ == "__main__":
    main()
