"""The precise rule for classes read by name and for instance attributes: what a use needs, in both directions.

Each row anchors a note on one symbol of a small module, applies one edit
and checks the status: an edit to what the use needs withholds the note
(DEPENDENCY_CHANGED), an edit to a part of the class the use does not need
leaves it FRESH. Uses: ``isinstance``, ``except``, annotations, ``Cls.attr``,
``Cls(...)`` with the instance used through a local name, an instance that
escapes (whole class), a class from elsewhere's base (whole class), base
lists, ``self`` used as a value, ``cls(...)``, and the statements of
``__init__`` that set the attribute a method reads.
"""

from __future__ import annotations

import pytest

from cvlib.notes import AnchorStatus, anchor, locate

BASE = '''
from enum import Enum


class Shape:
    sides = 0

    def area(self):
        return 0

    def name(self):
        return "shape"


class Point(Shape):
    dims = 2

    def __init__(self, x, y):
        scale = 1
        self.x = x * scale
        self.y = y
        self.tag = "p"

    def norm(self):
        return abs(self.x) + abs(self.y)

    def label(self):
        return "p" + self.tag

    def size(self):
        return len(self)

    def __len__(self):
        return 2

    @classmethod
    def origin(cls):
        return cls(0, 0)


class Oops(Exception):
    code = 1

    def describe(self):
        return "oops"


class Colour(Enum):
    RED = 1
    GREEN = 2


def is_point(v):
    return isinstance(v, Point)


def guarded(f):
    try:
        return f()
    except Oops:
        return None


def dims():
    return Point.dims


def norm_of(x, y):
    p = Point(x, y)
    return p.norm()


def make(x, y):
    return Point(x, y)


def typed(p: Point) -> int:
    return 1


def red():
    return Colour(1)
'''

F, D, C = AnchorStatus.FRESH, AnchorStatus.DEPENDENCY_CHANGED, AnchorStatus.CHANGED


def _sub(old: str, new: str):
    def edit(src: str) -> str:
        assert old in src, old
        return src.replace(old, new, 1)
    return edit


NORM = _sub("return abs(self.x) + abs(self.y)", "return abs(self.x) * abs(self.y)")
LABEL = _sub('return "p" + self.tag', 'return "q" + self.tag')
AREA = _sub("        return 0\n\n    def name", "        return 1\n\n    def name")
HEADER = _sub("class Point(Shape):", "class Point(object):")

#: (case, anchored symbol, edit, expected status)
CASES = [
    # isinstance: the header and bases, not the body
    ("isinstance, a method changed", "is_point", NORM, F),
    ("isinstance, a base's method changed", "is_point", AREA, F),
    ("isinstance, the header changed", "is_point", HEADER, D),
    ("isinstance, __subclasshook__ added", "is_point", _sub("    dims = 2\n", "    dims = 2\n\n    @classmethod\n"
                                                            "    def __subclasshook__(cls, c):\n        return True\n"), D),
    # except: the header
    ("except, a method changed", "guarded", _sub('return "oops"', 'return "argh"'), F),
    ("except, the base changed", "guarded", _sub("class Oops(Exception):", "class Oops(ValueError):"), D),
    # annotations: nothing in the file reads them, so evaluating one only looks the class up (header or body alike);
    # test_notes_inert_annotations.py has the cases where a reader or a decorator makes them count
    ("annotation, a method changed", "typed", NORM, F),
    ("annotation, the header changed", "typed", HEADER, F),
    # Cls.attr: that member
    ("Cls.attr, another member changed", "dims", LABEL, F),
    ("Cls.attr, the member changed", "dims", _sub("dims = 2", "dims = 3"), D),
    # Cls(...) used through a local name: construction and the members used
    ("construction, an unused member changed", "norm_of", LABEL, F),
    ("construction, a base's unused method changed", "norm_of", AREA, F),
    ("construction, the member used changed", "norm_of", NORM, D),
    ("construction, __init__ changed", "norm_of", _sub("self.y = y", "self.y = -y"), D),
    ("construction, a local of __init__ changed", "norm_of", _sub("scale = 1", "scale = 2"), D),
    ("construction, __new__ added", "norm_of", _sub("    dims = 2\n", "    dims = 2\n\n    def __new__(cls, *a):\n"
                                                    "        return object.__new__(Shape)\n"), D),
    # the instance escapes: the whole class
    ("returned instance, any member changed", "make", LABEL, D),
    # a base from elsewhere may bring a metaclass: the whole class
    ("Enum construction, a member value changed", "red", _sub("RED = 1", "RED = 3"), D),
    ("Enum construction, another member changed", "red", _sub("GREEN = 2", "GREEN = 1"), D),
    # base lists: a method of the subclass does not read the base's other members
    ("subclass method, unrelated base method changed", "Point.norm", AREA, F),
    ("subclass method, base attribute changed", "Point.norm", _sub("sides = 0", "sides = 4"), F),
    ("subclass method, base gets __init_subclass__", "Point.norm", _sub(
        "    sides = 0\n", "    sides = 0\n\n    def __init_subclass__(cls):\n        cls.x = 0\n"), D),
    ("subclass method, inherited member it calls changed", "Point.label", _sub(
        'return "p" + self.tag', 'return self.name() + self.tag'), C),
    # instance attributes: the statements of __init__ that set what the method reads
    ("instance attribute, another attribute's assignment changed", "Point.norm", _sub('self.tag = "p"', 'self.tag = "r"'), F),
    ("instance attribute, its assignment changed", "Point.norm", _sub("self.y = y", "self.y = y + 1"), D),
    ("instance attribute, a local it reads changed", "Point.norm", _sub("scale = 1", "scale = 3"), D),
    ("instance attribute, an early return added", "Point.norm", _sub(
        "        scale = 1\n", "        scale = 1\n        if x is None:\n            return\n"), D),
    ("instance attribute, set again later", "Point.label", _sub(
        "    def norm(self):", "    def reset(self):\n        self.tag = None\n\n    def norm(self):"), D),
    # self used as a value: its special methods
    ("len(self), __len__ changed", "Point.size", _sub("        return 2\n", "        return 3\n"), D),
    ("len(self), an ordinary method changed", "Point.size", NORM, F),
    # cls(...) in a classmethod: construction, and the new instance escapes
    ("cls(...), __init__ changed", "Point.origin", _sub("self.y = y", "self.y = -y"), D),
    ("cls(...) returned, any member changed", "Point.origin", LABEL, D),
]


@pytest.mark.parametrize(("case", "qualname", "edit", "expected"), CASES, ids=[c[0] for c in CASES])
def test_class_use_and_instance_attribute_rules(case, qualname, edit, expected):
    stored = anchor({"m.py": BASE}, "m.py", qualname)
    where = locate(stored, {"m.py": edit(BASE)})
    assert where.status is expected, (case, where)


def test_the_rows_cover_both_directions():
    statuses = [c[3] for c in CASES]
    assert statuses.count(F) >= 10 and statuses.count(D) >= 15


def test_the_wide_rule_still_counts_a_base_whole():
    from cvlib.notes.python import PythonFile

    before, after = PythonFile(BASE, "m.py"), PythonFile(AREA(BASE), "m.py")
    assert before.dependencies("Point.norm", "wide") != after.dependencies("Point.norm", "wide")
    assert before.dependencies("Point.norm") == after.dependencies("Point.norm")


def test_a_slice_label_names_the_method_and_the_attribute():
    stored = anchor({"m.py": BASE}, "m.py", "Point.norm")
    where = locate(stored, {"m.py": _sub("self.y = y", "self.y = y + 1")(BASE)})
    assert "Point.__init__[self.y]" in where.changed
