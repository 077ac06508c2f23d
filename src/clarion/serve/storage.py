"""Evaluation records in SQLite: sessions (who rated which system on which need), turns, ratings.

One file, WAL journal, ``synchronous=FULL``: every write is its own committed transaction, so a server killed at
any moment keeps every turn and rating it acknowledged. Safe to share between threads (one connection, one lock)
and between processes on one host (``clarion serve --processes N``, replicas sharing ``--db``): WAL lets readers
and one writer work at once; a write is one short ``BEGIN IMMEDIATE`` transaction that checks the session's state
and writes (so a finish stored by another process is seen), and a writer waits up to :data:`BUSY_TIMEOUT` seconds
for the others. Not on a network file system, whose locks SQLite cannot trust.

Tables: ``sessions`` (id, system, need kind/id/level/text, start and finish times, the dialogue's 1-5 rating,
whether the evaluator got what they needed, a comment), ``turns`` (session, index, role, text, the system's decision
as JSON, its latency) and ``turn_ratings`` (session, index of a system turn, useful, natural).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from clarion.errors import ClarionError, DataError, InputError

SCHEMA_VERSION = 1
BUSY_TIMEOUT = 30.0
"""Seconds a statement waits for another connection's write lock (a write takes milliseconds: only a stalled disk
makes anyone wait that long) before :class:`Busy`."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    system TEXT NOT NULL,
    need_kind TEXT NOT NULL,
    need_id TEXT NOT NULL,
    need_level TEXT NOT NULL,
    need_text TEXT NOT NULL,
    started REAL NOT NULL,
    finished REAL,
    rating INTEGER CHECK (rating BETWEEN 1 AND 5),
    satisfied INTEGER CHECK (satisfied IN (0, 1)),
    comment TEXT
);
CREATE TABLE IF NOT EXISTS turns (
    session_id TEXT NOT NULL REFERENCES sessions(id),
    idx INTEGER NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('user', 'system')),
    text TEXT NOT NULL,
    decision TEXT,
    latency_ms REAL,
    created REAL NOT NULL,
    PRIMARY KEY (session_id, idx)
);
CREATE TABLE IF NOT EXISTS turn_ratings (
    session_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    useful INTEGER NOT NULL CHECK (useful IN (0, 1)),
    natural INTEGER NOT NULL CHECK (natural IN (0, 1)),
    created REAL NOT NULL,
    PRIMARY KEY (session_id, idx),
    FOREIGN KEY (session_id, idx) REFERENCES turns(session_id, idx)
);
"""


class Conflict(InputError):
    """A request that does not fit the session's state (finished, unknown turn, too many turns): HTTP 409."""


class NotFound(InputError):
    """No such session: HTTP 404."""


class Busy(ClarionError):
    """The database stayed locked by other writers for :data:`BUSY_TIMEOUT` seconds: HTTP 503 (try again)."""


class EvalStore:
    """The evaluation database at ``path`` (created with its tables when absent)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._lock = threading.Lock()
        try:
            if self.path.is_dir():
                raise DataError(self.path, "is a directory, not a database file")
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, BUSY_TIMEOUT, check_same_thread=False, isolation_level=None)
            self._set_up()
        except sqlite3.DatabaseError as err:
            raise DataError(self.path, f"not a usable SQLite database ({err})") from None
        except OSError as err:
            raise DataError(self.path, f"cannot open: {err.strerror}") from None

    def _set_up(self) -> None:
        """WAL, the tables, the schema version. Processes opening one new file at once can get SQLITE_BUSY here
        without SQLite's busy wait (switching to WAL, recovering another's WAL): then try again, up to
        :data:`BUSY_TIMEOUT`."""
        deadline = time.monotonic() + BUSY_TIMEOUT
        while True:
            try:
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=FULL")
                self._db.execute("PRAGMA foreign_keys=ON")
                self._db.executescript(SCHEMA)
                self._check_version()
                return
            except (sqlite3.OperationalError, Busy) as err:
                if not _is_busy(err) or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def _check_version(self) -> None:
        with self._transaction() as db:  # processes opening a new file at once: the first one's row stays
            db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if row[0] != str(SCHEMA_VERSION):
            raise DataError(self.path, f"evaluation schema {row[0]}, this clarion reads {SCHEMA_VERSION}")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One short write transaction: the write lock is taken at its start (``BEGIN IMMEDIATE``, waiting for
        other processes' writes), so what it reads is what it writes over; committed at the end, rolled back on
        any error."""
        with self._lock, _busy():
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _write(self, sql: str, args: tuple) -> None:
        with self._transaction() as db:
            db.execute(sql, args)

    def _rows(self, sql: str, args: tuple = (), db: sqlite3.Connection | None = None) -> list[dict[str, Any]]:
        if db is not None:  # inside a transaction, which holds the lock
            cursor = db.execute(sql, args)
            names = [c[0] for c in cursor.description]
            return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
        with self._lock, _busy():
            return self._rows(sql, args, self._db)

    def start(self, system: str, need: dict[str, Any]) -> str:
        """A new session rating ``system`` on ``need`` (kind, id, level, text); its id."""
        session = uuid.uuid4().hex
        self._write(
            "INSERT INTO sessions (id, system, need_kind, need_id, need_level, need_text, started) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (session, system, need["kind"], need["id"], str(need["level"]), need["text"], time.time()),
        )
        return session

    def session(self, session: str, db: sqlite3.Connection | None = None) -> dict[str, Any]:
        rows = self._rows("SELECT * FROM sessions WHERE id = ?", (session,), db)
        if not rows:
            raise NotFound(f"session {session!r} does not exist")
        return rows[0]

    def turns(self, session: str) -> list[dict[str, Any]]:
        return self._rows("SELECT * FROM turns WHERE session_id = ? ORDER BY idx", (session,))

    def open_session(self, session: str, db: sqlite3.Connection | None = None) -> dict[str, Any]:
        """The session, unless it is unknown (:class:`NotFound`) or finished (:class:`Conflict`); ``db``: read in
        that transaction."""
        row = self.session(session, db)
        if row["finished"] is not None:
            raise Conflict(f"session {session!r} is finished")
        return row

    def add_turn(
        self, session: str, index: int, role: str, text: str, decision: dict | None = None, latency_ms=None
    ) -> None:
        """Store turn ``index`` of ``session`` (committed before this returns)."""
        shown = None if decision is None else json.dumps(decision)
        try:
            with self._transaction() as db:
                self.open_session(session, db)
                db.execute(
                    "INSERT INTO turns (session_id, idx, role, text, decision, latency_ms, created) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (session, index, role, text, shown, latency_ms, time.time()),
                )
        except sqlite3.IntegrityError:
            raise Conflict(f"session {session!r} already has a turn {index} (send one turn at a time)") from None

    def drop_turn(self, session: str, index: int) -> None:
        """Take back turn ``index`` (a user turn the engine refused or failed on; it has no rating)."""
        self._write("DELETE FROM turns WHERE session_id = ? AND idx = ?", (session, index))

    def rate_turn(self, session: str, index: int, useful: bool, natural: bool) -> None:
        """Rate system turn ``index`` (a second rating of it replaces the first)."""
        with self._transaction() as db:
            self.open_session(session, db)
            rows = self._rows("SELECT role FROM turns WHERE session_id = ? AND idx = ?", (session, index), db)
            if not rows or rows[0]["role"] != "system":
                raise Conflict(f"session {session!r} has no system turn {index} to rate")
            db.execute(
                "INSERT INTO turn_ratings VALUES (?, ?, ?, ?, ?) ON CONFLICT (session_id, idx) DO UPDATE SET "
                "useful = excluded.useful, natural = excluded.natural, created = excluded.created",
                (session, index, int(useful), int(natural), time.time()),
            )

    def finish(self, session: str, rating: int, satisfied: bool, comment: str = "") -> None:
        """Close ``session`` with the dialogue's rating; no turn or rating is taken after it."""
        with self._transaction() as db:
            self.open_session(session, db)
            db.execute(
                "UPDATE sessions SET finished = ?, rating = ?, satisfied = ?, comment = ? WHERE id = ?",
                (time.time(), rating, int(satisfied), comment, session),
            )

    def need_counts(self, system: str) -> dict[str, int]:
        """Sessions per need id for ``system`` (to give evaluators the least-covered needs)."""
        rows = self._rows("SELECT need_id, COUNT(*) AS n FROM sessions WHERE system = ? GROUP BY need_id", (system,))
        return {row["need_id"]: row["n"] for row in rows}

    def record(self, session: str) -> dict[str, Any] | None:
        """One session as :meth:`export` gives it; None when it does not exist."""
        return next(self.export(session), None)

    def export(self, session: str | None = None) -> Iterator[dict[str, Any]]:
        """Every session (or only ``session``) as one record: its fields, its turns (each system turn with its
        decision and rating)."""
        where, args = ("WHERE session_id = ?", (session,)) if session else ("", ())
        ratings = {
            (r["session_id"], r["idx"]): {"useful": bool(r["useful"]), "natural": bool(r["natural"])}
            for r in self._rows(f"SELECT * FROM turn_ratings {where}", args)
        }
        turns: dict[str, list[dict]] = {}
        for t in self._rows(f"SELECT * FROM turns {where} ORDER BY session_id, idx", args):
            record = {"index": t["idx"], "role": t["role"], "text": t["text"]}
            if t["role"] == "system":
                record["decision"] = None if t["decision"] is None else json.loads(t["decision"])
                record["latency_ms"] = t["latency_ms"]
                record["rating"] = ratings.get((t["session_id"], t["idx"]))
            turns.setdefault(t["session_id"], []).append(record)
        where = "WHERE id = ?" if session else ""
        for s in self._rows(f"SELECT * FROM sessions {where} ORDER BY started, id", args):
            yield {
                "session_id": s["id"],
                "system": s["system"],
                "need": {"kind": s["need_kind"], "id": s["need_id"], "level": s["need_level"], "text": s["need_text"]},
                "started": s["started"],
                "finished": s["finished"],
                "rating": s["rating"],
                "satisfied": None if s["satisfied"] is None else bool(s["satisfied"]),
                "comment": s["comment"],
                "turns": turns.get(s["id"], []),
            }


@contextmanager
def _busy() -> Iterator[None]:
    """A lock other writers held past :data:`BUSY_TIMEOUT` becomes :class:`Busy` (HTTP 503), not a 500."""
    try:
        yield
    except sqlite3.OperationalError as err:
        if not _is_busy(err):
            raise
        raise Busy(f"the evaluation database stayed locked for {BUSY_TIMEOUT:.0f} s ({err}); try again") from None


def _is_busy(err: Exception) -> bool:
    return isinstance(err, Busy) or "locked" in str(err) or "busy" in str(err)
