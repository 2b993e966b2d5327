"""The precise rule's refinements, edit by edit in both directions.

* **Receiver context**: a member found in a base, reached from a subclass,
  is read as it is seen from that subclass: ``self.x`` in the base's code
  resolves on the subclass, its bases and its own subclasses, never on a
  sibling class that shares the base.
* **Annotations Python never evaluates**: the annotation of an annotated
  assignment in a function body (``x: Foo = 1``, ``self.a: Foo = v``) is
  neither evaluated nor stored, so the statement is the plain assignment
  (``x = 1``); module- and class-level ones still count, and parameter and
  return annotations count wherever something may see them
  (``test_notes_inert_annotations.py``).
* **Slices of setting methods**: the statements of a method that set an
  attribute are compared without the method's parameter annotations unless
  a decorator may read them (one that hands the method to other code may
  validate by them; one that only returns it cannot).
* **abc.ABCMeta** is no fallback for the methods of a class.
* **setattr with any name**: a method whose only defeat is ``setattr(self,
  name, v)`` counts what assignment can run (class-level values, property
  setters and descriptors of the class, its bases and subclasses of the
  file), not its bases whole.
* **Relative imports read against the path**: in ``pkg/m.py``, ``from
  .base import X`` is ``from pkg.base import X``; another module, another
  package, a path that is no import path still differ.
* **Slices follow no names read only in their annotations**: ``self.a:
  dict[str, int] = {}`` in a setting method reads no ``dict``; its value
  still does.
* **Inert class annotations**: under ``from __future__ import annotations``,
  in a class the file shows whole, a class-level annotation is a string
  nobody reads on creation: its text does not count (its value, if any,
  does), except for code that reads ``__annotations__``.

Each row anchors a note, applies one edit and checks the status:
DEPENDENCY_CHANGED where the edit can change what the note's code does,
FRESH where it cannot.
"""

from __future__ import annotations

import pytest

from cvlib.notes import AnchorStatus, anchor, locate

F, D = AnchorStatus.FRESH, AnchorStatus.DEPENDENCY_CHANGED

HIERARCHY = '''
class Mixin:
    def hook(self):
        return self.kind()


class Request(Mixin):
    def __init__(self):
        self.headers = {}

    def kind(self):
        return "request"


class Prepared(Mixin):
    def kind(self):
        return "prepared"

    def run(self):
        return self.hook()

    def send(self):
        return self.headers


class Base:
    def __init__(self):
        self.value = self.make()

    def make(self):
        return 0


class Left(Base):
    def make(self):
        return 1

    def get(self):
        return self.value


class Right(Base):
    def make(self):
        return 2
'''

ANNOTATIONS = '''
class Thing:
    size = 1

    def grow(self):
        return 2


def helper():
    x: Thing = 1
    return x


def user():
    return helper()


def typed(p: int = 0):
    return p


def calls_typed():
    return typed()


def factory():
    class Local:
        y: Thing = 1
    return Local


def uses_factory():
    return factory()


class Holder:
    def __init__(self, v):
        self.a: Thing = v

    def read(self):
        return self.a
'''

SLICES = '''
def check(f):
    CHECKED.append(f)
    return f


def passthrough(f):
    return f


CHECKED = []


class Plain:
    def __init__(self, v: int, w: str = "w"):
        self.v = v
        self.w = w

    def get(self):
        return self.v


class Checked:
    @check
    def __init__(self, v: int):
        self.v = v

    def get(self):
        return self.v


class Passed:
    @passthrough
    def __init__(self, v: int):
        self.v = v

    def get(self):
        return self.v
'''

ABSTRACT = '''
from abc import ABCMeta, abstractmethod


class Stream(metaclass=ABCMeta):
    def __init__(self):
        self.size = 1
        self.tag = "t"

    @abstractmethod
    def body(self):
        pass

    def total(self):
        return self.size + 1


def make():
    return Stream()
'''

DYNAMIC = '''
class Base:
    def describe(self):
        return "b"

    @property
    def level(self):
        return self._level

    @level.setter
    def level(self, value):
        self._level = int(value)


class Store(Base):
    limit = 3

    def __init__(self):
        self.items = []

    @property
    def size(self):
        return len(self.items)

    @property
    def mode(self):
        return self._mode

    @mode.setter
    def mode(self, value):
        self._mode = value.lower()

    def load(self, state):
        for key, value in state.items():
            setattr(self, key, value)

    def total(self):
        return self.limit + len(self.items)


class Special(Store):
    @property
    def flag(self):
        return 1

    @flag.setter
    def flag(self, value):
        self._flag = bool(value)
'''

INERT = '''from __future__ import annotations


class Resp:
    reason: str | None
    code: int = 0

    def __init__(self):
        self.reason = None

    def ok(self):
        return self.reason is None

    def get_code(self):
        return self.code

    def hints(self):
        return type(self).__annotations__
'''


def _sub(old: str, new: str):
    def edit(src: str) -> str:
        assert old in src, old
        return src.replace(old, new, 1)
    return edit


REQUEST_KIND = _sub('return "request"', 'return "REQUEST"')
PREPARED_KIND = _sub('return "prepared"', 'return "PREPARED"')
REASON = _sub("    reason: str | None\n", "    reason: str\n")

#: (case, source, anchored symbol, edit, expected status)
CASES = [
    # receiver context: siblings that share a base are out of the subclass's reach
    ("a sibling's override of what the base calls", HIERARCHY, "Prepared.run", REQUEST_KIND, F),
    ("the receiver's own override the base calls back", HIERARCHY, "Prepared.run", PREPARED_KIND, D),
    ("the base's method itself", HIERARCHY, "Prepared.run", _sub("return self.kind()", "return self.kind() * 2"), D),
    ("the base's method, any subclass may be the receiver", HIERARCHY, "Mixin.hook", REQUEST_KIND, D),
    ("a subclass of the receiver overrides it", HIERARCHY + "\n\nclass Special(Prepared):\n    def kind(self):\n"
     "        return 's'\n", "Prepared.run", _sub("return 's'", "return 'S'"), D),
    ("a subclass of the receiver also derives from the sibling", HIERARCHY + "\n\nclass Both(Request, Prepared):\n"
     "    pass\n", "Prepared.run", REQUEST_KIND, D),
    ("an attribute the base leaves unbound, set by a sibling", HIERARCHY, "Prepared.send",
     _sub("self.headers = {}", "self.headers = []"), F),
    ("a sibling's override used by the base's __init__", HIERARCHY, "Left.get", _sub("return 2", "return 3"), F),
    ("the receiver's override used by the base's __init__", HIERARCHY, "Left.get", _sub("return 1", "return 5"), D),
    ("the base's assignment of the attribute", HIERARCHY, "Left.get", _sub("self.value = self.make()",
                                                                          "self.value = self.make() + 1"), D),
    ("the noted method calls what a subclass overrides", HIERARCHY, "Base.__init__", _sub("return 1", "return 5"), D),
    # annotations inside function bodies are never evaluated
    ("a local annotation changed", ANNOTATIONS, "user", _sub("x: Thing = 1", "x: int = 1"), F),
    ("a class named only in a local annotation changed", ANNOTATIONS, "user", _sub("size = 1", "size = 2"), F),
    ("the annotated local's value changed", ANNOTATIONS, "user", _sub("x: Thing = 1", "x: Thing = 2"), D),
    ("an attribute's annotation in __init__ changed", ANNOTATIONS, "Holder.read", _sub("self.a: Thing = v",
                                                                                     "self.a: int = v"), F),
    ("an attribute's value in __init__ changed", ANNOTATIONS, "Holder.read", _sub("self.a: Thing = v",
                                                                                "self.a: Thing = v * 2"), D),
    # nothing in the file reads annotations and both evaluate to a builtin: the callee runs the same (see
    # test_notes_inert_annotations.py for the cases where a reader, a decorator or the evaluation makes them count)
    ("a parameter annotation of a callee changed", ANNOTATIONS, "calls_typed", _sub("p: int = 0", "p: str = 0"), F),
    ("a parameter annotation of a callee changed, a reader in the file", ANNOTATIONS + "\nHINTS = typing.get_type_hints\n",
     "calls_typed", _sub("p: int = 0", "p: str = 0"), D),
    ("a parameter default of a callee changed", ANNOTATIONS, "calls_typed", _sub("p: int = 0", "p: int = 1"), D),
    ("a class-level annotation in a local class changed", ANNOTATIONS, "uses_factory", _sub("y: Thing = 1",
                                                                                          "y: int = 1"), D),
    ("a class read by a local class's annotation, its header changed", ANNOTATIONS, "uses_factory",
     _sub("class Thing:", "class Thing(int):"), D),
    ("a class named only in a local annotation, its header changed", ANNOTATIONS, "user",
     _sub("class Thing:", "class Thing(int):"), F),
    # ... so an annotated assignment in a function body is the plain assignment
    ("a local's annotation dropped", ANNOTATIONS, "user", _sub("x: Thing = 1", "x = 1"), F),
    ("an attribute's annotation in __init__ dropped", ANNOTATIONS, "Holder.read", _sub("self.a: Thing = v", "self.a = v"), F),
    ("a local's annotation dropped and its value changed", ANNOTATIONS, "user", _sub("x: Thing = 1", "x = 2"), D),
    ("a class-level annotation in a local class dropped", ANNOTATIONS, "uses_factory", _sub("y: Thing = 1", "y = 1"), D),
    ("a module-level annotation dropped", "LIMIT: int = 3\n\n\ndef get():\n    return LIMIT\n", "get",
     _sub("LIMIT: int = 3", "LIMIT = 3"), D),
    # the statements of a method that set an attribute: its signature's annotations steer callers only
    ("a parameter annotation of the setting method changed", SLICES, "Plain.get", _sub("v: int, w", "v: float, w"), F),
    ("a parameter of the setting method renamed", SLICES, "Plain.get",
     _sub("v: int, w: str = \"w\"):\n        self.v = v", "x: int, w: str = \"w\"):\n        self.v = x"), D),
    ("a default of the setting method changed", SLICES, "Plain.get", _sub('w: str = "w"', 'w: str = "x"'), D),
    ("a decorated setting method's annotation changed (the decorator hands it on)", SLICES, "Checked.get",
     _sub("def __init__(self, v: int):", "def __init__(self, v: float):"), D),
    ("a setting method's annotation changed under a decorator that only returns it", SLICES, "Passed.get",
     _sub("    @passthrough\n    def __init__(self, v: int):", "    @passthrough\n    def __init__(self, v: float):"), F),
    # abc.ABCMeta changes no member lookup: the precise rule applies to the methods
    ("ABCMeta class, another attribute's assignment changed", ABSTRACT, "Stream.total",
     _sub('self.tag = "t"', 'self.tag = "u"'), F),
    ("ABCMeta class, the attribute's assignment changed", ABSTRACT, "Stream.total", _sub("self.size = 1", "self.size = 2"), D),
    ("ABCMeta class constructed, an abstract method changed", ABSTRACT, "make",
     _sub("    @abstractmethod\n    def body", "    def body"), D),
    ("another metaclass still falls back", ABSTRACT.replace("from abc import ABCMeta, abstractmethod",
                                                             "from abc import abstractmethod\nfrom m2 import ABCMeta"),
     "Stream.total", _sub('self.tag = "t"', 'self.tag = "u"'), D),
    # setattr(self, name, v) with any name: what assignment can run, not the whole bases
    ("setattr, a base's plain method changed", DYNAMIC, "Store.total", _sub('return "b"', 'return "c"'), F),
    ("setattr, a property getter changed", DYNAMIC, "Store.total", _sub("return len(self.items)",
                                                                      "return len(self.items) or 0"), F),
    ("setattr, a property setter changed", DYNAMIC, "Store.total", _sub("value.lower()", "value.upper()"), D),
    ("setattr, a base's property setter changed", DYNAMIC, "Store.total", _sub("int(value)", "float(value)"), D),
    ("setattr, a subclass's property setter changed", DYNAMIC, "Store.total", _sub("bool(value)", "not value"), D),
    ("setattr, a getter became a setter", DYNAMIC, "Store.total",
     _sub("        return len(self.items)\n", "        return len(self.items)\n\n    @size.setter\n"
          "    def size(self, value):\n        self.items = [None] * value\n"), D),
    ("setattr, a class attribute changed", DYNAMIC, "Store.total", _sub("limit = 3", "limit = 4"), D),
    ("getattr as well, a base's plain method changed", DYNAMIC.replace("setattr(self, key, value)",
                                                                       "setattr(self, key, getattr(self, key))"),
     "Store.total", _sub('return "b"', 'return "c"'), D),
    # class-level annotations under the future import, in a plain class
    ("a declared attribute's annotation changed", INERT, "Resp.ok", REASON, F),
    ("a declared attribute's annotation changed, the store", INERT, "Resp.__init__", REASON, F),
    ("the declaration became a property", INERT, "Resp.__init__",
     _sub("    reason: str | None\n", "    reason = property(lambda s: 1)\n"), D),
    ("an attribute's annotation changed, not its value", INERT, "Resp.get_code", _sub("code: int = 0",
                                                                                    "code: float = 0"), F),
    ("an annotated attribute's value changed", INERT, "Resp.get_code", _sub("code: int = 0", "code: int = 1"), D),
    ("code that reads __annotations__", INERT, "Resp.hints", REASON, D),
    ("without the future import", INERT.replace("from __future__ import annotations\n", ""), "Resp.ok", REASON, D),
    ("a class decorator may read the annotations", INERT.replace("class Resp:", "@register\nclass Resp:"), "Resp.ok",
     REASON, D),
    ("a base from elsewhere may read the annotations", INERT.replace("class Resp:", "class Resp(Model):"), "Resp.ok",
     REASON, D),
]


@pytest.mark.parametrize(("case", "source", "qualname", "edit", "expected"), CASES, ids=[c[0] for c in CASES])
def test_precise_rule_refinements(case, source, qualname, edit, expected):
    stored = anchor({"m.py": source}, "m.py", qualname)
    where = locate(stored, {"m.py": edit(source)})
    assert where.status is expected, (case, where)


def test_the_rows_cover_both_directions():
    statuses = [c[4] for c in CASES]
    assert statuses.count(F) >= 12 and statuses.count(D) >= 16


def test_abcmeta_is_no_fallback_but_an_imported_namesake_is():
    from cvlib.notes.python import PythonFile

    assert PythonFile(ABSTRACT, "m.py").fallback_reason("Stream.total") == ""
    other = ABSTRACT.replace("from abc import ABCMeta, abstractmethod", "from abc import abstractmethod\nfrom m2 import ABCMeta")
    assert PythonFile(other, "m.py").fallback_reason("Stream.total") == "metaclass"


@pytest.mark.parametrize(("source", "qualname", "edit"), [
    (ANNOTATIONS, "user", _sub("x: Thing = 1", "x: int = 1")),
    (INERT, "Resp.ok", REASON),
    (SLICES, "Plain.get", _sub("v: int, w", "v: float, w")),
    (ABSTRACT, "Stream.total", _sub('self.tag = "t"', 'self.tag = "u"')),
    (DYNAMIC, "Store.total", _sub('return "b"', 'return "c"')),
])
def test_the_wide_rule_is_unchanged_by_the_refinements(source, qualname, edit):
    from cvlib.notes.python import PythonFile

    before, after = PythonFile(source, "m.py"), PythonFile(edit(source), "m.py")
    assert before.dependencies(qualname, "wide") != after.dependencies(qualname, "wide")
    assert before.dependencies(qualname) == after.dependencies(qualname)


RELATIVE = '''
from pkg.base import Limit
from . import tools


def use():
    return Limit(tools.size())
'''


@pytest.mark.parametrize(("case", "path", "edit", "expected"), [
    ("absolute to relative, same module", "pkg/m.py", _sub("from pkg.base import", "from .base import"), F),
    ("relative to absolute, the package itself", "pkg/m.py", _sub("from . import tools", "from pkg import tools"), F),
    ("one level up, same module", "pkg/sub/m.py", _sub("from pkg.base import", "from ..base import"), F),
    ("in __init__.py the package is its folder", "pkg/__init__.py", _sub("from pkg.base import", "from .base import"),
     F),
    ("relative, another module", "pkg/m.py", _sub("from pkg.base import", "from .other import"), D),
    ("relative, another package", "other/m.py", _sub("from pkg.base import", "from .base import"), D),
    ("one level too few", "pkg/sub/m.py", _sub("from pkg.base import", "from .base import"), D),
    ("climbs above the path's top folder", "pkg/m.py", _sub("from pkg.base import", "from ..base import"), D),
    ("a path that is no import path", "m.py", _sub("from pkg.base import", "from .base import"), D),
    ("a folder that is no identifier", "my-pkg/pkg/m.py", _sub("from pkg.base import", "from .base import"), D),
])
def test_relative_imports_are_read_against_the_path(case, path, edit, expected):
    stored = anchor({path: RELATIVE}, path, "use")
    where = locate(stored, {path: edit(RELATIVE)})
    assert where.status is expected, (case, where)


def test_the_wide_rule_keeps_imports_as_written():
    from cvlib.notes.python import PythonFile

    edit = _sub("from pkg.base import", "from .base import")
    before, after = PythonFile(RELATIVE, "pkg/m.py"), PythonFile(edit(RELATIVE), "pkg/m.py")
    assert before.dependencies("use", "wide") != after.dependencies("use", "wide")
    assert before.dependencies("use") == after.dependencies("use")


SLICE_NAMES = '''
class Box:
    def __init__(self, pairs):
        self.items: dict[str, int] = {}
        self.extra = dict(pairs)
        self.order: list[str] = list(pairs)

    def get(self, key):
        return self.items[key]

    def first(self):
        return self.order[0]
'''

SHADOW = _sub("class Box:", "class MyDict(dict):\n    pass\n\n\ndict = MyDict\nlist = tuple\n\n\nclass Box:")


@pytest.mark.parametrize(("case", "qualname", "edit", "expected"), [
    ("a name only in the slice's annotation is shadowed", "Box.get", SHADOW, F),
    ("the rest of the method stops reading the slice's annotation name", "Box.get",
     _sub("        self.extra = dict(pairs)\n", ""), F),
    ("a name in the slice's value is shadowed", "Box.first", SHADOW, D),
    ("the slice's value changes", "Box.get", _sub("self.items: dict[str, int] = {}", "self.items: dict[str, int] = {'a': 1}"),
     D),
])
def test_a_slice_does_not_follow_names_read_only_in_its_annotations(case, qualname, edit, expected):
    stored = anchor({"m.py": SLICE_NAMES}, "m.py", qualname)
    where = locate(stored, {"m.py": edit(SLICE_NAMES)})
    assert where.status is expected, (case, where)
