"""The evaluation database, `clarion eval export` / `clarion eval report`, and `clarion serve`'s option checks."""

from __future__ import annotations

import json
import sqlite3

import pytest
from typer.testing import CliRunner

from clarion.cli import app
from clarion.errors import DataError, InputError
from clarion.serve.report import estimate, report
from clarion.serve.storage import Conflict, EvalStore, NotFound

NEED = {"kind": "clariq", "id": "F0001", "level": "3", "text": "Find pictures of hip roofs."}


def _dialogue(store, system="clarion", need=NEED, rating=4, satisfied=True, useful=(True, False), finish=True):
    session = store.start(system, need)
    for i, good in enumerate(useful):
        store.add_turn(session, 2 * i, "user", f"user turn {i}")
        store.add_turn(session, 2 * i + 1, "system", f"system turn {i}", {"action": "clarify", "text": "?"}, 12.5)
        store.rate_turn(session, 2 * i + 1, good, True)
    if finish:
        store.finish(session, rating, satisfied)
    return session


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "eval.sqlite"
    store = EvalStore(path)
    for rating, satisfied in ((3, True), (4, False), (5, True)):
        _dialogue(store, rating=rating, satisfied=satisfied)
    _dialogue(store, need={**NEED, "id": "F0002", "level": "2"}, rating=2, satisfied=False, useful=(False,))
    _dialogue(store, finish=False)
    store.close()
    return path


def test_the_database_is_wal_and_checks_what_it_stores(tmp_path):
    store = EvalStore(tmp_path / "new" / "eval.sqlite")  # the directory is made
    assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    session = store.start("clarion", NEED)
    store.add_turn(session, 0, "user", "hi")
    with pytest.raises(Conflict, match="already has a turn 0"):
        store.add_turn(session, 0, "user", "hi again")
    with pytest.raises(Conflict, match="no system turn 0"):
        store.rate_turn(session, 0, True, True)
    with pytest.raises(NotFound):
        store.finish("f" * 32, 3, True)
    store.finish(session, 3, True)
    with pytest.raises(Conflict, match="finished"):
        store.add_turn(session, 1, "system", "late")
    store.close()


def test_a_file_that_is_not_an_evaluation_database_is_one_line(tmp_path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(DataError, match="not a usable SQLite database"):
        EvalStore(junk)
    with pytest.raises(DataError, match="is a directory"):
        EvalStore(tmp_path)
    newer = tmp_path / "newer.sqlite"
    EvalStore(newer).close()
    with sqlite3.connect(newer) as other:
        other.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    with pytest.raises(DataError, match="schema 99"):
        EvalStore(newer)


def test_estimate_is_the_t_interval():
    got = estimate([3.0, 4.0, 5.0])
    assert got.mean == 4.0 and got.n == 3
    assert got.high - got.mean == pytest.approx(4.302653 * 1.0 / 3**0.5, rel=1e-6)  # t(0.975, 2) * sd / sqrt(n)
    assert estimate([2.0]).low is None and estimate([]).mean is None


def test_report_groups_by_system_and_need_level(db):
    store = EvalStore(db)
    rows = {(r["system"], r["need_kind"], r["need_level"]): r for r in report(store.export())}
    store.close()
    level3 = rows[("clarion", "clariq", "3")]
    assert level3["dialogues"] == 3 and level3["unfinished"] == 1
    assert level3["rating"].mean == 4.0 and level3["satisfied"].mean == pytest.approx(2 / 3)
    assert level3["useful"].mean == 0.5 and level3["natural"].mean == 1.0  # per dialogue: 1 of 2 turns useful
    assert (
        rows[("clarion", "clariq", "2")]["rating"].mean == 2.0
        and rows[("clarion", "clariq", "2")]["rating"].low is None
    )
    everything = rows[("clarion", "all", "all")]
    assert everything["dialogues"] == 4 and everything["rating"].mean == 3.5


def test_eval_export_writes_one_line_per_session(db, tmp_path):
    out = tmp_path / "out" / "sessions.jsonl"
    result = CliRunner().invoke(app, ["eval", "export", "--db", str(db), "--out", str(out)])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 5 and "5 sessions written" in result.output
    first = records[0]
    assert first["need"] == NEED and first["rating"] == 3 and [t["index"] for t in first["turns"]] == [0, 1, 2, 3]
    assert first["turns"][1]["rating"] == {"useful": True, "natural": True} and "rating" not in first["turns"][0]


def test_eval_report_prints_a_table_and_json(db):
    result = CliRunner().invoke(app, ["eval", "report", "--db", str(db)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "4.00 [1.52, 6.48]" in result.output  # ratings 3, 4, 5: the t interval
    rows = json.loads(CliRunner().invoke(app, ["eval", "report", "--db", str(db), "--json"]).stdout)
    assert rows[0]["rating"] == {
        "mean": 3.5,
        "low": pytest.approx(1.4457, abs=1e-3),
        "high": pytest.approx(5.5543, abs=1e-3),
        "n": 4,
    }


@pytest.mark.parametrize(
    "args, words",
    [
        (["eval", "report", "--db", "missing.sqlite"], "no such evaluation database"),
        (["eval", "export", "--db", "missing.sqlite", "--out", "x.jsonl"], "no such evaluation database"),
        (["serve", "--knowledge", "missing-dir"], "no such file or directory"),
        (["serve", "--workers", "0"], "ServeConfig.workers must be int in [1, 64]"),
        (["serve", "--processes", "0"], "ServeConfig.processes must be int in [1, 64]"),
        (["serve", "--port", "70000"], "ServeConfig.port"),
        (["serve", "--feature", "teleport"], "teleport"),
    ],
)
def test_mistakes_are_one_line_and_exit_2(args, words, tmp_path, monkeypatch, capsys):
    from clarion.cli import main

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        main(args)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and words in err and err.count("\n") == 1, err


def test_serve_config_refusals():
    from clarion.serve import ServeConfig

    with pytest.raises(InputError, match="not both"):
        ServeConfig(knowledge="a", documents="b")
    with pytest.raises(InputError, match="at least 16"):
        ServeConfig(admin_token="short")
    with pytest.raises(InputError, match="features must be one of"):
        ServeConfig(features=("converse", "dance"))
    assert [f.value for f in ServeConfig().features] == ["converse", "clarify"]
    assert [f.value for f in ServeConfig(knowledge="kb.json").features] == ["converse", "clarify", "respond"]
    assert [f.value for f in ServeConfig(features=["respond"]).features] == ["respond"]


def test_the_evaluation_database_defaults_to_the_cache_and_serve_says_where(db, tmp_path, monkeypatch, capsys):
    """Not the working directory: <cache>/serve/eval.sqlite, printed before the server starts; `clarion eval` reads
    the same file when no --db is given."""
    import shutil

    from clarion.cli import main
    from clarion.cli import serve as serve_cli
    from clarion.serve import ServeConfig

    cache = tmp_path / "cache"
    monkeypatch.setenv("CLARION_CACHE_DIR", str(cache))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert ServeConfig().db == cache / "serve" / "eval.sqlite"

    import uvicorn

    monkeypatch.setattr(serve_cli, "_loaded", lambda config: None)  # no models, and no server, in this test
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: None)
    main(["serve"])
    assert f"evaluation records: {cache / 'serve' / 'eval.sqlite'}" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["eval", "report"])
    assert exit_.value.code == 2 and "no such evaluation database" in capsys.readouterr().err
    (cache / "serve").mkdir(parents=True)
    shutil.copy(db, cache / "serve" / "eval.sqlite")
    result = CliRunner().invoke(app, ["eval", "report", "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)[0]["dialogues"] == 4, result.output
    assert list(work.iterdir()) == []
