"""recur: the small library behind the book *One More Round*.

Seven layers, from the bottom: ``core`` (the task and the machine), ``models`` (tensors
in, tensors out), ``training`` (one loop for every model), ``chapters`` (what each
chapter trains and measures) and ``studies`` (the offline twenty-seed tables); beside
them ``views`` (figures, widgets, page text), which reads models and tables and never
trains. On top, ``pages`` gives each page of the book the values it glues, from all of
them. Each module imports only its own layer and those below it; ``chapters`` and
``studies`` may also use ``views.text``'s words (``tests/test_layers.py``).

Importing ``recur`` pins the CPU's numerics first (:mod:`recur.core.numerics`), before
any module of it imports torch.
"""

from recur.core.numerics import pin_cpu_numerics

pin_cpu_numerics()

from recur.core.version import VERSION as __version__  # noqa: E402, F401
