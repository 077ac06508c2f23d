"""The service's settings and its request limits, and how they reach the processes of ``clarion serve --processes N``
(:func:`to_environment`, :func:`from_environment`)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from enum import Enum
from pathlib import Path

from clarion.bounds import MAX_TURN_CHARS, Bound, as_choice, check_fields
from clarion.data.location import cache_dir
from clarion.errors import InputError

MAX_TURNS = 50
"""Most turns in one conversation, sent or stored."""
MAX_BODY_BYTES = 4 * MAX_TURNS * MAX_TURN_CHARS + 64 * 1024
"""Largest request body (a conversation of the most turns, each of the longest text in 4-byte characters, and
room for the JSON around it); a larger one is refused before it is read to the end."""
EVAL_DB = Path("serve") / "eval.sqlite"
"""Where evaluation sessions, turns and ratings go unless ``--db`` says otherwise: this path under clarion's cache
directory (:func:`default_db`), never the working directory."""

CONFIG_VARIABLE = "CLARION_SERVE_CONFIG"
"""The environment variable that gives each process of ``clarion serve --processes N`` its settings (JSON)."""
TOKEN_VARIABLE = "CLARION_ADMIN_TOKEN"
"""The environment variable holding the admin token (not an option: a process's arguments are visible to all)."""


def default_db() -> Path:
    """The evaluation database used when none is given: ``<cache dir>/serve/eval.sqlite``."""
    return cache_dir() / EVAL_DB


class Feature(str, Enum):
    """What a server loads models for (each has its endpoint; ``/health`` lists the loaded ones)."""

    converse = "converse"
    clarify = "clarify"
    respond = "respond"
    replies = "replies"


DEFAULT_FEATURES = (Feature.converse, Feature.clarify)
"""What a server loads unless told otherwise; with a knowledge base, ``respond`` too."""

_BOUNDS = {
    "port": Bound("int", 0, 65_535),
    "workers": Bound("int", 1, 64),
    "processes": Bound("int", 1, 64),
    "batch": Bound("int", 1, 256),
    "threads": Bound("int", 1, 64),
}


@dataclass(frozen=True)
class ServeConfig:
    """How ``clarion serve`` runs: where it listens, what it loads, where it stores evaluations."""

    host: str = "127.0.0.1"
    port: int = 8000
    knowledge: Path | None = None
    """DSTC knowledge (``knowledge.json`` or its directory) for ``/v1/respond`` and the conversation engine."""
    documents: Path | None = None
    """A document collection the conversation engine answers from (instead of a knowledge base)."""
    db: Path | None = None
    """The evaluation database (default: :func:`default_db`)."""
    clariq_model: Path | None = None
    """ClariQ pipeline directory (default: the train+dev model, trained first when absent)."""
    dstc_model: Path | None = None
    """DSTC pipeline directory (default: the default model, trained first when absent)."""
    data_dir: Path | None = None
    features: tuple[Feature, ...] | None = None
    """Default: :data:`DEFAULT_FEATURES`, and ``respond`` when ``knowledge`` is given."""
    workers: int = 2
    """Threads that run model calls (off the event loop); requests beyond them wait their turn."""
    processes: int = 1
    """Server processes behind the one port (uvicorn's workers), each with its own models and ``workers`` threads."""
    batch: int = 16
    """Most concurrent ``/v1/converse`` (or ``/v1/clarify``) requests one model call takes (1: each alone)."""
    threads: int = 1
    """Torch threads per model call."""
    admin_token: str | None = field(default=None, repr=False)
    """Bearer token for ``GET /v1/eval/export``; without one that endpoint is off."""
    system: str = "clarion"
    """The name evaluation sessions record as the system being rated (compare configurations by it)."""

    def __post_init__(self) -> None:
        check_fields(self, _BOUNDS)
        if self.knowledge is not None and self.documents is not None:
            raise InputError("give --knowledge or --documents, not both")
        if not self.system.strip() or len(self.system) > 100:
            raise InputError(f"system must be a name of 1-100 characters, got {self.system!r}")
        if self.admin_token is not None and len(self.admin_token) < 16:
            raise InputError("the admin token must be at least 16 characters long")
        if self.db is None:
            object.__setattr__(self, "db", default_db())
        if self.features is None:
            with_knowledge = (Feature.respond,) if self.knowledge is not None else ()
            object.__setattr__(self, "features", DEFAULT_FEATURES + with_knowledge)
        object.__setattr__(self, "features", tuple(as_choice("features", Feature, f) for f in self.features))


def to_environment(config: ServeConfig) -> str:
    """``config`` as the JSON :func:`from_environment` reads, without the admin token (the processes read it from
    :data:`TOKEN_VARIABLE`, where ``clarion serve`` found it: never written to a file or another variable)."""
    values = {k: v for k, v in asdict(config).items() if k != "admin_token"}
    values["features"] = [f.value for f in config.features]
    return json.dumps({k: str(v) if isinstance(v, Path) else v for k, v in values.items()})


def from_environment(environ: Mapping[str, str] = os.environ) -> ServeConfig:
    """The config :func:`to_environment` wrote to :data:`CONFIG_VARIABLE`, with the token of :data:`TOKEN_VARIABLE`."""
    text = environ.get(CONFIG_VARIABLE)
    if not text:
        raise InputError(f"{CONFIG_VARIABLE} is not set: start the processes with clarion serve --processes N")
    try:
        values = json.loads(text)
        paths = {f.name for f in fields(ServeConfig) if "Path" in str(f.type)}
        values = {k: Path(v) if k in paths and v is not None else v for k, v in values.items()}
        return ServeConfig(**values, admin_token=environ.get(TOKEN_VARIABLE) or None)
    except (ValueError, TypeError) as err:
        raise InputError(f"{CONFIG_VARIABLE} does not hold clarion serve's settings ({err})") from None
