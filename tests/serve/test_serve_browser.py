"""End to end in a real browser: Debian's chromium, driven by playwright, against a server on 127.0.0.1.

An evaluator opens /eval, chats three turns, rates each reply, rates the dialogue and finishes; the ratings are then
read back from the SQLite file. Every request the pages make is watched: none may leave 127.0.0.1 (the pages work
offline). Never `playwright install`: .ci/run installs the chromium package.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def server(services, tmp_path_factory):
    """A uvicorn server in a thread on a free port of 127.0.0.1; yields (base URL, database path)."""
    import uvicorn

    from clarion.serve import ServeConfig, create_app

    db = tmp_path_factory.mktemp("browser") / "eval.sqlite"
    config = uvicorn.Config(create_app(ServeConfig(db=db), services), host="127.0.0.1", port=0, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the test server did not start")
        time.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}", db
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.is_file():
        message = f"{CHROMIUM} not found: install Debian's chromium package (apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(message)  # CI installs it (.ci/run): a skip there would hide this test
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, server):
    """A page whose every request is recorded; any request off 127.0.0.1 is refused."""
    base, _ = server
    context = browser.new_context(viewport={"width": 900, "height": 900})
    outside: list[str] = []

    def route(route):
        if route.request.url.startswith(base):
            return route.continue_()
        outside.append(route.request.url)
        return route.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.set_default_timeout(30_000)
    yield page
    context.close()
    assert outside == [], f"the page asked the network for {outside}"


def test_an_evaluator_chats_rates_and_finishes_and_the_ratings_are_stored(page, server):
    base, db = server
    page.goto(f"{base}/eval")
    page.get_by_test_id("start").click()
    page.get_by_test_id("need").wait_for(state="visible")
    assert page.locator("#need-text").inner_text().strip()
    said = ["Tell me about hip roofs.", "yes, pictures of them", "the ones with a big garden"]
    for count, text in enumerate(said, start=1):
        page.get_by_test_id("message").fill(text)
        page.get_by_test_id("send").click()
        page.wait_for_function(f"document.querySelectorAll('[data-testid=system-turn]').length === {count}")
    turns = page.get_by_test_id("system-turn")
    assert turns.first.get_attribute("data-action") == "clarify"
    assert "clarifying question" in turns.first.inner_text().lower()  # shown as one, with its badge
    choices = [("yes", "yes"), ("no", "yes"), ("yes", "no")]
    for i, (useful, natural) in enumerate(choices):
        turns.nth(i).get_by_test_id(f"useful-{useful}").click()
        turns.nth(i).get_by_test_id(f"natural-{natural}").click()
    page.wait_for_function("document.querySelectorAll('.rate.saved').length === 3")
    page.locator("input[name=rating][value='4']").check()
    page.locator("input[name=satisfied][value='no']").check()
    page.get_by_test_id("finish").click()
    page.get_by_test_id("done").wait_for(state="visible")

    with sqlite3.connect(db) as stored:
        session, rating, satisfied = stored.execute("SELECT id, rating, satisfied FROM sessions").fetchone()
        roles = stored.execute("SELECT role, text FROM turns WHERE session_id = ? ORDER BY idx", (session,)).fetchall()
        rated = stored.execute(
            "SELECT idx, useful, natural FROM turn_ratings WHERE session_id = ? ORDER BY idx", (session,)
        ).fetchall()
    assert (rating, satisfied) == (4, 0)
    assert [r for r, _ in roles] == ["user", "system"] * 3 and [t for r, t in roles if r == "user"] == said
    assert rated == [(1, 1, 1), (3, 0, 1), (5, 1, 0)]


def test_the_chat_page_shows_a_clarifying_question_as_such(page, server):
    base, _ = server
    page.goto(base + "/")
    page.get_by_test_id("message").fill("Tell me about hip roofs.")
    page.get_by_test_id("send").click()
    turn = page.get_by_test_id("system-turn").first
    turn.wait_for(state="visible")
    assert turn.get_attribute("data-action") == "clarify" and "clarifying question" in turn.inner_text().lower()
    page.get_by_test_id("message").fill("x" * 8000 + "!")  # the field takes 8,000 characters: the server gets them
    page.get_by_test_id("send").click()
    page.get_by_test_id("system-turn").nth(1).wait_for(state="visible")
