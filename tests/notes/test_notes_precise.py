"""The precise member rule: a method is withheld when a member it reads changes, not when an unrelated one does.

Each row anchors a note on one method of a small module, applies one edit
and checks the status under the gate's (precise) rule, and that the wide
rule (every class attribute for every method) withholds at least as often
on member edits. The fallback rows check that code which defeats the
analysis (computed attribute names, the instance's dict, descriptors,
metaclasses, class decorators) falls back to the wide rule and says so.
"""

from __future__ import annotations

import pytest

from cvlib.notes import AnchorStatus, anchor, locate
from cvlib.notes.python import FALLBACK_REASONS, PythonFile

BASE = '''
RATE = 3


def helper(x):
    return x * RATE


class Base:
    unit = "s"

    def label(self):
        return "base:" + self.unit


class Runner(Base):
    scale = 2
    colour = "red"
    width = 10

    def __init__(self, n):
        self.count = n
        self.log = []

    def step(self, n):
        return self.count + n * self.scale

    def describe(self):
        return self.label() + str(self.width)

    def total(self):
        return self.describe() + str(helper(self.count))

    def via_type(self):
        return type(self).width + 1

    def via_name(self):
        return Runner.scale * 7

    def via_super(self):
        return super().label() + "!"

    def unrelated(self):
        return 42 * 1000

    @classmethod
    def make(cls):
        return cls(cls.width)

    def paint(self):
        return self.colour


class Fast(Runner):
    def label(self):
        return "fast:" + str(self.scale)
'''

F, D, C = AnchorStatus.FRESH, AnchorStatus.DEPENDENCY_CHANGED, AnchorStatus.CHANGED


def _sub(old: str, new: str):
    def edit(src: str) -> str:
        assert old in src, old
        return src.replace(old, new, 1)
    return edit


#: (case, anchored method, edit, expected status under the precise rule)
CASES = [
    # an unrelated member of the class changes: stays visible
    ("unrelated attribute changed", "Runner.step", _sub('colour = "red"', 'colour = "blue"'), F),
    ("unrelated method changed", "Runner.step", _sub("return 42 * 1000", "return 0"), F),
    ("unrelated method decorated", "Runner.step", _sub("    def unrelated(self):", "    @staticmethod\n    def unrelated(self):"), F),
    ("unrelated attribute added", "Runner.step", _sub("    width = 10\n", "    width = 10\n    height = 5\n"), F),
    ("attribute another method reads", "Runner.paint", _sub("scale = 2", "scale = 5"), F),
    # a member the method reads changes: withheld
    ("attribute it reads", "Runner.step", _sub("scale = 2", "scale = 5"), D),
    ("instance attribute's assignment", "Runner.step", _sub("self.count = n", "self.count = n + 1"), D),
    ("attribute read through type(self)", "Runner.via_type", _sub("width = 10", "width = 11"), D),
    ("attribute read through the class name", "Runner.via_name", _sub("scale = 2", "scale = 5"), D),
    ("attribute read through cls", "Runner.make", _sub("width = 10", "width = 11"), D),
    ("base method reached through super()", "Runner.via_super", _sub('"base:" + self.unit', '"b:" + self.unit'), D),
    # a member read by a method it calls changes: withheld
    ("attribute read by a method it calls", "Runner.total", _sub("width = 10", "width = 12"), D),
    ("base attribute read two calls down", "Runner.total", _sub('unit = "s"', 'unit = "ms"'), D),
    ("module helper of a method it calls", "Runner.total", _sub("RATE = 3", "RATE = 4"), D),
    # an override in a subclass of the same file: self.label() may dispatch to it
    ("override in a subclass changed", "Runner.describe", _sub('"fast:" + str(self.scale)', '"quick:" + str(self.scale)'), D),
    ("override added in a subclass", "Runner.step", _sub("class Fast(Runner):\n", "class Fast(Runner):\n    def step(self, n):\n        return 0\n\n"), D),
    ("class header changed", "Runner.paint", _sub("class Runner(Base):", "class Runner(object):"), D),
    ("own code", "Runner.step", _sub("n * self.scale", "n + self.scale"), C),
]


@pytest.mark.parametrize(("case", "qualname", "edit", "expected"), CASES, ids=[c[0] for c in CASES])
def test_precise_member_rule(case, qualname, edit, expected):
    stored = anchor({"m.py": BASE}, "m.py", qualname)
    edited = edit(BASE)
    where = locate(stored, {"m.py": edited})
    assert where.status is expected, (case, where)
    if expected is D:
        assert where.changed


@pytest.mark.parametrize(("case", "qualname", "edit", "expected"), CASES, ids=[c[0] for c in CASES])
def test_the_precise_rule_never_shows_what_the_wide_rule_would_have_withheld_for_a_member_read(case, qualname, edit, expected):
    before, after = PythonFile(BASE, "m.py"), PythonFile(edit(BASE), "m.py")
    if after.symbol(qualname) is None:
        pytest.skip("the symbol is gone")
    wide_changed = before.dependencies(qualname, "wide") != after.dependencies(qualname, "wide")
    precise_changed = before.dependencies(qualname) != after.dependencies(qualname)
    if expected is D:
        assert precise_changed
    if expected is F:
        assert not precise_changed
        if "attribute" in case:
            assert wide_changed  # what the precision buys: the wide rule withheld it


FALLBACKS = [
    ("getattr/setattr on self", "class K:\n    a = 1\n    b = 2\n\n    def m(self, name):\n        return getattr(self, name)\n"),
    ("getattr/setattr on self", "class K:\n    a = 1\n    b = 2\n\n    def m(self, name):\n        setattr(self, name, 0)\n"),
    ("vars(self) or self.__dict__", "class K:\n    a = 1\n    b = 2\n\n    def m(self):\n        return vars(self)\n"),
    ("vars(self) or self.__dict__", "class K:\n    a = 1\n    b = 2\n\n    def m(self):\n        return self.__dict__\n"),
    ("descriptor defined in the file", "class D:\n    def __get__(self, obj, owner):\n        return obj.b\n\n"
     "class K:\n    a = D()\n    b = 2\n\n    def m(self):\n        return 1\n"),
    ("metaclass", "class Meta(type):\n    pass\n\nclass K(metaclass=Meta):\n    a = 1\n    b = 2\n\n    def m(self):\n        return 1\n"),
    ("class decorator", "def deco(c):\n    return c\n\n@deco\nclass K:\n    a = 1\n    b = 2\n\n    def m(self):\n        return 1\n"),
    ("dynamic attribute access", "class K:\n    a = 1\n    b = 2\n\n    def __getattr__(self, name):\n        return 0\n\n"
     "    def m(self):\n        return self.zzz\n"),
    ("self passed to a function of the file", "def peek(obj):\n    return obj.b\n\nclass K:\n    a = 1\n    b = 2\n\n"
     "    def m(self):\n        return peek(self)\n"),
]


@pytest.mark.parametrize(("reason", "source"), FALLBACKS, ids=[f"{r}-{i}" for i, (r, _) in enumerate(FALLBACKS)])
def test_each_fallback_trigger_falls_back_to_the_wide_rule(reason, source):
    parsed = PythonFile(source, "m.py")
    assert parsed.fallback_reason("K.m") == reason
    assert reason in FALLBACK_REASONS
    # under the fallback, an attribute the method never names still withholds it, as under the wide rule
    stored = anchor({"m.py": source}, "m.py", "K.m")
    edited = source.replace("    b = 2\n", "    b = 3\n")
    assert locate(stored, {"m.py": edited}).status is D
    if "setattr(self" in source:
        # setattr alone reaches what assignment runs: the class-level members, as assignment sees them
        precise = {label.removesuffix("[setattr]") for label in parsed.dependencies("K.m")}
        assert precise == set(parsed.dependencies("K.m", "wide"))
    else:
        assert parsed.dependencies("K.m") == parsed.dependencies("K.m", "wide")


def test_a_plain_method_does_not_fall_back():
    assert PythonFile(BASE, "m.py").fallback_reason("Runner.step") == ""
    assert PythonFile(BASE, "m.py").fallback_reason("helper") == ""


def test_an_unknown_rule_is_a_one_line_error():
    from cvlib.notes import NotesError

    with pytest.raises(NotesError, match="dependency rule must be one of 'precise', 'wide', got 'loose'"):
        PythonFile(BASE, "m.py").dependencies("Runner.step", "loose")
