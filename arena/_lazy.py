"""Names a package re-exports but imports only when first asked for (PEP 562).

A package's ``__init__`` re-exports its submodules' names for convenience;
importing them all eagerly makes every command pay for every submodule
(and for the pydantic models defined there, whose class creation is the
costly part). With ``__getattr__ = lazy_names(__name__, {".submodule":
("Name", ...)})`` (and the same imports under ``TYPE_CHECKING`` for the type
checker; tests/commands/test_startup.py holds the two equal) a name is
imported on first use, and cached on the package. A name its own module
shares (``standings`` of ``.standings``) must be imported eagerly: once
anything imports the submodule, the package's attribute of that name is the
module, and ``__getattr__`` is never asked.
"""

from __future__ import annotations

import sys
from importlib import import_module
from typing import Any, Callable, Iterable, Mapping


def lazy_names(package: str, exports: Mapping[str, Iterable[str]]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` loading each name of ``exports`` (relative module -> its names)
    from its module."""
    where = {name: module for module, names in exports.items() for name in names}
    shadowed = [name for name, module in where.items() if module.rsplit(".", 1)[-1] == name]
    if shadowed:  # importing the submodule sets the package's attribute of its name to the module
        raise ValueError(f"{package}: {shadowed} share their module's name: import them eagerly")

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module, package), name)
        setattr(sys.modules[package], name, value)  # the next access is a plain attribute
        return value

    return __getattr__
