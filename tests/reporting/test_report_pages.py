"""Every report page shares one head (title, style): templates/head.html, via render_page."""

from importlib import resources

import pytest

from toponeuro.reporting._kit import page as _page

PAGES = ("skeleton.html",)  # the language report is built on skeleton.html too


def _template(name: str) -> str:
    return (resources.files("toponeuro.reporting") / "templates" / name).read_text("utf-8")


@pytest.mark.parametrize("page", PAGES)
def test_each_page_takes_the_shared_head_and_repeats_none_of_it(page):
    text = _template(page)
    assert text.startswith("$page_head\n")
    head_lines = [ln for ln in _template("head.html").splitlines() if "{" in ln]
    assert head_lines and not any(ln in text for ln in head_lines)


def test_render_page_puts_the_title_in_the_shared_head(tmp_path, monkeypatch):
    page = tmp_path / "templates"
    page.mkdir()
    (page / "head.html").write_text(_template("head.html"), encoding="utf-8")
    (page / "p.html").write_text("$page_head\n</head><body>$x</body></html>\n", "utf-8")
    monkeypatch.setattr(_page.resources, "files", lambda _pkg: tmp_path)
    out = _page.render_page("p.html", title="T &amp; U", x="body text")
    assert out.startswith("<!DOCTYPE html>") and "<title>T &amp; U</title>" in out
    assert out.count("<style>") == 1 and "</style>\n</head><body>body text</body>" in out
