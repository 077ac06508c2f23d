"""Every relative link in the README and docs/ points to a file that exists, and to a heading that exists in it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MAX_LINES = {"README.md": 300}  # every docs page: 400


def _prose(text: str) -> str:
    """The text without fenced code blocks and inline code (links there are examples, not links)."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.S | re.M)
    for heading in re.findall(r"^#{1,6} (.+)$", text, flags=re.M):
        base = slug(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def _links() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        for target in re.findall(r"\]\(([^)\s]+)\)", _prose(page.read_text(encoding="utf-8"))):
            if not re.match(r"[a-z]+:", target):  # http:, https:, mailto: are not checked
                found.append((str(page.relative_to(ROOT)), target))
    return found


def test_slug_follows_github():
    assert slug("Requests from outside ClariQ") == "requests-from-outside-clariq"
    assert slug("DSTC9 Track 1 family") == "dstc9-track-1-family"
    assert slug("Rank fusion (`clarion.fuse`, `clarion fuse`)") == "rank-fusion-clarionfuse-clarion-fuse"


def test_there_are_links_to_check():
    assert len(_links()) >= 20


@pytest.mark.parametrize(("page", "target"), _links())
def test_relative_link_resolves(page, target):
    path, _, anchor = target.partition("#")
    file = (ROOT / page).parent / path if path else ROOT / page
    assert file.exists(), f"{page}: link to missing file {target}"
    if anchor and file.suffix == ".md":
        assert anchor in anchors(file), f"{page}: no heading '#{anchor}' in {file.relative_to(ROOT)}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_page_length(page):
    lines = page.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES.get(page.name, 400), f"{page.name} has {lines} lines"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_machine_paths_or_session_dates(page):
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"/work/|/root/|/home/|/tmp/", text), f"{page.name} holds a machine path"
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b", text), f"{page.name} holds a date (history belongs in git)"


def _dotted_names() -> list[tuple[str, str]]:
    """Every `clarion.x.y` name the README and docs/ show in inline code, without call arguments."""
    found = set()
    for page in PAGES:
        text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.S | re.M)
        for code in re.findall(r"`([^`\n]+)`", text):
            for name in re.findall(r"\bclarion(?:\.\w+)+", code):
                found.add((page.name, name))
    return sorted(found)


def _resolve(name: str) -> object:
    import importlib

    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            obj = getattr(obj, attribute)
        return obj
    raise ModuleNotFoundError(name)


def test_there_are_names_to_check():
    assert len(_dotted_names()) >= 20


@pytest.mark.parametrize(("page", "name"), _dotted_names())
def test_named_module_or_object_exists(page, name):
    # a module moved or an object renamed leaves the docs naming something that is not there
    try:
        _resolve(name)
    except (ImportError, AttributeError) as err:
        pytest.fail(f"{page} names {name}, which does not resolve: {err}")
