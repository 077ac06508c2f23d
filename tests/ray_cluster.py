"""A pytest plugin: ``ray_cluster``, a two-node Ray cluster on loopback for the test session (head and worker node,
one CPU each), stopped afterwards even when a test fails; and ``by_value``, which ships a test module's functions
to the workers (they cannot import the tests).

Both nodes bind to 127.0.0.2 (Ray rewrites 127.0.0.1 to the machine's address), usage reporting is off and there
is no dashboard. Each node runs ``ray start --block`` as a child process; terminating it stops that node's Ray
processes, so nothing is left behind and no other Ray instance on the machine is touched (no ``ray stop``).
"""

from __future__ import annotations

import importlib.util
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

LOOPBACK = "127.0.0.2"
START_SECONDS = 60

# `ray start` turns token authentication on, and Ray reads RAY_AUTH_MODE once, when imported: set for the whole
# session, so that a driver connects whichever test imported Ray first (a local --workers cluster works with it too).
# Since Ray 2.60 `ray start --head` no longer writes a token when none exists: the session's nodes and drivers share
# one of their own, never written to ~/.ray.
os.environ.setdefault("RAY_AUTH_MODE", "token")
os.environ.setdefault("RAY_AUTH_TOKEN", secrets.token_hex(32))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind((LOOPBACK, 0))
        return sock.getsockname()[1]


def _ray_env() -> dict[str, str]:
    src = str(Path(__file__).resolve().parents[1] / "src")
    path = os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "token", "PYTHONPATH": path}


def _start(args: list[str], log: Path) -> subprocess.Popen:
    ray = Path(sys.executable).with_name("ray")
    command = [str(ray), "start", "--block", "--node-ip-address", LOOPBACK, "--num-cpus", "1"]
    command += ["--disable-usage-stats", "--object-store-memory", str(100 * 1024**2), *args]
    return subprocess.Popen(command, env=_ray_env(), stdout=log.open("w"), stderr=subprocess.STDOUT)


def _stop(node: subprocess.Popen) -> None:
    if node.poll() is None:
        node.send_signal(signal.SIGTERM)
        try:
            node.wait(30)
        except subprocess.TimeoutExpired:
            node.kill()
            node.wait(10)


def _wait_for_log(node: subprocess.Popen, log: Path) -> None:
    """Until the node says it runs (``ray start`` logs "Ray runtime started")."""
    deadline = time.monotonic() + START_SECONDS
    while "Ray runtime started" not in log.read_text():
        if node.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"a Ray node did not start: {log.read_text()[-2000:]}")
        time.sleep(0.2)


def _wait_for_nodes(address: str, count: int) -> None:
    """Until ``count`` nodes are alive (checked in a child process, so that this one never imports Ray)."""
    check = (
        "import ray, sys; ray.init(address=sys.argv[1], log_to_driver=False, logging_level='ERROR'); "
        "n = sum(node['Alive'] for node in ray.nodes()); ray.shutdown(); sys.exit(0 if n >= int(sys.argv[2]) else 1)"
    )
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        done = subprocess.run([sys.executable, "-c", check, address, str(count)], env=_ray_env(), capture_output=True)
        if done.returncode == 0:
            return
        time.sleep(1)
    raise RuntimeError(f"the Ray cluster at {address} did not reach {count} nodes in {START_SECONDS} s")


@pytest.fixture(scope="session")
def ray_cluster():
    """The address (host:port) of a running two-node cluster; the environment variables a driver needs are set
    for the session (token authentication, no usage report)."""
    if importlib.util.find_spec("ray") is None:  # not imported here: Ray reads RAY_AUTH_MODE when imported
        pytest.skip("Ray is not installed (pip install clarion[ray])")
    temp = Path(tempfile.mkdtemp(prefix="r", dir="/tmp"))  # short: Ray's socket paths live under it
    address = f"{LOOPBACK}:{_free_port()}"
    nodes: list[subprocess.Popen] = []
    saved = {k: os.environ.get(k) for k in ("RAY_USAGE_STATS_ENABLED", "RAY_AUTH_MODE", "PYTHONPATH")}
    os.environ.update({k: _ray_env()[k] for k in saved})
    try:
        head = ["--head", "--port", address.split(":")[1], "--include-dashboard=false", "--temp-dir", str(temp)]
        nodes.append(_start(head, temp / "head.log"))
        _wait_for_log(nodes[0], temp / "head.log")
        nodes.append(_start(["--address", address], temp / "worker.log"))
        _wait_for_log(nodes[1], temp / "worker.log")
        _wait_for_nodes(address, 2)
        yield address
    finally:
        for node in reversed(nodes):
            _stop(node)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        shutil.rmtree(temp, ignore_errors=True)


@pytest.fixture
def by_value():
    """``by_value(module, ...)``: Ray workers receive these modules' functions by value, not by import. Ray is
    imported when it is called, so call it after ``ray_cluster`` is set up (Ray reads RAY_AUTH_MODE on import)."""
    registered = []

    def register(*modules) -> None:
        from ray import cloudpickle  # Ray pickles with its own copy

        for module in modules:
            cloudpickle.register_pickle_by_value(module)
            registered.append(module)

    yield register
    if registered:
        from ray import cloudpickle
    for module in registered:
        cloudpickle.unregister_pickle_by_value(module)
