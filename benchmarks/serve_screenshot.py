"""A screenshot of the evaluation page with the real models: docs/images/eval_page.png.

Starts ``clarion serve`` (ClariQ train+dev models) as ``serve_load.py`` does, opens ``/eval`` in Debian's chromium
(playwright, ``executable_path``; never ``playwright install``), asks for a ClariQ need, and plays the evaluator the
way the organisers' simulated users did: the topic's request first, then the facet's recorded answer to each
clarifying question (or its description when the data has no answer to that question); rates each reply and the
dialogue, and takes the screenshot before finishing. The PNG is reduced to a 64-colour palette to stay small.

    python benchmarks/serve_screenshot.py [--out docs/images/eval_page.png] [--turns 2]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from serve_load import free_port, start_server, wait_healthy  # noqa: E402

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


def answer_for(need: dict, question: str) -> str:
    """The facet's recorded answer to ``question`` in ClariQ dev, else the facet's description."""
    from clarion.data.clariq import ClariQ

    dev = ClariQ.load().labels("dev")
    wanted = " ".join(question.lower().rstrip("?").split())
    for (facet, qid), answer in dev.answers.items():
        if facet == need["id"] and " ".join(dev.question_text.get(qid, "").lower().split()) == wanted:
            return answer
    return need["text"]


def drive(page, base: str, turns: int) -> None:
    page.goto(f"{base}/eval")
    with page.expect_response(lambda r: r.url.endswith("/v1/eval/sessions")) as started:
        page.get_by_test_id("start").click()
    need = started.value.json()["need"]
    text = need["opener"] or need["text"]
    for count in range(1, turns + 1):
        page.get_by_test_id("message").fill(text)
        page.get_by_test_id("send").click()
        page.wait_for_function(f"document.querySelectorAll('[data-testid=system-turn]').length === {count}")
        reply = page.get_by_test_id("system-turn").nth(count - 1)
        reply.get_by_test_id("useful-yes").click()
        reply.get_by_test_id("natural-yes").click()
        if reply.get_attribute("data-action") != "clarify":
            break
        text = answer_for(need, reply.locator("p.text").inner_text())
    page.wait_for_function("document.querySelectorAll('.rate.saved').length >= 1")
    page.locator("input[name=rating][value='4']").check()
    page.locator("input[name=satisfied][value='yes']").check()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("docs/images/eval_page.png"))
    parser.add_argument("--turns", type=int, default=2)
    parser.add_argument("--model", type=Path, help="ClariQ pipeline directory (default: the train+dev model).")
    args = parser.parse_args()
    from PIL import Image
    from playwright.sync_api import sync_playwright

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        extra = ["--model", str(args.model)] if args.model else []
        process = start_server(port, Path(tmp) / "eval.sqlite", ["converse"], 2, extra)
        try:
            wait_healthy(base, process, 1800)
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 820, "height": 900})
                page.set_default_timeout(60_000)
                drive(page, base, args.turns)
                shot = Path(tmp) / "shot.png"
                page.screenshot(path=str(shot), full_page=True)
                browser.close()
        finally:
            process.terminate()
            process.wait(timeout=30)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        Image.open(shot).convert("RGB").quantize(colors=64).save(args.out, optimize=True)
    print(f"{args.out}: {args.out.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
