"""The type stubs (``__init__.pyi``, ``dask.pyi``) against the functions they describe.

Every public function has a stub whose parameters (names, kinds, defaults) are those of the
function, and the package ships ``py.typed`` beside the stubs.
"""

import ast
import inspect
from pathlib import Path

import pytest

import warpsight
import warpsight.dask

PACKAGE = Path(warpsight.__file__).resolve().parent


def _stub_functions(name):
    """The stub's functions: name -> the argument lists of its definitions (overloads included)."""
    tree = ast.parse((PACKAGE / name).read_text())
    found = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            found.setdefault(node.name, []).append(node.args)
    return found


#: A parameter without a default.
NO_DEFAULT = inspect.Parameter.empty


def _default(node):
    """A stub default's value (``...`` as written), or NO_DEFAULT without one."""
    if node is None:
        return NO_DEFAULT
    if isinstance(node, ast.Constant) and node.value is Ellipsis:
        return ...
    return ast.literal_eval(node)


def _params(args):
    """(name, kind, default) of a stub's parameters, the kinds as ``inspect`` names them."""
    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    out = [(arg.arg, "POSITIONAL_OR_KEYWORD", _default(d)) for arg, d in zip(positional, defaults)]
    out += [(arg.arg, "KEYWORD_ONLY", _default(d)) for arg, d in zip(args.kwonlyargs, args.kw_defaults)]
    return out


def _runtime(function):
    return [(p.name, p.kind.name, p.default) for p in inspect.signature(function).parameters.values()]


@pytest.mark.parametrize("module, stub", [(warpsight, "__init__.pyi"), (warpsight.dask, "dask.pyi")])
def test_every_public_function_has_a_matching_stub(module, stub):
    stubs = _stub_functions(stub)
    functions = [name for name in module.__all__ if inspect.isfunction(getattr(module, name))]
    assert functions
    for name in functions:
        assert name in stubs, f"{stub} lacks {name}"
        runtime = _runtime(getattr(module, name))
        names = [(n, k) for n, k, _ in runtime]
        # The first definition (the default overload) has the function's parameters in order.
        first = _params(stubs[name][0])
        assert [(n, k) for n, k, _ in first] == names, name
        for (param, _, default), (_, _, stub_default) in zip(runtime, first):
            if stub_default is not ...:
                assert stub_default == default, f"{name}({param}): {stub_default!r} != {default!r}"
        # Every other overload has the same parameter names.
        for other in stubs[name][1:]:
            assert sorted(n for n, _, _ in _params(other)) == sorted(n for n, _ in names), name


def test_stub_docstrings_are_the_functions_docstrings():
    tree = ast.parse((PACKAGE / "__init__.pyi").read_text())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            assert ast.get_docstring(node) == inspect.getdoc(getattr(warpsight, node.name)), node.name


def test_the_package_is_marked_typed():
    assert (PACKAGE / "py.typed").is_file()
    assert (PACKAGE / "__init__.pyi").is_file() and (PACKAGE / "dask.pyi").is_file()
