"""Pure calls of a jailed Python worker (envs/pysandbox).

The jail runs runner.py, this file and driver.py as one program.

A stateless call runs in a fresh runner so that it cannot see what an
earlier call changed: a module's attribute, a library's global setting,
the runner itself. Forking that runner is most of a call's cost. A pure
call is one whose code, read before it runs, can change nothing but its
own globals, so it may run in a runner that earlier pure calls used, with
fresh globals, and leave it as it found it. In a plain worker a runner
that has served a pure call is kept for the next one; code that is not
pure never runs in it (the driver runs it in a fresh runner instead).

pure(tree) decides, denying whatever it does not know. The code may use:
the statements and expressions of arithmetic, loops, conditions,
functions (def, lambda, decorators), comprehensions, try and raise; the
builtins of PURE_BUILTINS; and the modules of pure_modules() through
`import M [as A]` (A only as the base of A.name) and `from M import n`,
each only for its listed names. It may not assign or delete attributes;
read names that start with an underscore or attributes that start with
one or with a frame's or a code object's prefix (gi_frame.f_back leads
to the runner's own globals); define classes; or use global, nonlocal,
with, yield, await or match. What it reaches is then its own objects and
immutable or stateless library objects, which it can read but not change.
"""

import _ast
import re

PyCF_ONLY_AST = 0x400

PURE_BUILTINS = frozenset("""
abs all any ascii bin bool bytes callable chr complex dict divmod enumerate
filter float format frozenset hex int isinstance issubclass iter len list map
max min next oct ord pow print range repr reversed round set slice sorted str
sum tuple zip True False None NotImplemented Ellipsis
ArithmeticError AssertionError AttributeError Exception IndexError KeyError
LookupError NameError NotImplementedError OverflowError RecursionError
RuntimeError StopIteration TypeError ValueError ZeroDivisionError
""".split())

# Module -> the names code may use of it; None: every public name (the
# module holds only functions, types and numbers).
PURE_MODULES = {
    "math": None, "cmath": None, "itertools": None,
    "bisect": ("bisect", "bisect_left", "bisect_right", "insort", "insort_left", "insort_right"),
    "heapq": ("heapify", "heappop", "heappush", "heappushpop", "heapreplace", "merge", "nlargest", "nsmallest"),
    "collections": ("Counter", "OrderedDict", "defaultdict", "deque", "namedtuple"),
    "fractions": ("Fraction",),
    "functools": ("cache", "cmp_to_key", "lru_cache", "partial", "reduce"),
    "operator": ("abs", "add", "and_", "concat", "contains", "countOf", "eq", "floordiv", "ge", "gt",
                 "index", "indexOf", "inv", "invert", "is_", "is_not", "itemgetter", "le", "lshift",
                 "lt", "mod", "mul", "ne", "neg", "not_", "or_", "pos", "pow", "rshift", "sub",
                 "truediv", "truth", "xor"),
    "statistics": ("fmean", "geometric_mean", "harmonic_mean", "mean", "median", "median_high",
                   "median_low", "mode", "multimode", "pstdev", "pvariance", "quantiles", "stdev",
                   "variance"),
    "string": ("ascii_letters", "ascii_lowercase", "ascii_uppercase", "digits", "hexdigits",
               "octdigits", "printable", "punctuation", "whitespace"),
}

# Attribute names no pure code reads: an ABC's register changes the
# class; frames, tracebacks, generators and code objects lead to the
# runner's own globals.
DENIED_ATTRS = frozenset(("register",))
DENIED_PREFIXES = ("_", "gi_", "cr_", "ag_", "f_", "tb_", "co_")

ALLOWED_NODES = tuple(getattr(_ast, n) for n in """
Module Expr Assign AugAssign For While If Break Continue Pass FunctionDef
Return Import ImportFrom alias Assert Try ExceptHandler Raise Delete Lambda
IfExp BoolOp BinOp UnaryOp Compare Call keyword Constant Name Attribute
Subscript Slice Starred List Tuple Set Dict ListComp SetComp DictComp
GeneratorExp comprehension JoinedStr FormattedValue NamedExpr arguments arg
Load Store Del boolop operator unaryop cmpop
""".split())


def pure_modules():
    """Returns PURE_MODULES with every None replaced by the module's
    public names (importing it)."""
    out = {}
    for name, names in PURE_MODULES.items():
        if names is None:
            names = [n for n in dir(__import__(name)) if not n.startswith("_")]
        out[name] = frozenset(names)
    return out


def pure(tree, modules):
    """Reports whether the parsed code tree is pure (see the file's
    comment), given pure_modules()."""
    nodes, stack = [], [tree]
    while stack:  # every node, without recursion (code may nest deeply)
        node = stack.pop()
        if not isinstance(node, ALLOWED_NODES):
            return False
        nodes.append(node)
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                stack.extend(v for v in value if isinstance(v, _ast.AST))
            elif isinstance(value, _ast.AST):
                stack.append(value)
    aliases = {}  # name bound to a module -> the module
    for node in nodes:
        if isinstance(node, _ast.Import):
            for a in node.names:
                if a.name not in modules:
                    return False
                aliases[a.asname or a.name] = a.name
        elif isinstance(node, _ast.ImportFrom):
            allowed = modules.get(node.module) if node.level == 0 else None
            if allowed is None or any(a.name not in allowed for a in node.names):
                return False
    bases = set()  # Name nodes that are the base of an attribute of a module
    for node in nodes:
        if isinstance(node, _ast.Attribute):
            if not isinstance(node.ctx, _ast.Load) or not attribute_ok(node, aliases, modules):
                return False
            if isinstance(node.value, _ast.Name) and node.value.id in aliases:
                bases.add(id(node.value))
    for node in nodes:
        if isinstance(node, _ast.Name):
            if node.id.startswith("_") or node.id in aliases and id(node) not in bases:
                return False
        elif isinstance(node, (_ast.arg, _ast.ExceptHandler, _ast.FunctionDef)):
            name = node.arg if isinstance(node, _ast.arg) else node.name
            if name and (name.startswith("_") or name in aliases):
                return False
    return builtins_ok(nodes)


def attribute_ok(node, aliases, modules):
    """Reports whether the attribute read node may be read."""
    if isinstance(node.value, _ast.Name) and node.value.id in aliases:
        return node.attr in modules[aliases[node.value.id]]
    return node.attr not in DENIED_ATTRS and not node.attr.startswith(DENIED_PREFIXES)


def builtins_ok(nodes):
    """Reports whether every name the code reads and never binds is one of
    PURE_BUILTINS."""
    bound = set()
    for node in nodes:
        if isinstance(node, _ast.Name) and not isinstance(node.ctx, _ast.Load):
            bound.add(node.id)
        elif isinstance(node, _ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (_ast.FunctionDef, _ast.ExceptHandler)) and node.name:
            bound.add(node.name)
        elif isinstance(node, (_ast.Import, _ast.ImportFrom)):
            bound.update(a.asname or a.name for a in node.names)
    return all(node.id in bound or node.id in PURE_BUILTINS
               for node in nodes if isinstance(node, _ast.Name) and isinstance(node.ctx, _ast.Load))


IMPORTS = re.compile(r"^[ \t]*(?:from[ \t]+([\w.]+)[ \t]+import|import[ \t]+([\w., \t]+))", re.M)


def surely_impure(code):
    """Reports, from the text alone and far faster than pure, code that
    cannot be pure: it names a dunder or imports a module pure does not
    allow. The driver sends such code straight to a fresh runner; the
    rest goes to the kept runner, which checks it with pure."""
    if "__" in code:
        return True
    for m in IMPORTS.finditer(code):
        names = [m.group(1)] if m.group(1) else [p.split()[0] for p in m.group(2).split(",") if p.split()]
        if any(n not in PURE_MODULES for n in names):
            return True
    return False


def parse(code):
    """Returns the code's tree, or None when it does not parse (a fresh
    runner then reports why)."""
    try:
        return compile(code, "<code>", "exec", PyCF_ONLY_AST)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
