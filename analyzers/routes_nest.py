"""NestJS routes composed across files: each controller's routes (``Route``,
``framework="nest"``, declared on the controller class) under the prefixes of the app that
serves them. Called by ``routes.compose``; pure (facts in through ``lookup``, composed routes
out).

How a controller joins an app: an app is ``NestFactory.create(Root)`` (a ``RouteMount`` with
``role="app"``, see ``extract/ecma_nest.py``); its modules are the root module and every
module reached from it through ``@Module({ imports })`` (names followed through the files'
imports with the one resolver, re-exports too; ``X.forRoot()`` and ``forwardRef(() => X)``
are ``X``); its controllers are the ``controllers`` of those modules. Each of the app's
routes is then ``global prefix + RouterModule path + controller path + method path``:

- the global prefix: the app's ``setGlobalPrefix(...)`` (the last one), unless a literal
  ``exclude`` entry matches the route (its path, ``:param`` matching any segment, a trailing
  ``*``/``(.*)`` any rest, and its method when it gives one); an exclude that is not a
  literal, or a pattern it cannot read, leaves the routes it may match unresolved;
- the RouterModule path: the whole path of the entry naming the controller's module in a
  ``RouterModule.register([...])`` (or a ``Routes`` table it names) that a module of the
  app imports; it applies to that module's own controllers only, as in Nest. A
  ``register`` whose routes are not a literal leaves the controllers of modules it names
  in no known entry unresolved.

A controller no app reaches is listed with its own path, unresolved, with the reason (no
app in the workspace, or no module of an app declares it): its prefix is never guessed.
"""

from __future__ import annotations

import re
from typing import Callable

from .extract.ecma_routes import nest_join
from .model import FileFacts, Route, RouteMount
from .routes import ComposedRoute, Resolve, Step, child_node

MAX_MODULES = 2000
Node = tuple[str, str]
_WILD = re.compile(r"[*()?+]")


class _Module:
    __slots__ = ("controllers", "imports", "routers", "refs", "unknown")

    def __init__(self) -> None:
        self.controllers: list[Node] = []
        self.imports: list[Node] = []
        self.routers: list[tuple[Node, RouteMount, str]] = []  # (module, mount, file)
        self.refs: list[Node] = []  # Routes tables its RouterModule.register names
        self.unknown: list[str] = []  # why some of its imports or controllers are not known


def compose_nest(files: list[str], lookup: Callable[[str], FileFacts | None], resolve: Resolve) -> list[ComposedRoute]:
    """The composed routes of the NestJS controllers of ``files``."""
    routes: list[tuple[str, Route]] = []
    modules: dict[Node, _Module] = {}
    tables: dict[Node, list[tuple[Node, RouteMount, str]]] = {}
    apps: list[tuple[Node, Node | None, RouteMount, str]] = []
    prefixes: dict[Node, tuple[RouteMount, str]] = {}
    excludes: dict[Node, list[RouteMount]] = {}

    def child(rel: str, name: str) -> Node | None:
        return child_node(rel, name, lookup, resolve) if name else None

    for rel in files:
        facts = lookup(rel)
        if facts is None:
            continue
        routes += [(rel, r) for r in facts.routes if r.framework == "nest"]
        for m in facts.mounts:
            if m.framework != "nest":
                continue
            here = (rel, m.parent)
            role = m.role
            if role == "app":
                apps.append((here, None if m.unresolved else child(rel, m.child), m, rel))
            elif role == "prefix":
                prefixes[here] = (m, rel)  # the last one wins, as at run time
            elif role == "exclude":
                excludes.setdefault(here, []).append(m)
            elif role == "router" and _is_table(facts, m.parent):
                node = child(rel, m.child)
                tables.setdefault(here, []).append((node or ("", ""), m, rel))
            else:
                mod = modules.setdefault(here, _Module())
                node = None if m.unresolved and not m.child else child(rel, m.child)
                if role == "controller":
                    if node is None:
                        mod.unknown.append(m.unresolved or f"{m.child} is not found")
                    else:
                        mod.controllers.append(node)
                elif role == "import":
                    if node is None:
                        if m.unresolved:
                            mod.unknown.append(m.unresolved)
                    else:
                        mod.imports.append(node)
                elif role == "router":
                    mod.routers.append((node or ("", ""), m, rel))
                elif role == "router-ref" and node is not None:
                    mod.refs.append(node)

    # ---- each app: its modules, controllers and prefixes
    member: dict[Node, list[tuple[int, Node]]] = {}  # controller -> (app index, module)
    app_info: list[dict] = []
    for i, (app, root, m, rel) in enumerate(apps):
        info: dict = {"app": app, "root": root, "rel": rel, "mount": m, "routers": {}, "router_unknown": None,
                      "unknown": [m.unresolved] if m.unresolved else []}
        app_info.append(info)
        if root is None:
            continue
        seen: dict[Node, None] = {}
        todo = [root]
        while todo and len(seen) < MAX_MODULES:
            node = todo.pop(0)
            if node in seen:
                continue
            seen[node] = None
            mod = modules.get(node)
            if mod is None:
                continue
            todo += mod.imports
            info["unknown"] += mod.unknown
        for node in seen:
            mod = modules.get(node)
            if mod is None:
                continue
            entries = list(mod.routers)
            for ref in mod.refs:
                got = tables.get(ref)
                if got is None:
                    info["router_unknown"] = info["router_unknown"] or f"the RouterModule routes {ref[1]} are not found"
                entries += got or []
            for target, rm, mrel in entries:
                if rm.unresolved is not None and not rm.child:
                    info["router_unknown"] = info["router_unknown"] or rm.unresolved
                elif target[0]:
                    info["routers"].setdefault(target, (rm, mrel))
            for c in mod.controllers:
                member.setdefault(c, []).append((i, node))

    out: list[ComposedRoute] = []
    for rel, r in routes:
        own = r.path[len(r.prefix):] if r.prefix and r.path.startswith(r.prefix) else r.path
        local = ((Step(r.prefix, rel, r.span, "router"),) if r.prefix else ()) + (Step(own or "/", rel, r.span, "route"),)
        homes = member.get((rel, r.router or ""), [])
        if not homes:
            if not apps:
                why = "no NestFactory.create() in the workspace: the app's global prefix is not known"
            else:
                roots = ", ".join(sorted({f"{a[2].child or '?'} ({a[3]})" for a in apps}))
                why = f"{r.router} is in no module the app's root module {roots} reaches through its imports"
                unknown = sorted({u for info in app_info for u in info["unknown"]})
                if unknown:
                    why += f" (not known: {'; '.join(unknown[:3])})"
            out.append(ComposedRoute(r.method, r.path, rel, r, local, r.unresolved or why))
            continue
        done: set[tuple[int, str]] = set()
        for i, module in homes:
            info = app_info[i]
            steps: list[Step] = []
            why = r.unresolved
            routed = info["routers"].get(module)
            router_prefix = ""
            if routed is not None:
                rm, mrel = routed
                if rm.unresolved:
                    why = why or rm.unresolved
                else:
                    router_prefix = rm.prefix
                    if rm.prefix:
                        steps.append(Step(rm.prefix, mrel, rm.span, "mount"))
            elif info["router_unknown"]:
                why = why or info["router_unknown"]
            path = nest_join(router_prefix, r.path)
            got = prefixes.get(info["app"])
            if got is not None:
                pm, prel = got
                excluded = _excluded(path, r.method, excludes.get(info["app"], []))
                if pm.unresolved:
                    why = why or pm.unresolved
                elif excluded is None:
                    why = why or "a global prefix exclude may match the route: it is not a literal"
                elif not excluded and pm.prefix:
                    steps.insert(0, Step(pm.prefix, prel, pm.span, "mount"))
                    path = nest_join(pm.prefix, path)
            if (i, path) in done:
                continue
            done.add((i, path))
            out.append(ComposedRoute(r.method, path, rel, r, (*steps, *local), why))
    return out


def _is_table(facts: FileFacts, name: str) -> bool:
    """Whether ``name`` is a module-level variable of the file (a ``Routes`` table) rather
    than a module class."""
    return any(d.name == name and d.kind == "variable" for d in facts.definitions)


def _excluded(path: str, method: str, excludes: list[RouteMount]) -> bool | None:
    """Whether a literal exclude of ``setGlobalPrefix`` matches the route (None: one that is
    not a literal, or a pattern not read, may)."""
    maybe = False
    for m in excludes:
        if m.unresolved:
            maybe = True
            continue
        if m.child and m.child != method and method != "ANY":
            continue
        got = _matches(m.prefix, path)
        if got is None:
            maybe = True
        elif got:
            return True
    return None if maybe else False


def _matches(pattern: str, path: str) -> bool | None:
    pat = [s for s in pattern.split("/") if s]
    segs = [s for s in path.split("/") if s]
    rest = False
    if pat and pat[-1] in ("*", "(.*)", "{*path}", "*path", "{*splat}", "*splat"):
        pat, rest = pat[:-1], True
    for s in pat:
        if _WILD.search(s):
            return None
    if len(segs) < len(pat) or (not rest and len(segs) != len(pat)):
        return False
    for p, s in zip(pat, segs):
        if p.startswith("{"):
            continue
        if p.lower() != s.lower():
            return False
    return True
