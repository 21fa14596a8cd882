"""Names a package re-exports but imports only when first asked for (PEP 562).

A package's ``__init__`` re-exports its submodules' names for convenience;
importing them all eagerly makes every command pay for every submodule.
With ``__getattr__ = lazy_names(__name__, {"Name": ".submodule"})`` (and the
same names imported under ``TYPE_CHECKING`` for the type checker) a name
is imported on first use, and cached on the package.
"""

from __future__ import annotations

import sys
from importlib import import_module
from typing import Any, Callable, Mapping


def lazy_names(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` loading each name of ``where`` from its (relative) module."""

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module, package), name)
        setattr(sys.modules[package], name, value)  # the next access is a plain attribute
        return value

    return __getattr__
