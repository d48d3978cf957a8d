"""How a call's value is used in its function (``CallSite.reads``), for ``python.py``'s
``_Program``, which mixes ``ReadFacts`` in.

From the call, the value is followed up the tree through the steps a read takes (``Read``):
``await`` (span: the keyword), an attribute (``r.status_code``: ``status_code``), a method
called on it (``r.json()``: ``json()``, span the method's name), a subscript with a string
(``["items"]``: ``items``, span the string's content) or a dict's ``.get("x")`` /
``.get("x", default)`` (``x``; a ``.get`` with another key is the method ``get()``), any
other subscript (``[0]``: ``[]``, span the index; a slice ends the chain); parentheses and the
left operand of ``or`` (``data.get("items") or []``) are looked through. Where the chain
stops, the value is:

* returned (``return r.json()["data"]``, ``return self.session.get(u)``): a ``Read`` with
  ``returned``, also when it has no step;
* bound to a name: ``r = <value>`` (annotated or not), ``with <call> as r`` / ``async with``
  (aiohttp: the ``as`` name is the response), ``for item in <value>`` (a step ``[]``, span the
  loop variable) and ``[... for item in <value>]`` (within the comprehension): the chain goes
  on from every later use of the name in the function (or the module, for a call at module
  level), when the function binds that name once (a loop or ``with`` target counts as a
  binding). The call's own binding and one more assignment are followed (``r =
  requests.get(u); data = r.json(); data["x"]``); loop variables do not count as a level.
  A name bound in a class body is not followed;
* anything else (an argument, an operand, a statement of its own): the chain ends there, a
  ``Read`` when it took at least one step.

A call whose value is not used gives no read; at most ``MAX_READS`` reads per call, chains of
at most ``MAX_STEPS`` steps. Uses of a name are found by scanning the function's text for
the name (a compiled pattern per name) and taking the identifier node there, so the cost is
proportional to the calls whose value is bound, not to the file. (No query here: the rules
walk up from one node, which a query run over the file would pay for at every call.)
"""

from __future__ import annotations

import re
from functools import cache

from ..model import Read, Span

MAX_READS = 64
MAX_STEPS = 32
_LEVELS = 2  # assignments followed: the call's own binding and one more
_BINDINGS = 4  # bindings followed along one chain, loop variables included

# parents of an identifier that make it no use of a local: when it is their `name` (`attribute`
# for an attribute), always (the others)
_NAMED = frozenset({"keyword_argument", "default_parameter", "typed_default_parameter", "attribute"})
_NOT_USES = frozenset({"parameters", "lambda_parameters", "global_statement", "nonlocal_statement"})
# parents through which a value goes on to a read or a binding (any other ends its chain at once)
_FLOWS = frozenset({"await", "parenthesized_expression", "attribute", "subscript", "boolean_operator",
                    "return_statement", "assignment", "as_pattern", "for_statement", "for_in_clause"})


@cache
def _name_pattern(name: str) -> re.Pattern[bytes]:
    # the name first, so that the search runs on its literal prefix; what precedes it is
    # checked by the caller (`_word_before`): a lookbehind first made the scan ten times slower
    return re.compile(re.escape(name.encode("utf-8")) + rb"(?![\w\x80-\xff])")


_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_." + bytes(range(0x80, 0x100)))


class ReadFacts:
    """The readers of a call's uses (mixed into ``_Program``)."""

    def mentions(self, name: str, start: int, end: int) -> int:
        """How many times ``name`` is written in the bytes ``[start, end)`` (as a whole word, not
        after a dot: an attribute of that name is not the name)."""
        src = self.src
        return sum(1 for m in _name_pattern(name).finditer(src, start, end)
                   if m.start() == 0 or src[m.start() - 1] not in _WORD)

    def reads(self, call, sc) -> tuple[Read, ...]:
        """The reads of ``call``'s value in its function (``sc``: its innermost scope)."""
        parent = call.parent  # (walks down from the root: asked once per node)
        if parent is None or parent.type not in _FLOWS:
            return ()  # its value is not used, or only as an argument, an operand, ...
        out: list[Read] = []
        self.follow(call, parent, (), (), sc, 0, 0, out)
        return tuple(out)

    def chain(self, node, p, steps: tuple, spans: tuple):
        """The steps taken from ``node``'s value (``p``: its parent) up the tree: (the last
        node of the chain, its parent, steps, spans)."""
        g = self.g
        t = self.t
        while p is not None and len(steps) < MAX_STEPS:
            ty = p.type
            if ty == "await":
                kw = p.children[0]
                steps += ("await",)
                spans += (Span(kw.start_byte, kw.end_byte),)
            elif ty == "parenthesized_expression":
                pass
            elif ty == "attribute":  # `node.name`: node is the object when it starts the attribute
                attr = p.child_by_field_id(g.f_attribute)
                if p.start_byte != node.start_byte or attr is None:
                    break
                name = t(attr)
                gp = p.parent
                if gp is not None and gp.type == "call" and gp.start_byte == p.start_byte:  # a method call
                    key = None
                    if name == "get":
                        args = gp.child_by_field_id(g.f_arguments)
                        first = args.named_children[0] if args is not None and args.named_child_count else None
                        if first is not None and first.type == "string" and args.type == "argument_list":
                            key = self.literal(first)
                    if key is not None:
                        steps += (key,)
                        spans += (self.key_span(first),)
                    else:
                        steps += (name + "()",)
                        spans += (Span(attr.start_byte, attr.end_byte),)
                    node, p = gp, gp.parent
                    continue
                steps += (name,)
                spans += (Span(attr.start_byte, attr.end_byte),)
            elif ty == "subscript":  # `node[...]`: node is the value when it starts the subscript
                sub = p.child_by_field_id(g.f_subscript)
                if p.start_byte != node.start_byte or sub is None or sub.type == "slice":
                    break
                key = self.literal(sub) if sub.type == "string" else None
                if key is not None:
                    steps += (key,)
                    spans += (self.key_span(sub),)
                else:
                    steps += ("[]",)
                    spans += (Span(sub.start_byte, sub.end_byte),)
            elif ty == "boolean_operator":  # `node or default`
                op = p.child_by_field_id(g.f_operator)
                if p.start_byte != node.start_byte or op is None or op.type != "or":
                    break
            else:
                break
            node, p = p, p.parent
        return node, p, steps, spans

    def follow(self, node, parent, steps: tuple, spans: tuple, sc, level: int, bindings: int, out: list) -> None:
        """Add to ``out`` the reads of ``node``'s value (``parent``: its parent), reached by
        ``steps``."""
        if len(out) >= MAX_READS:
            return
        node, parent, steps, spans = self.chain(node, parent, steps, spans)
        if parent is None:
            return
        g = self.g
        ty = parent.type
        if ty == "return_statement":
            out.append(Read(steps, spans, True))
            return
        target = None
        element = False
        within = None  # a comprehension: where its variable's uses are
        if ty == "assignment":
            right = parent.child_by_field_id(g.f_right)
            if right is not None and right.start_byte == node.start_byte:
                target = parent.child_by_field_id(g.f_left)
        elif ty == "as_pattern":
            gp = parent.parent
            if gp is not None and gp.type == "with_item" and parent.start_byte == node.start_byte:
                alias = parent.child_by_field_id(g.f_alias)
                target = alias.named_children[0] if alias is not None and alias.named_child_count == 1 else None
        elif ty == "for_statement" or ty == "for_in_clause":
            right = parent.child_by_field_id(g.f_right)
            if right is not None and right.start_byte == node.start_byte:
                target = parent.child_by_field_id(g.f_left)
                element = True
                if ty == "for_in_clause":
                    within = parent.parent
        if target is None or target.type != "identifier":
            if steps:
                out.append(Read(steps, spans))
            return
        if element:
            steps += ("[]",)
            spans += (Span(target.start_byte, target.end_byte),)
        elif level >= _LEVELS:
            if steps:
                out.append(Read(steps, spans))
            return
        else:
            level += 1
        if bindings >= _BINDINGS or (sc is not None and sc.is_class):
            if steps:
                out.append(Read(steps, spans))
            return
        name = self.t(target)
        if within is not None:  # a comprehension's variable, used in the comprehension only
            start, end = within.start_byte, within.end_byte
        else:
            names = sc if sc is not None else self.module
            if names.counts.get(name) != 1:  # bound again: which value a use sees is not known
                if steps:
                    out.append(Read(steps, spans))
                return
            start = parent.end_byte if ty == "assignment" else target.end_byte
            end = sc.end if sc is not None else len(self.src)
        uses = self.uses(name, start, end, target)
        if not uses:
            if steps:
                out.append(Read(steps, spans))
            return
        for use, use_parent in uses:
            if len(out) >= MAX_READS:
                return
            self.follow(use, use_parent, steps, spans, sc, level, bindings + 1, out)

    def uses(self, name: str, start: int, end: int, target) -> list:
        """The identifier nodes that read ``name`` in ``[start, end)`` (not ``target``, its
        binding), each with its parent."""
        root = self.tree.root_node
        g = self.g
        found = []
        src = self.src
        for m in _name_pattern(name).finditer(src, start, end):
            s, e = m.span()
            if s == target.start_byte or (s and src[s - 1] in _WORD):
                continue
            n = root.descendant_for_byte_range(s, e)
            if n is None or n.type != "identifier" or n.start_byte != s or n.end_byte != e:
                continue
            p = n.parent
            pt = p.type if p is not None else ""
            if pt in _NAMED:  # the name of a keyword, a parameter or an attribute
                named = p.child_by_field_id(g.f_attribute if pt == "attribute" else g.f_name)
                if named is not None and named.start_byte == s:
                    continue
            elif pt in _NOT_USES or (pt == "typed_parameter" and p.start_byte == s):
                continue
            found.append((n, p))
        return found
