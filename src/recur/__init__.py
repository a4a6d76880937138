"""recur: the small library behind the book *One More Round*.

Four layers, each importing only those above it (``tests/test_layers.py``):
``core`` (the task and the machine), ``models`` (tensors in, tensors out),
``training`` (one loop for every model) and ``chapters`` (what each chapter trains and
measures), with ``studies`` (the offline twenty-seed tables) on top; ``views`` (figures,
widgets, page text) read models and tables and never train.
"""

__version__ = "0.1.0"
