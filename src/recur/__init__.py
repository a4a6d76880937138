"""recur: the small library behind the book *One More Round*."""

from recur.show import show_source

__all__ = ["show_source"]
__version__ = "0.1.0"
