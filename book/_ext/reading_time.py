"""A local Sphinx extension: reading times computed from the built pages.

The introduction's table of chapters gives each page's reading time with the role
``{reading-minutes}`06_act_ut``` (a page named relative to the one that uses it). When
the book is built, the role becomes the minutes a reader needs for what the page shows:
its prose and its visible code, read at :data:`recur.views.text.WORDS_PER_MINUTE`, a
formula counting as one word, rounded up to a multiple of 5 minutes. Cell outputs
(figures, tables, printed text, the library's listings, open or collapsed) and code a
reader must click to see do not count. A page that uses the role is written again
whenever any page changed, so its times follow the pages as they are now.
"""

from __future__ import annotations

import posixpath

from docutils import nodes

from recur.views.text import minutes

ROLE = "reading-minutes"
HIDDEN_SOURCE = ("all", "input", "input+output")  # myst-nb's hide-cell, hide-input


class reading_minutes(nodes.inline):  # noqa: N801 (docutils names nodes in lower case)
    """Where a page's reading time goes, until every page has been read."""


def visible_words(doctree: nodes.Node) -> int:
    """The words a reader sees on a page without clicking a code cell open: the text
    outside code cells' outputs and outside code hidden behind a click; a formula
    counts as one word."""
    if isinstance(doctree, nodes.container):
        element, hide = doctree.get("nb_element"), doctree.get("hide_mode")
        if element == "cell_code_output":
            return 0
        if element == "cell_code" and hide in HIDDEN_SOURCE:
            return 0  # its source is collapsed and its output never counts
    if isinstance(doctree, (nodes.math, nodes.math_block)):
        return 1
    if isinstance(doctree, (nodes.comment, nodes.raw, nodes.system_message)):
        return 0
    if isinstance(doctree, nodes.Text):
        return len(doctree.astext().split())
    return sum(visible_words(child) for child in doctree.children)


def _role(name, rawtext, text, lineno, inliner, options=None, content=None):
    env = inliner.document.settings.env
    _users(env).add(env.docname)
    node = reading_minutes(rawtext, "?", target=text.strip())
    return [node], []


def _users(env) -> set:
    if not hasattr(env, "reading_minutes_users"):
        env.reading_minutes_users = set()
    return env.reading_minutes_users


def _purge(app, env, docname) -> None:
    _users(env).discard(docname)


def _merge(app, env, docnames, other) -> None:
    _users(env).update(_users(other))


def _outdated(app, env, added, changed, removed) -> list:
    """Any page changed: read the pages that give reading times again, too."""
    return sorted(_users(env)) if (added or changed or removed) else []


def _fill(app, doctree, docname) -> None:
    from sphinx.util import logging

    for node in list(doctree.findall(reading_minutes)):
        target = posixpath.normpath(posixpath.join(posixpath.dirname(docname),
                                                   node["target"]))  # fmt: skip
        if target not in app.env.all_docs:
            logging.getLogger(__name__).warning(
                f"{ROLE}: no page {node['target']!r}", location=node
            )
            node.replace_self(nodes.Text("?"))
            continue
        words = visible_words(app.env.get_doctree(target))
        node.replace_self(nodes.Text(str(minutes(words))))


def setup(app):
    app.add_role(ROLE, _role)
    app.add_node(reading_minutes)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("env-get-outdated", _outdated)
    app.connect("doctree-resolved", _fill)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
