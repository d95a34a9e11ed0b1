"""Policy spec strings, the common currency of the command line and the tree layer.

    spec := name [":" key "=" value ("," key "=" value)*]

e.g. ``ucb1``, ``ucb1:c=2``, ``iucb:episodic=true``, ``miucb:r=none,episodic=true``,
``klucb:family=gaussian``, ``thompson:prior=gaussian``, ``egreedy:epsilon=0.1``, ``greedy``.
Values are parsed by the type of the parameter's default: bool (true/false), int, float or str.
Commas inside parentheses belong to the value (``r=sqrt(T)/t`` needs none, but stay safe).
"""
from __future__ import annotations

import inspect

from bandits.policy import Policy
from bandits.registry import POLICIES, policy_names

__all__ = ["POLICIES", "make_policy", "parse_bool", "parse_spec", "policy_names"]


def _split_params(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``name:key=value,...`` into the name and raw string values (no validation of names)."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"a policy spec must be a non-empty string like 'ucb1:c=2', got {spec!r}")
    name, _, rest = spec.strip().partition(":")
    params: dict[str, str] = {}
    for item in _split_params(rest):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"bad parameter {item!r} in spec {spec!r}: expected key=value")
        key = key.strip()
        if key in params:
            raise ValueError(f"parameter {key!r} given twice in spec {spec!r}")
        params[key] = value.strip()
    return name.strip().lower(), params


def parse_bool(key: str, raw: str, spec: str) -> bool:
    """true/1/yes or false/0/no (any case); ValueError naming ``key`` and ``spec`` otherwise."""
    low = raw.lower()
    if low in ("true", "1", "yes"):
        return True
    if low in ("false", "0", "no"):
        return False
    raise ValueError(f"{key} must be true or false in spec {spec!r}, got {raw!r}")


def _convert(key: str, raw: str, default, spec: str):
    if isinstance(default, bool):
        return parse_bool(key, raw, spec)
    if raw.lower() in ("none", "null") and default is None:
        return None
    if isinstance(default, float) or default is None:
        try:
            value = float(raw)
        except ValueError:
            if default is None:
                return raw
            raise ValueError(f"{key} must be a number in spec {spec!r}, got {raw!r}") from None
        if default is None and value.is_integer():
            return int(value)
        return value
    if isinstance(default, int):
        try:
            value = float(raw)
        except ValueError:
            raise ValueError(f"{key} must be an integer in spec {spec!r}, got {raw!r}") from None
        if not value.is_integer():
            raise ValueError(f"{key} must be an integer in spec {spec!r}, got {raw!r}")
        return int(value)
    return raw


def make_policy(spec: "str | Policy") -> Policy:
    """The policy a spec string names (a Policy is returned unchanged).

    Names are those registered in :data:`bandits.POLICIES` (built-in and user policies alike,
    :mod:`bandits.registry`).  Raises ValueError naming the valid policies or parameters when the
    spec is wrong.
    """
    if isinstance(spec, Policy):
        return spec
    name, raw = parse_spec(spec)
    if name not in POLICIES:
        raise ValueError(f"unknown policy {name!r} in spec {spec!r}; valid policies: {', '.join(POLICIES)}")
    cls, fixed = POLICIES[name]
    signature = inspect.signature(cls.__init__)
    defaults = {k: p.default for k, p in signature.parameters.items() if k != "self"}
    kwargs = dict(fixed)
    for key, value in raw.items():
        if key not in defaults or key in fixed:
            valid = [k for k in defaults if k not in fixed]
            raise ValueError(f"unknown parameter {key!r} for policy {name!r}; valid parameters: "
                             f"{', '.join(valid) if valid else '(none)'}")
        kwargs[key] = _convert(key, value, defaults[key], spec)
    return cls(**kwargs)


