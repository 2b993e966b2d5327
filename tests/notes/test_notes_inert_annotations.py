"""Two more refinements of the precise rule, edit by edit in both directions.

* **Signatures nothing reads**: in a file with no code that reads
  annotations (``typing.get_type_hints``, ``inspect.signature``,
  ``__annotations__``, ``singledispatch`` ...), a dependency whose
  decorators do not read them either (none, the builtins, a few standard
  library decorators, a property's parts, a decorator of the file that only
  calls, names, wraps or returns what it is given) is compared without its
  parameter and return annotations, when they are never evaluated (``from
  __future__ import annotations``) or evaluating them only looks up names
  bound for sure and subscripts typing objects; the names read only there
  are not followed. A plain class's body is compared without its class-level annotations in
  such a file under the future import. With a reader in the file, a
  decorator that could read them, or an annotation whose evaluation may run
  code, they still count.
* **Message text in a setting method's slice**: the literal text of an
  exception raised (or an assertion failed) on the way to setting an
  attribute never reaches the attribute; the exception, the values it
  formats and any call in it still count, and so does everything inside a
  ``try`` or ``with``, where a handler or ``__exit__`` sees the exception.

Each row anchors a note, applies one edit and checks the status:
DEPENDENCY_CHANGED where the edit can change what the note's code does,
FRESH where it cannot.
"""

from __future__ import annotations

import pytest

from cvlib.notes import AnchorStatus, anchor, locate
from cvlib.notes.python import PythonFile

F, D = AnchorStatus.FRESH, AnchorStatus.DEPENDENCY_CHANGED

SIGNATURES = '''from __future__ import annotations

import functools
import typing as t
from functools import update_wrapper


def setupmethod(f):
    name = f.__name__

    def wrapper(self, *args, **kwargs):
        self.check(name)
        return f(self, *args, **kwargs)

    return t.cast(t.Any, update_wrapper(wrapper, f))


def remember(f):
    REGISTRY.append(f)
    return f


REGISTRY = []


def helper(x: int, *rest: str, flag: bool = False) -> str:
    return str(x) + "".join(rest)


class Options:
    retries: int = 3
    label: str


class App:
    def __init__(self):
        self.funcs = []

    @setupmethod
    def record(self, func: t.Callable) -> None:
        self.funcs.append(func)

    @remember
    def remembered(self, func: t.Callable) -> None:
        self.funcs.append(func)

    @functools.lru_cache(maxsize=None)
    def cached(self, key: t.Text) -> int:
        return len(key)

    @property
    def size(self) -> t.Any:
        return len(self.funcs)

    @size.setter
    def size(self, value: t.Any) -> None:
        self.funcs = self.funcs[:value]

    def check(self, name):
        return name

    def register(self, f):
        self.record(f)
        return helper(3)

    def register_remembered(self, f):
        return self.remembered(f)

    def lookup(self, key):
        return self.cached(key) + self.size

    def shrink(self):
        self.size = 1

    def options(self):
        return Options


def make_wrapper():
    def inner(v: int) -> int:
        return v + 1
    return inner


def use_wrapper():
    return make_wrapper()(2)
'''

NO_FUTURE = SIGNATURES.replace("from __future__ import annotations\n\n", "")
WITH_READER = SIGNATURES.replace("REGISTRY = []\n", "REGISTRY = []\nHINTS = t.get_type_hints\n")
READING_DECORATOR = SIGNATURES.replace("    name = f.__name__\n", "    name = f.__annotations__\n")


def _sub(old: str, new: str):
    def edit(src: str) -> str:
        assert old in src, old
        return src.replace(old, new, 1)
    return edit


SIGNATURE_CASES = [
    # FRESH: annotations nothing in the file can see
    ("parameter annotation of a called method (in-file decorator that wraps)", SIGNATURES, "App.register",
     _sub("func: t.Callable)", "func: t.Callable[..., t.Any])"), F),
    ("return annotation of a called method", SIGNATURES, "App.register", _sub("-> None:\n        self.funcs.append(func)\n\n    @remember",
                                                                             "-> t.NoReturn:\n        self.funcs.append(func)\n\n    @remember"), F),
    ("annotations of a called function, *args and keyword-only included", SIGNATURES, "App.register",
     _sub("def helper(x: int, *rest: str, flag: bool = False) -> str:", "def helper(x: str, *rest: int, flag: str = False) -> bool:"), F),
    ("annotation of a method behind a standard library decorator factory", SIGNATURES, "App.lookup",
     _sub("def cached(self, key: t.Text) -> int:", "def cached(self, key: t.Optional[t.Text]) -> t.List[int]:"), F),
    ("annotations of a property's getter and setter", SIGNATURES, "App.lookup",
     _sub("def size(self) -> t.Any:", "def size(self) -> t.Optional[int]:"), F),
    ("annotation of a property's setter, for code that assigns it", SIGNATURES, "App.shrink",
     _sub("def size(self, value: t.Any) -> None:", "def size(self, value: t.Union[t.Any, None]) -> None:"), F),
    ("class-level annotation of a plain class used whole", SIGNATURES, "App.options",
     _sub("    label: str\n", "    label: t.Optional[str]\n"), F),
    ("a nested def's annotations, in the code of a function it calls", SIGNATURES, "use_wrapper",
     _sub("def inner(v: int) -> int:", "def inner(v: float) -> float:"), F),
    # DEPENDENCY_CHANGED: what can change behaviour
    ("default of a called method", SIGNATURES, "App.register", _sub("func: t.Callable)", "func: t.Callable = None)"), D),
    ("body of a called function", SIGNATURES, "App.register", _sub("return str(x) + ", "return repr(x) + "), D),
    ("the decorator's own code", SIGNATURES, "App.register", _sub("self.check(name)", "self.check(name + '!')"), D),
    ("a decorator that hands the function to other code", SIGNATURES, "App.register_remembered",
     _sub("def remembered(self, func: t.Callable)", "def remembered(self, func: t.Any)"), D),
    ("a value of a plain class's annotated attribute", SIGNATURES, "App.options", _sub("retries: int = 3", "retries: int = 4"), D),
    ("a nested def's default", SIGNATURES, "use_wrapper", _sub("def inner(v: int)", "def inner(v: int = 0)"), D),
    ("no future import, annotations only subscript typing", NO_FUTURE, "App.register",
     _sub("func: t.Callable)", "func: t.Callable[..., t.Any])"), F),
    ("no future import, an annotation that calls code", NO_FUTURE, "App.register",
     _sub("func: t.Callable)", "func: t.cast(t.Any, REGISTRY))"), D),
    ("no future import, an annotation naming what nothing binds", NO_FUTURE, "App.register",
     _sub("func: t.Callable)", "func: Undefined)"), D),
    ("no future import, a plain class's annotations are evaluated", NO_FUTURE, "App.options",
     _sub("    label: str\n", "    label: t.Optional[str]\n"), D),
    ("an annotation that names another builtin", SIGNATURES, "App.register",
     _sub("def helper(x: int, *rest", "def helper(x: float, *rest"), F),
    ("an annotation that names a name the file binds nowhere (never evaluated)", SIGNATURES, "App.register",
     _sub("def helper(x: int, *rest", "def helper(x: Undefined, *rest"), F),
    ("future import, an annotation naming a name no longer bound", SIGNATURES, "App.register",
     _sub("import functools\n", "import functools\nimport typing as typ\n") and (lambda src: src.replace("import typing as t\n", "", 1).replace("t.Callable)", "typ.Callable)", 1)), D),
    ("a reader of annotations in the file", WITH_READER, "App.register",
     _sub("func: t.Callable)", "func: t.Callable[..., t.Any])"), D),
    ("a decorator that reads the annotations", READING_DECORATOR, "App.register",
     _sub("func: t.Callable)", "func: t.Callable[..., t.Any])"), D),
    ("a reader of annotations in the file, plain class", WITH_READER, "App.options",
     _sub("    label: str\n", "    label: t.Optional[str]\n"), D),
]


@pytest.mark.parametrize(("case", "source", "qualname", "edit", "expected"), SIGNATURE_CASES, ids=[c[0] for c in SIGNATURE_CASES])
def test_signatures_nothing_reads(case, source, qualname, edit, expected):
    stored = anchor({"m.py": source}, "m.py", qualname)
    assert locate(stored, {"m.py": edit(source)}).status is expected, case


def test_the_decorators_seen_as_inert_and_not():
    parsed = PythonFile(SIGNATURES, "m.py")
    inert = {s.qualname: parsed._inert_signature(s.node) for s in parsed.symbols if s.kind in ("method", "function", "nested")}
    assert inert["App.record"] and inert["App.cached"] and inert["App.size"] and inert["App.size#2"] and inert["helper"]
    assert not inert["App.remembered"]
    for source in (WITH_READER, READING_DECORATOR):
        parsed = PythonFile(source, "m.py")
        assert not any(parsed._inert_signature(s.node) for s in parsed.symbols if s.qualname == "App.record")


@pytest.mark.parametrize("reader", ["inspect.signature", "typing.get_type_hints", "obj.__annotations__",
                                    "getattr(obj, '__annotations__')", "functools.singledispatch", "inspect.get_annotations"])
def test_any_reader_of_annotations_keeps_them(reader):
    source = SIGNATURES.replace("REGISTRY = []\n", f"REGISTRY = []\n\n\ndef peek(obj):\n    return {reader}\n")
    stored = anchor({"m.py": source}, "m.py", "App.register")
    edited = source.replace("func: t.Callable)", "func: t.Callable[..., t.Any])", 1)
    assert locate(stored, {"m.py": edited}).status is D


def test_the_wide_rule_still_counts_signature_annotations():
    edited = SIGNATURES.replace("func: t.Callable)", "func: t.Callable[..., t.Any])", 1)
    before = PythonFile(SIGNATURES, "m.py").dependencies("App.register", "wide")
    after = PythonFile(edited, "m.py").dependencies("App.register", "wide")
    assert before != after


SLICES = '''
class MissingSchema(ValueError):
    pass


class Prepared:
    def prepare_url(self, url, strict):
        if not url.startswith("http"):
            raise MissingSchema(f"Invalid URL {url!r}: try https://{url}?")
        if strict:
            assert url.isascii(), "URL must be ASCII"
        for part in url.split("/"):
            if part == "..":
                raise MissingSchema("no parent steps in " + url)
        try:
            host = url.split("/")[2]
        except IndexError:
            raise MissingSchema(f"Invalid URL {url!r}: no host")
        self.url = url + "#" + host

    def auth(self):
        return self.url.upper()
'''

SLICE_CASES = [
    ("literal text of an f-string message", "Prepared.auth", _sub("try https://{url}?", "try http://{url}?"), F),
    ("an assertion's message", "Prepared.auth", _sub('"URL must be ASCII"', '"URL must be plain ASCII"'), F),
    ("the exception raised", "Prepared.auth", _sub("raise MissingSchema(f\"Invalid URL {url!r}: try", "raise ValueError(f\"Invalid URL {url!r}: try"), D),
    ("a value the message formats", "Prepared.auth", _sub("try https://{url}?", "try https://{url.strip()}?"), D),
    ("text built by concatenation", "Prepared.auth", _sub('"no parent steps in " + url', '"no parent step in " + url'), D),
    ("text of a message raised inside a try", "Prepared.auth", _sub("{url!r}: no host", "{url!r}: missing host"), D),
    ("the condition that raises", "Prepared.auth", _sub('startswith("http")', 'startswith("https")'), D),
]


@pytest.mark.parametrize(("case", "qualname", "edit", "expected"), SLICE_CASES, ids=[c[0] for c in SLICE_CASES])
def test_message_text_in_a_setting_slice(case, qualname, edit, expected):
    stored = anchor({"m.py": SLICES}, "m.py", qualname)
    assert locate(stored, {"m.py": edit(SLICES)}).status is expected, case


def test_message_text_still_counts_for_a_caller_of_the_method():
    source = SLICES + '''
    def fetch(self, url):
        self.prepare_url(url, True)
        return self.url
'''
    stored = anchor({"m.py": source}, "m.py", "Prepared.fetch")
    edited = source.replace("try https://{url}?", "try http://{url}?", 1)
    assert locate(stored, {"m.py": edited}).status is D


def test_the_rows_cover_both_directions():
    for cases in (SIGNATURE_CASES, SLICE_CASES):
        assert {c[-1] for c in cases} == {F, D}


COMPILING = '''
import json


def load(path):
    namespace = {}
    exec(compile(open(path).read(), path, "exec"), namespace)
    return namespace


def use(path):
    return load(path)


def plain(path):
    return json.loads(open(path).read())
'''

FUTURE_CASES = [
    ("the module gains a __future__ import, code that compiles source", "use",
     lambda src: "from __future__ import annotations\n" + src, D),
    ("the module gains a __future__ import, code that does not compile", "plain",
     lambda src: "from __future__ import annotations\n" + src, F),
    ("compile shadowed by the module's own function", "use",
     lambda src: "from __future__ import annotations\n" + src.replace("import json\n", "import json\nfrom x import compile, exec\n"), D),
]


@pytest.mark.parametrize(("case", "qualname", "edit", "expected"), FUTURE_CASES, ids=[c[0] for c in FUTURE_CASES])
def test_compile_inherits_the_modules_future_features(case, qualname, edit, expected):
    """``compile``/``exec``/``eval`` compile with the caller's ``__future__`` features: code that calls them depends on them."""
    stored = anchor({"m.py": COMPILING}, "m.py", qualname)
    where = locate(stored, {"m.py": edit(COMPILING)})
    assert where.status is expected, case
    if case.startswith("the module gains") and expected is D:
        assert where.changed == ("from __future__",)
