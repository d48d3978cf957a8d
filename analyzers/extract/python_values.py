"""Expressions as URL expressions and arguments as values, for ``python.py``'s ``_Program``,
which mixes ``ValueFacts`` in.

``expr`` evaluates an expression into a URL expression (a tuple of ``Lit``, ``Ref``, ``Param``,
``Arg``, ``Env``, ``Unknown``, ``Alt`` parts; None: not string-like): string literals
(``template``: prefixes, escapes, f-string substitutions), names through their scope
(``name``), ``os.environ[...]`` and ``os.getenv(...)`` (``subscript``, ``call_value``),
``str.format`` (``format``), ``+`` and ``%`` (``binary``, ``percent``), conditionals; ``part``
is a piece of a larger string, ``literal`` the text of a plain string literal. ``value``
turns an argument into ``StrVal``, ``ObjVal`` or ``OtherVal``: dict literals (``obj``),
``dict(...)`` (``is_dict_call``, ``dict_call``), ``**x`` (``spread``), a name bound once to
one of those (``bound_dict``); ``key_span`` is a string key's content. The small helpers
``python.py`` shares with them (``_span``, ``_all_unknown``, ``_IDENT``, ``_fast`` and the
model constructors) live here too. Decisions:

* An argument that is a call, a conditional, a subscript, ... is ``StrVal((Unknown(..),))``
  (it may produce a URL); numbers, booleans, ``None``, lists, tuples, lambdas and bytes
  are ``OtherVal``.
* Inside a class body a name assigned in that class body resolves to ``Ref("Cls.name")``.
* ``os.environ[...]``, ``os.environ.get(...)`` and ``os.getenv(...)`` are environment values
  even without a visible ``import os``; aliases (``import os as o``, ``from os import
  environ, getenv as ge``) are followed through the imports.
* A parameter that is reassigned in its function still resolves to ``Arg``; a local bound
  more than once (assignment, ``+=``, loop target, ...) stays ``Ref(name)``.
* A dict literal's ``keys`` are its literal string keys in order (span: the string's content),
  whatever their values; a key that is not a literal string sets ``computed`` (when no key is
  literal and there is no spread the dict stays ``OtherVal``, as before); ``**x`` is a
  ``SPREAD`` field holding the object seen (a dict literal, a local bound once to one), a
  parameter (``StrVal`` of one ``Arg``) or ``OtherVal``. ``dict(a=1, **x)`` (the builtin, not
  rebound in the file) is an object the same way, its keys the keyword names (a positional
  mapping is a spread).
* An argument that names a local bound once in its function (a module-level name bound once,
  for a call at module level) to a dict literal or ``dict(...)`` is that object (span: the
  literal's); when the name is written anywhere else in the function than its binding and
  that argument (``payload["x"] = 1``, ``payload.update(...)``, another call), its keys are
  not all known: ``computed``.
"""

from __future__ import annotations

import re
from string import Formatter

from .urlexpr import EMPTY_LIT, merge
from ..model import (
    Alt,
    Arg,
    Env,
    Key,
    Lit,
    ObjVal,
    OtherVal,
    Param,
    Ref,
    SPREAD,
    Span,
    StrVal,
    Unknown,
)

# Value kinds that are never strings (-> OtherVal); anything else that is not understood
# becomes Unknown(<reason>).
_NOT_STRING = frozenset(
    (
        "integer", "float", "true", "false", "none", "list", "tuple", "set", "dictionary",
        "lambda", "list_comprehension", "dictionary_comprehension", "set_comprehension",
        "generator_expression", "ellipsis", "unary_operator", "not_operator",
        "comparison_operator", "list_splat", "dictionary_splat",
    )
)
_REASONS = {
    "call": "call",
    "conditional_expression": "conditional",
    "subscript": "subscript",
    "await": "await",
    "binary_operator": "arithmetic",
    "boolean_operator": "boolean expression",
    "attribute": "attribute of an expression",
}

_STRING_START = re.compile(r"([A-Za-z]*)('\'\'|\"\"\"|'|\")")
_IDENT = re.compile(r"[^\W\d]\w*")
_ESCAPE = re.compile(
    r"\\(?:(\n)|([\\'\"abfnrtv])|x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})"
    r"|N\{([^}]+)\}|([0-7]{1,3}))"
)
_SIMPLE_ESC = {"\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f", "n": "\n",
               "r": "\r", "t": "\t", "v": "\v"}
_PERCENT = re.compile(
    r"%(?:\(([^)]*)\))?[-#0 +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?([diouxXeEfFgGcrsa%])"
)


def _unescape_one(m: re.Match[str]) -> str:
    if m.group(1) is not None:
        return ""
    if m.group(2) is not None:
        return _SIMPLE_ESC[m.group(2)]
    if m.group(6) is not None:
        import unicodedata

        try:
            return unicodedata.lookup(m.group(6))
        except KeyError:
            return m.group(0)
    code = m.group(3) or m.group(4) or m.group(5) or m.group(7)
    base = 8 if m.group(7) is not None else 16
    try:
        return chr(int(code, base))
    except (ValueError, OverflowError):
        return m.group(0)


def _unescape(s: str) -> str:
    return _ESCAPE.sub(_unescape_one, s) if "\\" in s else s


def _fast(cls):
    """The dataclass's own constructor, taking every field positionally. (A generated
    ``__init__``-less constructor was about 1.5x cheaper per object, but it bypassed
    ``model.py``; clarity won.)"""
    return cls


_Span = _fast(Span)
_Lit = _fast(Lit)
_Ref = _fast(Ref)
_Param = _fast(Param)
_Arg = _fast(Arg)
_Env = _fast(Env)
_Unknown = _fast(Unknown)
_StrVal = _fast(StrVal)
_ObjVal = _fast(ObjVal)
_OtherVal = _fast(OtherVal)
_Key = _fast(Key)


def _span(n) -> Span:
    return _Span(n.start_byte, n.end_byte)


def _all_unknown(e) -> bool:
    # Unknown only ever appears alone: inside larger strings unknown pieces are Params.
    return type(e[0]) is Unknown


class ValueFacts:
    """The evaluators of expressions and argument values (mixed into ``_Program``; ``sc``: the
    innermost ``_Scope`` of the expression, None at module level). They read ``self.t``,
    ``self.g``, ``self.cache``, the imports (``by_local``), the module's names, the
    environment's names (``env_subscripts``, ``env_calls``), and ``_Program.dotted``,
    ``_Program.last_ident`` and ``ReadFacts.mentions``."""

    def expr(self, n, sc, seen: tuple = ()) -> tuple | None:
        """The URL expression of ``n`` as a whole value; None when it is not string-like."""
        t = n.type
        if t == "string":
            return self.template(n, sc, seen)
        if t == "identifier":
            return self.name(n, sc, seen)
        if t == "attribute":
            d = self.dotted(n)
            if d is None:
                return (_Unknown(_REASONS["attribute"]),)
            root, _, rest = d.partition(".")
            if sc is not None and sc.func is sc and "." not in rest:
                idx = sc.params.get(root)
                if idx is not None:
                    return (_Arg(idx, rest),)
            return (_Ref(d),)
        if t == "call":
            return self.call_value(n, sc, seen)
        if t in _NOT_STRING:
            return None
        if t == "concatenated_string":
            parts: list = []
            for c in n.named_children:
                if c.type == "string":
                    e = self.template(c, sc, seen)
                    if e is None:
                        return None
                    parts.extend(e)
            return merge(parts, EMPTY_LIT)
        if t == "binary_operator":
            return self.binary(n, sc, seen)
        if t == "subscript":
            return self.subscript(n, sc) or (_Unknown("subscript"),)
        if t == "parenthesized_expression":
            inner = [c for c in n.named_children if c.type != "comment"]
            return self.expr(inner[0], sc, seen) if len(inner) == 1 else None
        if t == "conditional_expression":  # `"/a" if cond else "/b"`: either path
            branches = [c for c in n.named_children if c.type != "comment"]
            if len(branches) == 3:
                options = []
                for b in (branches[0], branches[2]):
                    if b.type == "none":
                        continue  # no request on that branch
                    e = self.expr(b, sc, seen)
                    if e is None or _all_unknown(e):
                        return (_Unknown("conditional"),)
                    options.append(e)
                if len(options) == 1:
                    return options[0]
                if options:
                    return (Alt(tuple(options)),)
        return (_Unknown(_REASONS.get(t, t.replace("_", " "))),)

    def part(self, n, sc, seen: tuple) -> tuple:
        """A piece of a larger string (interpolation, ``+`` operand, format argument)."""
        e = self.expr(n, sc, seen)
        if e is None or _all_unknown(e):
            return (_Param(self.last_ident(n)),)
        return e

    def template(self, n, sc, seen: tuple) -> tuple | None:
        text = self.t(n)
        m = _STRING_START.match(text)
        if m is None:
            return None
        prefix = m.group(1)
        if not prefix:
            quote = m.group(2)
            body = text[m.end():]
            if body.endswith(quote):
                body = body[: -len(quote)]
            return (_Lit(_unescape(body)),)
        prefix = prefix.lower()
        if "b" in prefix:
            return None
        raw = "r" in prefix
        if "f" not in prefix and "t" not in prefix:
            quote = m.group(2)
            body = text[m.end():]
            if body.endswith(quote):
                body = body[: -len(quote)]
            return (_Lit(body if raw else _unescape(body)),)
        t = self.t
        f_expression = self.g.f_expression
        parts: list = []
        for c in n.children:
            ty = c.type
            if ty == "string_content":
                s = t(c)
                if not raw:
                    s = _unescape(s)
                parts.append(_Lit(s.replace("{{", "{").replace("}}", "}")))
            elif ty == "interpolation":
                e = c.child_by_field_id(f_expression)
                if e is not None:
                    parts.extend(self.part(e, sc, seen))
        return merge(parts, EMPTY_LIT)

    def literal(self, n) -> str | None:
        """The text of a plain (non-f, non-bytes) string literal or concatenation."""
        ty = n.type
        if ty == "string":
            e = self.template(n, None, ())
        elif ty == "concatenated_string":
            e = self.expr(n, None, ())
        else:
            return None
        if e is not None and len(e) == 1 and type(e[0]) is Lit:
            return e[0].text
        return None

    def name(self, n, sc, seen: tuple) -> tuple:
        name = self.t(n)
        if sc is not None:
            if sc.is_class:
                if name in sc.counts:
                    return (_Ref(f"{sc.qual}.{name}"),)
            else:
                idx = sc.params.get(name)
                if idx is not None:
                    return (_Arg(idx, None),)
                if sc.counts.get(name) == 1 and name not in seen:
                    v = sc.values.get(name)
                    if v is not None:
                        e = self.expr(v, sc, (*seen, name))
                        if e is not None and not _all_unknown(e):
                            return e
        return (_Ref(name),)

    def subscript(self, n, sc) -> tuple | None:
        value = n.child_by_field_id(self.g.f_value)
        key_node = n.child_by_field_id(self.g.f_subscript)
        if value is None or key_node is None:
            return None
        key = self.literal(key_node)
        d = self.dotted(value)
        if key is None or d is None:
            return None
        if d in self.env_subscripts:
            return (_Env(key),)
        if sc is not None and sc.func is sc:
            idx = sc.params.get(d)
            if idx is not None:
                return (_Arg(idx, key),)
        return None

    def call_value(self, n, sc, seen: tuple) -> tuple:
        g = self.g
        fn = n.child_by_field_id(g.f_function)
        args = n.child_by_field_id(g.f_arguments)
        if fn is None or args is None or args.type != "argument_list":
            return (_Unknown("call"),)
        d = self.dotted(fn)
        if d is not None and d in self.env_calls:
            first = next((c for c in args.named_children if c.type != "comment"), None)
            key = self.literal(first) if first is not None else None
            if key is not None:
                return (_Env(key),)
        if fn.type == "attribute":
            attr = fn.child_by_field_id(g.f_attribute)
            obj = fn.child_by_field_id(g.f_object)
            if attr is not None and obj is not None and self.t(attr) == "format":
                tmpl = self.literal(obj)
                if tmpl is not None:
                    return self.format(tmpl, args, sc, seen)
        return (_Unknown("call"),)

    def format(self, tmpl: str, args, sc, seen: tuple) -> tuple:
        positional: list = []
        keywords: dict[str, object] = {}
        g = self.g
        for c in args.named_children:
            t = c.type
            if t == "keyword_argument":
                k, v = c.child_by_field_id(g.f_name), c.child_by_field_id(g.f_value)
                if k is not None and v is not None:
                    keywords[self.t(k)] = v
            elif t in ("list_splat", "dictionary_splat"):
                positional.append(None)
            elif t != "comment":
                positional.append(c)
        try:
            pieces = list(Formatter().parse(tmpl))
        except ValueError:
            return (_Unknown("format"),)
        parts: list = []
        auto = 0
        for lit, field, _spec, _conv in pieces:
            if lit:
                parts.append(_Lit(lit))
            if field is None:
                continue
            head = re.match(r"[^.\[]*", field).group()  # type: ignore[union-attr]
            if head == "":
                node = positional[auto] if auto < len(positional) else None
                auto += 1
            elif head.isdigit():
                i = int(head)
                node = positional[i] if i < len(positional) else None
            else:
                node = keywords.get(head)
            if node is None or head != field:
                parts.append(_Param(_IDENT.findall(field)[-1] if _IDENT.findall(field) else "param"))
            else:
                parts.extend(self.part(node, sc, seen))
        return merge(parts, EMPTY_LIT)

    def binary(self, n, sc, seen: tuple) -> tuple | None:
        g = self.g
        op = n.child_by_field_id(g.f_operator)
        op_type = op.type if op is not None else ""
        if op_type == "+":
            operands = []
            node = n
            while node.type == "binary_operator":
                o = node.child_by_field_id(g.f_operator)
                if o is None or o.type != "+":
                    break
                operands.append(node.child_by_field_id(g.f_right))
                node = node.child_by_field_id(g.f_left)
            operands.append(node)
            parts: list = []
            for o in reversed(operands):
                if o is None:
                    return (_Unknown("arithmetic"),)
                e = self.expr(o, sc, seen)
                if e is None:
                    return None
                parts.extend((_Param(self.last_ident(o)),) if _all_unknown(e) else e)
            return merge(parts, EMPTY_LIT)
        if op_type == "%":
            left = n.child_by_field_id(g.f_left)
            tmpl = self.literal(left) if left is not None else None
            if tmpl is not None:
                return self.percent(tmpl, n.child_by_field_id(g.f_right), sc, seen)
        return (_Unknown("arithmetic"),)

    def percent(self, tmpl: str, right, sc, seen: tuple) -> tuple:
        positional: list = []
        named: dict[str, object] = {}
        if right is not None and right.type == "tuple":
            positional = [c for c in right.named_children if c.type != "comment"]
        elif right is not None and right.type == "dictionary":
            for pair in right.named_children:
                if pair.type == "pair":
                    k = self.literal(pair.child_by_field_id(self.g.f_key))
                    if k is not None:
                        named[k] = pair.child_by_field_id(self.g.f_value)
        elif right is not None:
            positional = [right]
        parts: list = []
        pos = 0
        i = 0
        for m in _PERCENT.finditer(tmpl):
            parts.append(_Lit(tmpl[pos:m.start()]))
            pos = m.end()
            if m.group(2) == "%":
                parts.append(_Lit("%"))
                continue
            if m.group(1) is not None:
                node, label = named.get(m.group(1)), m.group(1)
            else:
                node, label = (positional[i] if i < len(positional) else None), "param"
                i += 1
            parts.extend(self.part(node, sc, seen) if node is not None else (_Param(label),))
        parts.append(_Lit(tmpl[pos:]))
        return merge(parts, EMPTY_LIT)

    def value(self, n, sc):
        """An argument value: StrVal, ObjVal or OtherVal."""
        key = n.id
        v = self.cache.get(key)
        if v is None:
            ty = n.type
            if ty == "dictionary":
                v = self.obj(n, sc)
            elif ty == "call" and self.is_dict_call(n):
                v = self.dict_call(n, sc)
            else:
                e = self.expr(n, sc)
                if ty == "identifier" and len(e) == 1 and type(e[0]) is Ref:  # not a string: a dict?
                    v = self.bound_dict(e[0].name, sc)
                if v is None:
                    v = _OtherVal(_span(n)) if e is None else _StrVal(e, _span(n))
            self.cache[key] = v
        return v

    def key_span(self, k) -> Span:
        """A string key's content, without its prefix and quotes."""
        ch = k.children
        if len(ch) >= 2 and ch[0].type == "string_start" and ch[-1].type == "string_end":
            return _Span(ch[0].end_byte, ch[-1].start_byte)
        return _span(k)

    def obj(self, n, sc):
        """A dict literal: the fields whose values are string-like or objects, every literal
        key (``keys``), ``**spread`` as a ``SPREAD`` field; a key that is not a literal sets
        ``computed`` (a dict whose keys are all such is ``OtherVal``)."""
        fields: list = []
        keys: list = []
        computed = False
        spread = False
        g = self.g
        for p in n.named_children:
            ty = p.type
            if ty == "dictionary_splat":
                spread = True
                inner = p.named_children[0] if p.named_child_count else None
                fields.append((SPREAD, self.spread(inner, sc) if inner is not None else _OtherVal(_span(p))))
                continue
            if ty != "pair":
                continue
            k = p.child_by_field_id(g.f_key)
            v = p.child_by_field_id(g.f_value)
            key = self.literal(k) if k is not None else None
            if key is None:
                computed = True
                continue
            keys.append(_Key(key, self.key_span(k), False))
            if v is None:
                continue
            vt = v.type
            if vt == "dictionary":
                fields.append((key, self.obj(v, sc)))
            elif vt == "call" and self.is_dict_call(v):
                fields.append((key, self.dict_call(v, sc)))
            else:
                e = self.expr(v, sc)
                if e is not None:
                    fields.append((key, _StrVal(e, _span(v))))
        if computed and not keys and not spread:
            return _OtherVal(_span(n))
        return _ObjVal(tuple(fields), _span(n), tuple(keys), computed)

    def spread(self, n, sc):
        """What ``**n`` spreads: an object seen here, a parameter (``StrVal`` of one ``Arg``),
        else ``OtherVal``."""
        v = self.value(n, sc)
        if type(v) is ObjVal or (type(v) is StrVal and len(v.expr) == 1 and type(v.expr[0]) is Arg):
            return v
        return _OtherVal(_span(n))

    def is_dict_call(self, n) -> bool:
        """``dict(...)``, the builtin (not rebound in the file)."""
        fn = n.child_by_field_id(self.g.f_function)
        return (fn is not None and fn.type == "identifier" and self.t(fn) == "dict"
                and "dict" not in self.by_local and "dict" not in self.module.counts)

    def dict_call(self, n, sc):
        """``dict(a=1, b=x)`` as an object: its keywords are its keys (spans the names); a
        positional mapping or ``**x`` is a spread."""
        g = self.g
        args = n.child_by_field_id(g.f_arguments)
        fields: list = []
        keys: list = []
        for c in args.named_children if args is not None else ():
            ty = c.type
            if ty == "keyword_argument":
                k = c.child_by_field_id(g.f_name)
                v = c.child_by_field_id(g.f_value)
                if k is None or v is None:
                    continue
                name = self.t(k)
                keys.append(_Key(name, _span(k), False))
                vt = v.type
                if vt == "dictionary":
                    fields.append((name, self.obj(v, sc)))
                elif vt == "call" and self.is_dict_call(v):
                    fields.append((name, self.dict_call(v, sc)))
                else:
                    e = self.expr(v, sc)
                    if e is not None:
                        fields.append((name, _StrVal(e, _span(v))))
            elif ty == "dictionary_splat":
                inner = c.named_children[0] if c.named_child_count else None
                fields.append((SPREAD, self.spread(inner, sc) if inner is not None else _OtherVal(_span(c))))
            elif ty == "list_splat":
                fields.append((SPREAD, _OtherVal(_span(c))))
            elif ty != "comment":  # `dict(base, x=1)`: the mapping's keys
                fields.append((SPREAD, self.spread(c, sc)))
        return _ObjVal(tuple(fields), _span(n), tuple(keys), False)

    def bound_dict(self, name: str, sc):
        """A name bound once in its function (or, at module level, in the module) to a dict
        literal or ``dict(...)``: that object; ``computed`` when the name is written anywhere
        else in the function than its binding and here (it may be changed: ``payload["x"] =
        1``, ``payload.update(...)``, passed to a helper). None otherwise."""
        if sc is None:
            names = self.module
        elif sc.func is sc:
            names = sc
        else:
            return None
        bound = names.values.get(name)
        if bound is None or names.counts.get(name) != 1:
            return None
        ty = bound.type
        if ty == "dictionary":
            v = self.obj(bound, sc)
        elif ty == "call" and self.is_dict_call(bound):
            v = self.dict_call(bound, sc)
        else:
            return None
        if type(v) is not ObjVal:
            return None
        # the mentions from its binding on (at module level, a function defined above that
        # changes it runs later: not seen)
        start = sc.start if sc is not None else bound.start_byte - len(name.encode("utf-8"))
        end = sc.end if sc is not None else len(self.src)
        if not v.computed and self.mentions(name, max(start, 0), end) > 2:
            v = _ObjVal(v.fields, v.span, v.keys, True)
        return v
