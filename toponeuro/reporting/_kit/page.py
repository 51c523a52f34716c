"""The answer-first page every toponeuro report shares: ``templates/skeleton.html``.

A report opens with its answer (house style, section 11): the headline sentence (the
question, the number with its statistic's name, its null and verdict, the rule that picked
what the headline names), one figure that shows it, and what was run in two lines. Methods,
hashes and per-layer detail follow in detail blocks, folded (``<details>``) or open.

:func:`answer_first_page` fills the skeleton; :func:`figure_html` embeds a PNG as a captioned
figure; :class:`DetailBlock` is one block of the detail section. The vision report
(``toponeuro map``) and the language report (``toponeuro map --language``) are both built with
them.
"""

from __future__ import annotations

import base64
import html
import string
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ...exceptions import ParameterError

__all__ = ["DetailBlock", "answer_first_page", "figure_html", "detail_html", "render_page"]


def render_page(template: str, *, title: str, **fields) -> str:
    """A report page: ``templates/<template>`` filled with ``fields``, its ``$page_head``
    the head every report page shares (``templates/head.html``: the title and the style).

    Examples
    --------
    >>> page = render_page("skeleton.html", title="T", heading="H", headline="h", figure="f",
    ...                    what_was_run="w", notes="", detail_heading="D", detail="d")
    >>> page.startswith("<!DOCTYPE html>") and "<title>T</title>" in page
    True
    """
    def read(name: str) -> string.Template:
        return string.Template(
            (resources.files("toponeuro.reporting") / "templates" / name).read_text(encoding="utf-8"))

    head = read("head.html").substitute(title=title).rstrip("\n")
    return read(template).substitute(page_head=head, **fields)


@dataclass(frozen=True)
class DetailBlock:
    """One block of a report's detail section.

    Attributes
    ----------
    heading : str
        Plain text (escaped when drawn).
    body : str
        HTML, as it is.
    folded : bool
        Drawn as a folded ``<details>`` block (default), else as an open ``<section>``.
    block_id : str, optional
        The HTML ``id`` of the block (a link target).

    Examples
    --------
    >>> DetailBlock("Methods", "<p>t, each domain vs the other four</p>").folded
    True
    """

    heading: str
    body: str
    folded: bool = True
    block_id: str | None = None


def detail_html(blocks: Sequence[DetailBlock]) -> str:
    """The detail section's HTML: each block folded (``<details>``) or open (``<section>``).

    Examples
    --------
    >>> print(detail_html([DetailBlock("A & B", "<p>x</p>", folded=False)]))
    <section class="block"><h3>A &amp; B</h3>
    <p>x</p>
    </section>
    """
    out = []
    for b in blocks:
        ident = f' id="{html.escape(b.block_id)}"' if b.block_id else ""
        head = html.escape(b.heading)
        if b.folded:
            out.append(f'<details class="block"{ident}><summary>{head}</summary>\n{b.body}\n'
                       "</details>")
        else:
            out.append(f'<section class="block"{ident}><h3>{head}</h3>\n{b.body}\n</section>')
    return "\n".join(out)


def figure_html(path, caption: str, name: str | None = None) -> str:
    """A PNG embedded in the page (readable on its own) with its caption and a link to the file.

    Parameters
    ----------
    path : path-like or None
        The PNG; ``None`` gives ``""`` (no figure drawn).
    caption : str
        Plain text (escaped).
    name : str, optional
        The link's file name (default the path's name).

    Examples
    --------
    >>> figure_html(None, "nothing drawn")
    ''
    """
    if path is None:
        return ""
    path = Path(path)
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    esc = html.escape
    name = name or path.name
    return (f'<figure><img alt="{esc(caption)}" src="data:image/png;base64,{data}">'
            f'<figcaption>{esc(caption)} (<a href="{esc(name)}">{esc(name)}</a>)</figcaption>'
            "</figure>")


def answer_first_page(*, title: str, heading: str, headline: str, figure: str,
                      what_was_run: Sequence[str], detail: str | Sequence[DetailBlock],
                      notes: str = "",
                      detail_heading: str = "Detail: methods, numbers and files") -> str:
    """A whole report page, answer first (``templates/skeleton.html``).

    Parameters
    ----------
    title : str
        The browser title (plain text, escaped).
    heading : str
        The page's ``<h1>`` (HTML).
    headline : str
        The answer (HTML): the question, the number with its statistic's name, its null and
        verdict, and the rule that chose what it names.
    figure : str
        One figure that shows the answer (HTML, e.g. :func:`figure_html`).
    what_was_run : sequence of str
        What was run, in one or two lines (HTML each): model, stimuli, layers, cortex, time.
    detail : str or sequence of DetailBlock
        Everything else: methods, hashes, per-layer numbers, other figures, files.
    notes : str
        Warnings that must be seen before the detail (HTML; e.g. a demo model, training
        images among the stimuli).
    detail_heading : str
        Heading of the detail section (plain text).

    Returns
    -------
    str
        The HTML page.

    Raises
    ------
    ParameterError
        ``what_was_run`` is not one or two lines, or ``headline`` or ``figure`` is empty.

    Examples
    --------
    >>> page = answer_first_page(title="t", heading="H", headline="<p>ρ = +0.5</p>",
    ...                          figure="<figure><img src='x.png'></figure>",
    ...                          what_was_run=["model m", "cortex c"],
    ...                          detail=[DetailBlock("Methods", "<p>m</p>")])
    >>> page.index("ρ = +0.5") < page.index("<img") < page.index("Methods")
    True
    """
    lines = [what_was_run] if isinstance(what_was_run, str) else list(what_was_run)
    if not 1 <= len(lines) <= 2:
        raise ParameterError(
            f"what_was_run= is what was run in one or two lines; got {len(lines)}. Move the "
            "rest into a detail block."
        )
    if not str(headline).strip() or not str(figure).strip():
        raise ParameterError(
            "A report opens with its answer: headline= and figure= must be given (got "
            f"{'an empty headline' if not str(headline).strip() else 'no figure'}); put the "
            "figure that shows the headline's number first."
        )
    body = detail if isinstance(detail, str) else detail_html(detail)
    return render_page("skeleton.html", title=html.escape(title), heading=heading,
                       headline=headline, figure=figure, what_was_run="<br>".join(lines),
                       notes=notes, detail_heading=html.escape(detail_heading), detail=body)
