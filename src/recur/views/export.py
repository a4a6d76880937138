"""The trained models of the book, carried to the static page.

A reader of the HTML book has no Python behind the page, so the models trained while
the book was built travel with it as small files: ``_static/models/NAME.js``, each a
script that adds one *spec* to ``window.OneMoreRound.models``. A spec is the model's
kind, the options its forward pass needs and every weight as little-endian float32 in
base64 (the numbers the library holds, bit for bit). ``_static/models.js`` runs the
cells' forward passes in JavaScript, and ``_static/act_model.js`` the Transformer's
(the same pass the page's trainer runs); :func:`model_from_spec` rebuilds the PyTorch
model from a spec, so the browser tests can check the two against each other on the
same weights.

Three kinds: Chapter 2's :class:`~recur.models.cell.LocalCell` (``cell``), Chapter 6's
ACT :class:`~recur.models.ut.UniversalTransformer` (``act_ut``) and Chapter 7's
:class:`~recur.models.deq.EquilibriumCell` (``deq``).
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import torch
from torch import nn

from recur.models.cell import LocalCell
from recur.models.deq import EquilibriumCell
from recur.models.halting import ActHalting
from recur.models.ut import UniversalTransformer

MODELS_DIR = Path("_extra/_static/models")  # from book/, where the chapters run

# The UT options act_model.js implements: ACT's halting, a window of 1, Chapter 6's
# model and its first recipe (the sinusoid with the round signal). Any other value is
# refused here, at build time, rather than computed wrongly in the page.
UT_POSITIONS = ("relative", "sinusoid", "none")


def _cell_options(cell: LocalCell) -> dict:
    return {"inject": cell.inject, "snap": cell.snap}


def _ut_options(model: UniversalTransformer) -> dict:
    options = model.options
    if not isinstance(options.halting, ActHalting):
        raise ValueError(
            f"the page's UT halts by ACT; this model has halting={options.halting!r}"
        )
    if options.window != 1:
        window = options.window
        raise ValueError(
            f"the page's UT attends to a window of 1; this model has window={window}"
        )
    if options.position not in UT_POSITIONS:
        raise ValueError(f"the page's UT has no position={options.position!r}")
    return {
        "position": options.position,
        "round_signal": options.round_signal,
        "window": options.window,
        "n_heads": model.block.attn.num_heads,
        "inject": options.inject,
        "floor": options.floor,
        "pair_as_set": options.pair_as_set,
        "act_eps": options.halting.eps,
        "max_offset": 0 if model.relative is None else model.relative.shape[1] // 2,
    }


def _kind_and_options(model: nn.Module) -> tuple[str, dict]:
    if isinstance(model, LocalCell):
        return "cell", _cell_options(model)
    if isinstance(model, EquilibriumCell):
        if model.method != "iteration":
            raise ValueError(f"the page's DEQ iterates; this one uses {model.method!r}")
        return "deq", {"tol": model.tol, "snap": model.cell.snap}
    if isinstance(model, UniversalTransformer):
        return "act_ut", _ut_options(model)
    raise ValueError(f"no page version of {type(model).__name__}")


def _packed(tensor: torch.Tensor) -> dict:
    """A weight as its shape and little-endian float32 bytes in base64."""
    values = tensor.detach().cpu().to(torch.float32).contiguous().numpy()
    raw = values.astype("<f4").tobytes()
    return {"shape": list(values.shape), "data": base64.b64encode(raw).decode()}


def model_spec(model: nn.Module) -> dict:
    """The spec of ``model``: ``{"kind", "options", "weights": {name: packed}}``."""
    kind, options = _kind_and_options(model)
    weights = {name: _packed(t) for name, t in model.state_dict().items()}
    return {"kind": kind, "options": options, "weights": weights}


def _unpacked(packed: dict) -> torch.Tensor:
    raw = base64.b64decode(packed["data"])
    values = np.frombuffer(raw, dtype="<f4").reshape(packed["shape"])
    return torch.from_numpy(values.copy())


def model_from_spec(spec: dict) -> nn.Module:
    """The PyTorch model of a spec, in eval mode (for the browser tests)."""
    weights = {name: _unpacked(p) for name, p in spec["weights"].items()}
    options = spec["options"]
    if spec["kind"] == "cell":
        d_hidden, d_state = (
            weights["update.0.weight"].shape[0],
            weights["embed.weight"].shape[0],
        )
        model = LocalCell(
            d_state, d_hidden, inject=options["inject"], snap=options.get("snap", False)
        )
    elif spec["kind"] == "deq":
        d_hidden = weights["cell.update.0.weight"].shape[0]
        model = EquilibriumCell(
            weights["cell.embed.weight"].shape[0],
            d_hidden,
            options["tol"],
            snap=options.get("snap", False),
        )
    elif spec["kind"] == "act_ut":
        model = _ut_from(weights, options)
    else:
        raise ValueError(f"unknown model kind {spec['kind']!r}")
    model.load_state_dict(weights)
    return model.eval()


def _ut_from(weights: dict, options: dict) -> UniversalTransformer:
    d_model = weights["embed.weight"].shape[0]
    return UniversalTransformer(
        d_model=d_model,
        n_heads=options["n_heads"],
        d_ff=weights["block.transition.0.weight"].shape[0],
        window=options["window"],
        halting=ActHalting(eps=options["act_eps"]),
        position=options.get("position", "relative"),
        round_signal=options.get("round_signal", False),
        inject=options["inject"],
        floor=options["floor"],
        pair_as_set=options.get("pair_as_set", False),
    )


def write_model_script(
    model: nn.Module, name: str, directory: Path = MODELS_DIR
) -> Path:
    """Write ``directory/NAME.js``, which registers ``model``'s spec as
    ``window.OneMoreRound.models[NAME]``; returns the path."""
    if not name.replace("_", "").isalnum():
        raise ValueError(f"a model's name is letters, digits and _, got {name!r}")
    spec = json.dumps(model_spec(model), separators=(",", ":"))
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.js"
    path.write_text(
        "// A model trained while the book was built (recur.views.export)\n"
        "window.OneMoreRound = window.OneMoreRound || {models: {}};\n"
        f"window.OneMoreRound.models[{json.dumps(name)}] = {spec};\n"
    )
    return path
