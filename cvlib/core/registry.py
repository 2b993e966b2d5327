"""The registry of executors: a policy found by name, by entry point or by ``module:attribute``.

Adding an executor means writing a policy (its ``name``, the beliefs it
watches, and its ``check``; see :class:`~cvlib.core.loop.Policy`) and
registering it with :func:`register_policy` (or announcing it in the
entry-point group :data:`ENTRY_POINT_GROUP` of an installed package);
:func:`unregister_policy` takes it away again. Every scenario, sweep, trace,
table and chapter then runs it by name, and takes ``policies=`` a list of
names, ``"module:attribute"`` references or policy objects
(:func:`resolve_policies`). The article's two,
:data:`~cvlib.core.policies.ARTICLE_POLICIES`, are the default everywhere.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping

from cvlib.core.errors import ParameterError
from cvlib.core.loop import Policy
from cvlib.core.policies import (
    ARTICLE_POLICIES,
    BASELINE,
    TIMESTAMP_ONLY,
    VALIDITY_AWARE,
    Baseline,
    TimestampOnly,
    ValidityAware,
)

__all__ = [
    "BUILT_IN_POLICIES",
    "ENTRY_POINT_GROUP",
    "PolicyLike",
    "executor_names",
    "get_policy",
    "law_policies",
    "policies",
    "policy_names",
    "register_policy",
    "resolve_policies",
    "resolve_policy",
    "unregister_policy",
]

#: The entry-point group in which an installed package announces its policies (``importlib.metadata``).
ENTRY_POINT_GROUP = "cvlib.policies"

#: The registered executors by name, baseline first (the order of every comparison table).
_POLICIES: dict[str, Policy] = {BASELINE: Baseline(), VALIDITY_AWARE: ValidityAware(), TIMESTAMP_ONLY: TimestampOnly()}
#: The executors cvlib itself defines, which cannot be unregistered. Every entry point runs the article's two by
#: default and every law check runs the baseline, so taking one away would break callers that never named it.
BUILT_IN_POLICIES: frozenset[str] = frozenset(_POLICIES)
#: Whether the entry points of :data:`ENTRY_POINT_GROUP` have been read into :data:`_POLICIES`.
_ENTRY_POINTS_LOADED = False

#: A policy as the entry points take it, a registered name, a ``"module:attribute"`` reference, or the object itself.
PolicyLike = str | Policy


def _check_policy(policy: object, origin: str) -> Policy:
    """``policy`` if it has what the loop calls (a name that can head a column, and the three methods)."""
    name = getattr(policy, "name", None)
    if not isinstance(name, str) or not name.isidentifier():
        raise ParameterError(
            f"{origin}: a policy needs a name made of letters, digits and underscores (it heads "
            f"columns such as {{name}}_pfw), got {name!r}"
        )
    missing = [m for m in ("watched_states", "watches_health", "check") if not callable(getattr(policy, m, None))]
    if missing:
        raise ParameterError(f"{origin}: policy {name!r} has no {', '.join(missing)} method (see cvlib.core.executors.Policy)")
    return policy  # type: ignore[return-value]


def _instantiate(obj: object, origin: str) -> Policy:
    """A policy from what a reference names: the object itself, or an instance of a class made with no arguments."""
    if isinstance(obj, type):
        cls = obj
        try:
            obj = cls()
        except TypeError as exc:
            raise ParameterError(f"{origin}: the class {cls.__name__} cannot be made without arguments ({exc})") from None
    return _check_policy(obj, origin)


def register_policy(policy: Policy) -> None:
    """Make ``policy`` runnable by name (:func:`run_executor`, traces, sweeps, the CLI) under ``policy.name``.

    Parameters
    ----------
    policy : Policy
        A new executor; its name must not be taken and must be a Python identifier
        (it heads result columns, ``{name}_pfw``).
    """
    _check_policy(policy, "register_policy")
    name = policy.name
    if name in _POLICIES:
        raise ParameterError(f"an executor called {name!r} is already registered")
    _POLICIES[name] = policy


def unregister_policy(name: str) -> None:
    """Take the executor registered as ``name`` away, so that its name is free again and no longer runs.

    What :func:`register_policy` (or an entry point) added can be taken
    back, e.g. by a test or a notebook that registered a trial policy. The
    built-in executors (:data:`BUILT_IN_POLICIES`) cannot: every entry point
    runs the article's two by default and every law check runs the baseline,
    so removing one would break callers that never named it.

    Parameters
    ----------
    name : str
        The registered executor's name.

    Raises
    ------
    ParameterError
        One line naming ``name`` if no executor is registered under it, or if it is built in.
    """
    if isinstance(name, str) and name in BUILT_IN_POLICIES:
        raise ParameterError(
            f"executor {name!r} is built in and cannot be unregistered (the defaults and the law check run it); "
            f"registered by others: {', '.join(n for n in executor_names() if n not in BUILT_IN_POLICIES) or '(none)'}"
        )
    _load_entry_points()  # an announced policy is registered on first use: load it so that it can be taken away
    if not isinstance(name, str) or name not in _POLICIES:
        raise ParameterError(
            f"no executor called {name!r} is registered; registered: {', '.join(_POLICIES)}"
        )
    del _POLICIES[name]


def _load_entry_points() -> None:
    """Register every policy announced in :data:`ENTRY_POINT_GROUP` by an installed package, once.

    An entry point names a policy object or a policy class (made with no
    arguments); its policy is registered under its own ``name``, unless a
    policy of that name is already registered.
    """
    global _ENTRY_POINTS_LOADED
    if _ENTRY_POINTS_LOADED:
        return
    _ENTRY_POINTS_LOADED = True
    from importlib.metadata import entry_points

    for point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda p: (p.name, p.value)):
        origin = f"entry point {point.name} = {point.value} ({ENTRY_POINT_GROUP})"
        try:
            loaded = point.load()
        except Exception as exc:  # a broken plugin must not stop cvlib, but it must say so
            raise ParameterError(f"{origin} cannot be loaded: {type(exc).__name__}: {exc}") from None
        policy = _instantiate(loaded, origin)
        _POLICIES.setdefault(policy.name, policy)


def executor_names() -> list[str]:
    """Names :func:`run_executor` accepts, baseline first (the order of every comparison table).

    Includes the policies installed packages announce in :data:`ENTRY_POINT_GROUP`.

    Returns
    -------
    list of str
    """
    _load_entry_points()
    return list(_POLICIES)


def get_policy(name: str) -> Policy:
    """The registered policy called ``name``; an unknown name raises a :class:`~cvlib.core.errors.ParameterError` listing the known ones.

    Parameters
    ----------
    name : str
        An executor's name.

    Returns
    -------
    Policy
    """
    try:
        return _POLICIES[name]
    except (KeyError, TypeError):
        pass
    _load_entry_points()
    try:
        return _POLICIES[name]
    except (KeyError, TypeError):
        raise ParameterError(
            f"unknown executor {name!r}; expected one of {', '.join(_POLICIES)} (or module:attribute)"
        ) from None


def _import_reference(reference: str) -> Policy:
    """The policy named by ``"module:attribute"`` (the attribute may be dotted, and may be a class)."""
    module_name, _, attribute = reference.partition(":")
    if not module_name or not attribute:
        raise ParameterError(f"policy reference {reference!r}: expected module:attribute, e.g. mypolicies:Cautious")
    try:
        obj: object = importlib.import_module(module_name)
    except ImportError as exc:
        raise ParameterError(f"policy reference {reference!r}: cannot import module {module_name!r} ({exc})") from None
    for part in attribute.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ParameterError(f"policy reference {reference!r}: module {module_name!r} has no {attribute!r}") from None
    return _instantiate(obj, f"policy reference {reference!r}")


def _own_name(policy: Policy, origin: str) -> Policy:
    """``policy``, unless it carries the name of a registered executor of another class.

    Results are laid out by name, so such a policy's rows would be labelled
    as the registered one's. The usual way to get there is a subclass that
    sets ``name = "..."`` as a plain class attribute: the ``name`` field it
    inherits is set to its default by ``__init__`` and hides it.
    """
    registered = _POLICIES.get(policy.name)
    if registered is None or registered is policy or type(registered) is type(policy):
        return policy
    meant = type(policy).__dict__.get("name")
    hint = (f" (its class sets name = {meant!r}, but the name field it inherits is set to its default when it is made: "
            f"declare the field, name: str = {meant!r}, in a value class, or pass name={meant!r})"
            if isinstance(meant, str) and meant != policy.name else "")
    raise ParameterError(
        f"{origin}: the policy {type(policy).__qualname__} is named {policy.name!r}, the name of the registered executor "
        f"{type(registered).__qualname__}, so its results would be labelled as that one's; give it a name of its own{hint}"
    )


def resolve_policy(policy: PolicyLike) -> Policy:
    """One policy from a registered name, a ``"module:attribute"`` reference, or a policy object.

    Parameters
    ----------
    policy : str or Policy
        ``"baseline"``, ``"timestamp_only"``, ``"mypackage.policies:Cautious"`` (an
        object or a class made with no arguments), or the policy itself.

    Returns
    -------
    Policy
    """
    if isinstance(policy, str):
        if ":" in policy:
            return _own_name(_import_reference(policy), f"policy reference {policy!r}")
        return get_policy(policy)
    return _own_name(_check_policy(policy, "policies"), "policies")


def resolve_policies(policies: Iterable[PolicyLike] | PolicyLike | None = None) -> tuple[Policy, ...]:
    """The policies an entry point runs, in the order asked; None is the article's two.

    Parameters
    ----------
    policies : list of (str or Policy), a single one, or None
        Names, ``"module:attribute"`` references or policy objects; their
        names must differ (each heads its own result columns).

    Returns
    -------
    tuple of Policy
    """
    if policies is None:
        return _ARTICLE
    if isinstance(policies, str) or not isinstance(policies, Iterable):
        policies = [policies]
    resolved = tuple(resolve_policy(p) for p in policies)
    if not resolved:
        raise ParameterError(f"policies needs at least one executor; registered: {', '.join(executor_names())}")
    names = [p.name for p in resolved]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ParameterError(f"policies names {', '.join(map(repr, repeated))} more than once; got {names}")
    return resolved


def law_policies(policies: Iterable[PolicyLike] | PolicyLike | None = None) -> tuple[Policy, ...]:
    """The baseline, whose doomed work the law predicts, then any other of ``policies``: what a law check runs.

    Parameters
    ----------
    policies : list of (str or Policy), a single one, or None
        Executors to run beside the baseline; None is the baseline alone.

    Returns
    -------
    tuple of Policy
    """
    if policies is None:
        return (_POLICIES[BASELINE],)
    return (_POLICIES[BASELINE], *(p for p in resolve_policies(policies) if p.name != BASELINE))


def policy_names(policies: Iterable[PolicyLike] | PolicyLike | None = None) -> list[str]:
    """The names of :func:`resolve_policies`' policies, in order.

    Parameters
    ----------
    policies : list of (str or Policy), a single one, or None
        As for :func:`resolve_policies`.

    Returns
    -------
    list of str
    """
    return [p.name for p in resolve_policies(policies)]



def policies() -> Mapping[str, Policy]:
    """Every registered policy by name (a copy), with those installed packages announce.

    Returns
    -------
    dict of str to Policy
    """
    _load_entry_points()
    return dict(_POLICIES)


#: The article's two policies, resolved once.
_ARTICLE: tuple[Policy, ...] = tuple(_POLICIES[name] for name in ARTICLE_POLICIES)

