"""A local Sphinx extension that keeps every page offline and its console clean.

sphinx-thebe registers its configuration script once per read of the sources, so a
Jupyter Book 1 page declares ``THEBE_JS_URL`` twice (a console error), and Thebe itself
loads from a public CDN. The book does not use Thebe (``launch_buttons.thebe: false``),
so its scripts are dropped from every page here. The bibliography's entries get a role
that screen readers read as items of its list, and the notebooks' outputs markup that
assistive technology reads as it looks (:func:`accessible_outputs`).
"""

from __future__ import annotations

import re


def _is_thebe(script) -> bool:
    name = getattr(script, "filename", None) or str(script)
    body = (getattr(script, "attributes", None) or {}).get("body", "")
    return "thebe" in name or "THEBE_JS_URL" in body


def _drop_thebe(app, pagename, templatename, context, doctree) -> None:
    scripts = context.get("script_files")
    if scripts:
        context["script_files"] = [s for s in scripts if not _is_thebe(s)]


def _bibliography_roles(app, pagename, templatename, context, doctree) -> None:
    """sphinxcontrib-bibtex marks each entry of its role="list" with the deprecated
    role doc-biblioentry, which is no listitem: screen readers then see a list with no
    items (axe-core: aria-required-children, aria-deprecated-role)."""
    body = context.get("body")
    if body and 'role="doc-biblioentry"' in body:
        context["body"] = body.replace('role="doc-biblioentry"', 'role="listitem"')


# matplotlib's animation player names its repetition-mode form, which makes the form a
# landmark; two players on a page are then two landmarks of one name. The radio buttons
# are grouped and named by a radiogroup inside the form instead.
_PLAYER_FORM = re.compile(
    r'<form title="Repetition mode" aria-label="Repetition mode"([^>]*)>(.*?)</form>',
    re.DOTALL,
)
_PLAYER_GROUP = (
    r'<form\1><div role="radiogroup" title="Repetition mode"'
    r' aria-label="Repetition mode">\2</div></form>'
)


def accessible_outputs(body: str) -> str:
    """The page's body with three pieces of the notebooks' output markup mended:
    myst-nb's "Show code cell output" toggle is named by the words it shows, not
    "Toggle hidden content" (WCAG 2.5.3, label in name); a table's empty corner cell
    (pandas leaves the index's header blank) is a data cell, not a header without text;
    and each animation player's mode buttons are a named group, not a landmark."""
    body = body.replace('<summary aria-label="Toggle hidden content">', "<summary>")
    body = body.replace("<th></th>", "<td></td>")
    return _PLAYER_FORM.sub(_PLAYER_GROUP, body)


def _accessible_outputs(app, pagename, templatename, context, doctree) -> None:
    if context.get("body"):
        context["body"] = accessible_outputs(context["body"])


def setup(app):
    app.connect("html-page-context", _drop_thebe, priority=900)
    app.connect("html-page-context", _bibliography_roles, priority=900)
    app.connect("html-page-context", _accessible_outputs, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
