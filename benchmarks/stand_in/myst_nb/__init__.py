"""A stand-in for ``myst_nb.glue``, for executing the chapters where myst-nb is not
installed (``make gpu-check`` on a GPU machine with PyTorch and no book tools). Each
glued value is appended, as the text myst-nb would show (its ``repr``), to the
JSON-lines file named by the environment variable ``GLUE_LOG``."""

from __future__ import annotations

import json
import os


def glue(name: str, variable, display: bool = True) -> None:
    path = os.environ.get("GLUE_LOG")
    if path:
        with open(path, "a") as log:
            log.write(json.dumps({"name": name, "value": repr(variable)}) + "\n")
