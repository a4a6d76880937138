"""A local Sphinx extension that keeps every page offline and its console clean.

sphinx-thebe registers its configuration script once per read of the sources, so a
Jupyter Book 1 page declares ``THEBE_JS_URL`` twice (a console error), and Thebe itself
loads from a public CDN. The book does not use Thebe (``launch_buttons.thebe: false``),
so its scripts are dropped from every page here. The bibliography's entries get a role
that screen readers read as items of its list.
"""

from __future__ import annotations


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


def setup(app):
    app.connect("html-page-context", _drop_thebe, priority=900)
    app.connect("html-page-context", _bibliography_roles, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
