"""Several server processes on one evaluation database (``clarion serve --processes N``, or replicas on one host):
every process's sessions, turns, ratings and finishes are stored, none lost, no "database is locked"."""

from __future__ import annotations

import multiprocessing
import sqlite3

import pytest

from clarion.serve.storage import Conflict, EvalStore

NEED = {"kind": "clariq", "id": "F0001", "level": "3", "text": "Find pictures of hip roofs."}
PROCESSES = 4
DIALOGUES = 15
"""Dialogues each process writes: a session, two user and two system turns, two ratings, a finish (8 writes)."""


def _writer(path: str, start, name: str, done) -> None:
    """One process: opens the (perhaps not yet created) database at the same moment as the others, then writes."""
    try:
        start.wait()
        store = EvalStore(path)
        for n in range(DIALOGUES):
            session = store.start(name, {**NEED, "id": f"{name}-{n}"})
            for i in range(2):
                store.add_turn(session, 2 * i, "user", f"{name} asks {n}.{i}")
                store.add_turn(session, 2 * i + 1, "system", f"{name} answers {n}.{i}", {"action": "clarify"}, 1.0)
                store.rate_turn(session, 2 * i + 1, True, i == 0)
            store.finish(session, 1 + n % 5, True)
        store.close()
        done.put((name, None))
    except BaseException as err:  # reported to the test, which names it
        done.put((name, f"{type(err).__name__}: {err}"))


def _count(db, sql: str) -> int:
    with sqlite3.connect(db) as other:
        return other.execute(sql).fetchone()[0]


def test_several_processes_write_one_database_and_lose_nothing(tmp_path):
    db = tmp_path / "shared" / "eval.sqlite"  # created by whichever process comes first
    spawn = multiprocessing.get_context("spawn")  # as uvicorn starts its worker processes
    start, done = spawn.Barrier(PROCESSES), spawn.Queue()
    names = [f"p{i}" for i in range(PROCESSES)]
    workers = [spawn.Process(target=_writer, args=(str(db), start, name, done)) for name in names]
    for worker in workers:
        worker.start()
    outcomes = dict(done.get(timeout=120) for _ in workers)
    for worker in workers:
        worker.join(timeout=30)
    assert outcomes == dict.fromkeys(names), outcomes
    sessions = PROCESSES * DIALOGUES
    assert _count(db, "SELECT COUNT(*) FROM sessions WHERE finished IS NOT NULL") == sessions
    assert _count(db, "SELECT COUNT(DISTINCT need_id) FROM sessions") == sessions
    assert _count(db, "SELECT COUNT(*) FROM turns") == 4 * sessions
    assert _count(db, "SELECT COUNT(*) FROM turn_ratings") == 2 * sessions
    assert _count(db, "SELECT COUNT(*) FROM meta") == 1
    store = EvalStore(db)
    assert sum(len(record["turns"]) for record in store.export()) == 4 * sessions
    store.close()


def test_a_finish_from_another_process_closes_the_session_for_this_one(tmp_path):
    """The session's state is checked in the transaction that writes: a process whose view is older than another's
    finish cannot add a turn or a rating after it."""
    db = tmp_path / "eval.sqlite"
    here, there = EvalStore(db), EvalStore(db)
    session = here.start("clarion", NEED)
    here.add_turn(session, 0, "user", "hi")
    here.add_turn(session, 1, "system", "hello", {"action": "clarify"})
    there.finish(session, 4, True)
    with pytest.raises(Conflict, match="finished"):
        here.add_turn(session, 2, "user", "late")
    with pytest.raises(Conflict, match="finished"):
        here.rate_turn(session, 1, True, True)
    with pytest.raises(Conflict, match="finished"):
        here.finish(session, 2, False)
    assert _count(db, "SELECT COUNT(*) FROM turns") == 2 and _count(db, "SELECT rating FROM sessions") == 4
    here.close()
    there.close()


def test_a_database_locked_too_long_is_busy_not_a_crash(tmp_path, monkeypatch):
    from clarion.serve import storage
    from clarion.serve.limits import status_of

    db = tmp_path / "eval.sqlite"
    EvalStore(db).close()
    monkeypatch.setattr(storage, "BUSY_TIMEOUT", 0.2)
    store = EvalStore(db)
    with sqlite3.connect(db, isolation_level=None) as other:
        other.execute("BEGIN IMMEDIATE")  # another process holding the write lock
        with pytest.raises(storage.Busy, match="stayed locked") as busy:
            store.start("clarion", NEED)
        other.execute("ROLLBACK")
    assert status_of(busy.value) == 503
    assert store.start("clarion", NEED)  # and writes again once the lock is gone
    store.close()
