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


# ------------------------------------------------------------------------------------- clarion serve --processes N


def test_the_settings_reach_the_processes_through_the_environment_without_the_token(tmp_path):
    from pathlib import Path

    from clarion.errors import InputError
    from clarion.serve.config import CONFIG_VARIABLE, TOKEN_VARIABLE, ServeConfig, from_environment, to_environment

    config = ServeConfig(port=8123, knowledge=Path("kb.json"), db=tmp_path / "e.sqlite", processes=3, workers=1)
    config = ServeConfig(**{**config.__dict__, "admin_token": "a-token-of-sixteen+", "system": "mine"})
    written = to_environment(config)
    assert "a-token-of-sixteen+" not in written
    assert from_environment({CONFIG_VARIABLE: written, TOKEN_VARIABLE: "a-token-of-sixteen+"}) == config
    assert from_environment({CONFIG_VARIABLE: written}).admin_token is None
    with pytest.raises(InputError, match="CLARION_SERVE_CONFIG is not set"):
        from_environment({})
    with pytest.raises(InputError, match="does not hold"):
        from_environment({CONFIG_VARIABLE: '{"colour": "blue"}'})


@pytest.mark.parametrize("processes", [1, 2])
def test_serve_runs_uvicorn_in_one_process_or_as_its_workers(processes, tmp_path, monkeypatch):
    """One process: the app with the models loaded here. N: uvicorn's workers, each building the app from the
    factory's import string and the settings in the environment."""
    import os

    import uvicorn

    from clarion.cli import main
    from clarion.cli import serve as serve_cli
    from clarion.serve.app import FACTORY
    from clarion.serve.config import CONFIG_VARIABLE, from_environment

    calls = []

    def run(app, **options):
        calls.append((app, options, os.environ.get(CONFIG_VARIABLE) and from_environment()))

    monkeypatch.setattr(serve_cli, "_loaded", lambda config: None)
    monkeypatch.setattr(uvicorn, "run", run)
    monkeypatch.setenv("CLARION_ADMIN_TOKEN", "a-token-of-sixteen+")
    main(["serve", "--port", "8123", "--processes", str(processes), "--db", str(tmp_path / "e.sqlite")])
    [(app, options, config)] = calls
    assert options["workers"] == processes and options["port"] == 8123
    if processes == 1:
        assert not isinstance(app, str) and config is None
    else:
        assert app == FACTORY and options["factory"] is True
        assert config.processes == 2 and config.db == tmp_path / "e.sqlite"
        assert config.admin_token == "a-token-of-sixteen+"
    assert CONFIG_VARIABLE not in os.environ  # taken back once the server stops


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _children(pid: int) -> list[str]:
    """The command lines of ``pid``'s child processes (Linux)."""
    from pathlib import Path

    listed = Path(f"/proc/{pid}/task/{pid}/children")
    pids = listed.read_text().split() if listed.exists() else []
    return [Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ").decode() for child in pids]


def test_clarion_serve_with_two_processes_answers_on_one_port_and_stores_every_session(saved, tmp_path):
    """A real `clarion serve --processes 2` on 127.0.0.1 (the tiny DSTC model: each process loads it in seconds)."""
    import os
    import signal
    import subprocess
    import sys
    from concurrent.futures import ThreadPoolExecutor

    import httpx

    model, data = saved
    db, port = tmp_path / "eval.sqlite", _free_port()
    options = ["--feature", "respond", "--dstc-model", str(model), "--knowledge", str(data), "--workers", "1"]
    command = [sys.executable, "-m", "clarion", "serve", "--port", str(port), "--processes", "2", "--db", str(db)]
    log = (tmp_path / "serve.log").open("w")
    server = subprocess.Popen([*command, *options], stdout=log, stderr=subprocess.STDOUT, env=os.environ.copy())
    base = f"http://127.0.0.1:{port}"
    try:
        health = _wait_for_health(base, server, tmp_path / "serve.log")
        assert health["processes"] == 2 and health["features"] == ["respond"]
        assert sum("spawn_main" in line for line in _children(server.pid)) == 2, _children(server.pid)
        turns = [{"role": "user", "text": "Is the ALPHA LODGE quiet at night?"}]

        def start(_):
            return httpx.post(f"{base}/v1/eval/sessions", json={"kind": "dstc"}, timeout=30).status_code

        with ThreadPoolExecutor(6) as pool:
            statuses = list(pool.map(start, range(24)))
        assert statuses == [200] * 24
        assert httpx.post(f"{base}/v1/respond", json={"turns": turns}, timeout=30).json()["target"] is True
        assert _count(db, "SELECT COUNT(*) FROM sessions") == 24
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()
    assert server.returncode == 0, (tmp_path / "serve.log").read_text()[-2000:]


def _wait_for_health(base: str, server, log, seconds: float = 120) -> dict:
    import time

    import httpx

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"clarion serve stopped ({server.returncode}):\n{log.read_text()[-2000:]}")
        try:
            return httpx.get(f"{base}/health", timeout=5).json()
        except httpx.HTTPError:
            time.sleep(0.5)
    raise AssertionError(f"no /health within {seconds} s:\n{log.read_text()[-2000:]}")
