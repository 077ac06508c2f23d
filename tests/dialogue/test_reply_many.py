"""``Assistant.reply_many``: the decisions ``reply`` gives one at a time, the need model asked once per request,
and one engine shared by threads."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

CONVERSATIONS = [
    [{"role": "user", "text": "Tell me about hip roof design."}],
    [{"role": "user", "text": "What is the capital of France?"}],
    [
        {"role": "user", "text": "Tell me about hip roof design."},
        {"role": "system", "text": "Are you interested in more than one hip roof design?"},
        {"role": "user", "text": "no, I just want pictures of one"},
    ],
    [
        {"role": "user", "text": "Tell me about hip roof design."},
        {"role": "system", "text": "Would you like to see pictures of hip roofs?"},
        {"role": "user", "text": "yes"},
    ],
    [{"role": "user", "text": "thanks, bye"}],
]


def test_reply_many_gives_reply_s_decisions(make_assistant):
    one_by_one = [make_assistant().reply(turns) for turns in CONVERSATIONS]
    assistant = make_assistant()
    assert assistant.reply_many(CONVERSATIONS) == one_by_one
    assert assistant.clarifier.calls == 2  # two distinct requests need the need model; the closing turn none
    assert assistant.reply_many([]) == []


def test_one_engine_shared_by_threads_decides_as_alone(make_assistant):
    alone = [make_assistant().reply(turns) for turns in CONVERSATIONS]
    assistant = make_assistant()
    with ThreadPoolExecutor(8) as pool:
        shared = list(pool.map(assistant.reply, CONVERSATIONS * 20))
    assert shared == alone * 20
