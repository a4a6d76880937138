"""Show the library's own source in the book, so text and code can never disagree."""

from __future__ import annotations

import inspect

from IPython.display import Code


def show_source(obj) -> Code:
    """Syntax-highlighted source of a function, class or module of the library."""
    return Code(inspect.getsource(obj), language="python")
