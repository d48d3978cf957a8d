"""Backend routes composed across files: each route declaration (``Route``, per file) with
the prefixes the files that mount its router add (``RouteMount``: FastAPI
``include_router``/``mount``, Flask ``register_blueprint``, Express ``use``, Fastify
``register``), so that every route has its full path and says how it was composed.

A router is a node ``(file, name)``: the module-level name a file declares routes on
(``router``, ``bp``, ``app``). A mount in file P (``app.include_router(users.router,
prefix="/users")``) is an edge from the node ``(P, app)`` to the node its child names,
found through P's imports and the one module resolver (``resolve``, given by the caller):

- a local name imported from a module (``from app.routes.users import router as users``,
  ``import usersRouter from './users'``): that module's file, and the name it exports
  (a JavaScript default export: the local it names, ``export default router``);
- a dotted name whose first part is an imported module (``users.router`` after ``from
  app.routes import users``, ``routes.users`` after ``import * as routes``): that module's
  file and the attribute;
- ``require:./users`` (an inline ``require`` in a mount): that file's default export;
- a name of the file itself: that node.

A node no mount reaches is a root (an app): its routes' paths are their own. A node mounted
several times gets one composed route per chain. A chain through a mount whose prefix is
not a literal makes the route **unresolved**, with the reason; it is never guessed. Cycles
and chains deeper than ``MAX_DEPTH`` stop.

Pure: facts in (``lookup``), composed routes out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from .analyses import python_submodule
from .codes import CODES
from .matching import EndpointTable, full_path
from .model import Endpoint, FileFacts, Finding, Route, RouteMount, Span

MAX_DEPTH = 16
MAX_CHAINS = 64
# frameworks whose router's "/" under a prefix is the prefix itself (FastAPI and Flask keep
# the slash: "/users/")
_ROOT_IS_PREFIX = frozenset({"express", "fastify", "koa", "hono"})  # per router: a router mounted in more places is composed for the first ones


@dataclass(frozen=True)
class Step:
    """One piece of a composed path: ``text`` added by ``file`` at ``span`` (a mount's
    prefix, the router's own prefix, or the route's own path)."""

    text: str
    file: str
    span: Span
    kind: str  # "mount", "router", "route"


@dataclass(frozen=True)
class ComposedRoute:
    method: str
    path: str  # the full path template, ``{param}`` normalized
    file: str
    route: Route
    steps: tuple[Step, ...]
    unresolved: str | None = None  # why the full path is not known


Resolve = Callable[[str, str, bool], str | None]  # (importer, module specifier, python?) -> workspace file


def join(*parts: str) -> str:
    out = ""
    for p in parts:
        if not p:
            continue
        p = p if p.startswith("/") else "/" + p
        out = out.rstrip("/") + p
    return out or "/"


def _exported(file: str, name: str, lookup: Callable[[str], FileFacts | None], resolve: Resolve,
              hops: int = 0) -> tuple[str, str]:
    """The node an export of ``file`` names: ``export default router`` -> ``(file, router)``,
    a re-export (``export { users } from './users'``) followed to its module."""
    facts = lookup(file)
    if facts is None or facts.language == "python" or hops > 8:
        return file, name
    for e in facts.exports:
        if e.name != name:
            continue
        if not e.module:
            return file, e.local or name
        target = resolve(file, e.module, False)
        if target is not None:
            return _exported(target, e.local or name, lookup, resolve, hops + 1)
    return file, name


def child_node(parent_file: str, child: str, lookup: Callable[[str], FileFacts | None],
               resolve: Resolve) -> tuple[str, str] | None:
    """The router node ``(file, name)`` a mount's child names, or None."""
    facts = lookup(parent_file)
    if facts is None:
        return None
    python = facts.language == "python"
    if child.startswith("require:"):
        target = resolve(parent_file, child[len("require:"):], False)
        return None if target is None else _exported(target, "default", lookup, resolve)
    if child.startswith("module:"):  # Django `include("blog.urls")`: that module's urlpatterns
        spec = child[len("module:"):]
        target = resolve(parent_file, spec, True)
        if target is not None:
            return target, "urlpatterns"
        attr = spec.rsplit(".", 1)[-1]  # `from blog.urls import urlpatterns as blog`: a list
        module = spec[: -len(attr)]
        target = resolve(parent_file, module if not module.strip(".") else module[:-1], True) if module else None
        return None if target is None else (target, attr)
    head, _, rest = child.partition(".")
    for imp in facts.imports:
        if imp.local != head:
            continue
        submodule = python_submodule(imp) if python else None
        if rest:  # a module's attribute: `users.router`, `routes.users`
            spec = submodule or imp.module
            target = resolve(parent_file, spec, python)
            if target is None and submodule:
                target = resolve(parent_file, imp.module, python)  # `from pkg import mod`: pkg/__init__
            if target is None:
                return None
            attr = rest.split(".")[-1] if "." in rest else rest
            if "." in rest and python:  # `api.v1.router`: the deeper module
                deeper = resolve(parent_file, spec + "." + rest.rsplit(".", 1)[0], python)
                target = deeper or target
            return _exported(target, attr, lookup, resolve)
        target = resolve(parent_file, imp.module, python)
        if submodule:
            sub = resolve(parent_file, submodule, python)
            if sub is not None and target is None:
                return None  # a module imported by name, mounted whole: not a router
        if target is None:
            return None
        name = imp.name if imp.name not in ("", "*") else "default"
        return _exported(target, name, lookup, resolve)
    if rest:
        return None
    return parent_file, child


def compose(files: Iterable[str], lookup: Callable[[str], FileFacts | None], resolve: Resolve,
            file_apps: tuple = ()) -> list[ComposedRoute]:
    """Every route of ``files`` (those with routes or mounts) with its full path, sorted by
    path, method and place; NestJS's composed by ``routes_nest``, and the routes of the
    files of ``file_apps`` (``routes_files.file_apps``: Next.js, SvelteKit, Nuxt)."""
    routes: dict[tuple[str, str | None], list[Route]] = {}
    mounts_into: dict[tuple[str, str], list[tuple[tuple[str, str], RouteMount, str]]] = {}
    from .routes_views import expand as expand_views

    files = sorted(set(files))
    for rel in files:
        facts = lookup(rel)
        if facts is None:
            continue
        for r in expand_views(rel, facts.routes, lookup, resolve):  # Django, DRF, MethodView: per method
            if r.framework != "nest":
                routes.setdefault((rel, r.router), []).append(r)
        for m in facts.mounts:
            node = child_node(rel, m.child, lookup, resolve) if m.framework != "nest" else None
            if node is not None:
                mounts_into.setdefault(node, []).append(((rel, m.parent), m, rel))

    memo: dict[tuple[str, str], list[tuple[tuple[Step, ...], str | None]]] = {}

    def chains(node: tuple[str, str], depth: int, seen: frozenset) -> list[tuple[tuple[Step, ...], str | None]]:
        if node in memo:
            return memo[node]
        incoming = mounts_into.get(node, [])
        if not incoming or depth >= MAX_DEPTH:
            out: list[tuple[tuple[Step, ...], str | None]] = [((), None)]
        else:
            out = []
            for parent, m, rel in incoming:
                if parent in seen:
                    continue  # a cycle: that way adds nothing
                step = Step(m.prefix, rel, m.span, "mount")
                for above, why in chains(parent, depth + 1, seen | {parent}):
                    out.append(((*above, step), why or m.unresolved))
                    if len(out) >= MAX_CHAINS:
                        break
            out = out or [((), None)]
        memo[node] = out
        return out

    composed: list[ComposedRoute] = []
    for (rel, router), rs in routes.items():
        node_chains = chains((rel, router), 0, frozenset({(rel, router)})) if router else [((), None)]
        for r in rs:
            own = r.path[len(r.prefix):] if r.prefix and r.path.startswith(r.prefix) else r.path
            for steps, why in node_chains:
                # Flask: register_blueprint(bp, url_prefix=...) replaces the blueprint's own prefix
                replaced = r.framework == "flask" and bool(r.prefix) and bool(steps) and bool(steps[-1].text)
                own_prefix = "" if replaced else r.prefix
                local = ((Step(own_prefix, rel, r.span, "router"),) if own_prefix else ()) + (Step(own, rel, r.span, "route"),)
                full = join(*(s.text for s in steps), own_prefix, own)
                if own == "/" and not own_prefix and steps and r.framework in _ROOT_IS_PREFIX:
                    full = join(*(s.text for s in steps))  # Express: router.get('/') under '/users' is /users
                composed.append(ComposedRoute(r.method, full, rel, r, (*steps, *local), r.unresolved or why))
    from .routes_files import file_routes
    from .routes_nest import compose_nest

    composed += compose_nest(files, lookup, resolve)
    for method, full, rel, r, app, why in file_routes(file_apps, lookup):
        base = (Step(app.base, app.config, app.base_span, "mount"),) if app.base and app.base_span else ()
        composed.append(ComposedRoute(method, full, rel, r, (*base, Step(r.path, rel, r.span, "route")), why))
    composed.sort(key=lambda c: (c.path, c.method, c.file, c.route.span.start))
    return composed


# ---------------------------------------------------------------------- drift

def drift(composed: list[ComposedRoute], endpoints: list[Endpoint]) -> list[Finding]:
    """Where the contracts and the routes the backend really declares disagree:

    - ``unimplemented-endpoint`` on a contract entry no route implements;
    - ``route-method-mismatch`` on a contract entry whose path has routes, none with its method;
    - ``undeclared-route`` on a route no contract declares (its path, or its path with
      its method).

    Judged only for a contract the workspace's routes mostly implement (at least half of its
    paths have a route): a contract of another service, or of a backend specward reads only
    part of, gives no finding; and no ``unimplemented-endpoint`` at all while some route's
    full path is unresolved (it may be the one). A contract's paths are compared in the frame most of its
    endpoints match in: with its servers base path, or without it (routes mounted under a
    prefix the base names). Routes whose full path is unresolved count for nothing."""
    resolved = [c for c in composed if c.unresolved is None]
    unresolved = len(resolved) < len(composed)
    if not resolved or not endpoints:
        return []
    routes = EndpointTable([Endpoint(c.method, c.path, c.file, c.route.span) for c in resolved])
    out: list[Finding] = []
    implemented: list[Endpoint] = []
    by_file: dict[str, list[Endpoint]] = {}
    for ep in endpoints:
        by_file.setdefault(ep.file, []).append(ep)
    for file in sorted(by_file):
        eps = by_file[file]
        full = len({full_path(ep) for ep in eps if routes.lookup(full_path(ep))})
        bare = len({ep.path for ep in eps if routes.lookup(ep.path)})
        if 2 * max(full, bare) < len({ep.path for ep in eps}):
            continue  # the routes implement less than half of its paths: not (all) this backend's
        implemented += eps
        use_full = full >= bare
        for ep in eps:
            path = full_path(ep) if use_full else ep.path
            found = routes.lookup(path)
            shown = f"{ep.method} {full_path(ep)}"
            if not found:
                if unresolved:
                    continue  # a route whose full path is unknown may be the one
                out.append(Finding("unimplemented-endpoint", CODES["unimplemented-endpoint"].severity,
                                   f"{shown} is declared in the contract but no route of the backend implements it",
                                   ep.file, ep.span, (("method", ep.method), ("path", path))))
            elif not any(r.method in (ep.method, "ANY") for r in found):
                where = ", ".join(sorted({f"{r.method} at {r.file}" for r in found}))
                out.append(Finding("route-method-mismatch", CODES["route-method-mismatch"].severity,
                                   f"{shown} is declared in the contract, but the backend routes {path} only as "
                                   f"{where}", ep.file, ep.span, (("method", ep.method), ("path", path))))
    if implemented:
        declared = EndpointTable(implemented)
        for c in resolved:
            if not any(ep.method == c.method or c.method == "ANY" for ep in declared.lookup(c.path)):
                out.append(Finding("undeclared-route", CODES["undeclared-route"].severity,
                                   f"{c.method} {c.path} is implemented here but no contract declares it",
                                   c.file, c.route.span, (("method", c.method), ("path", c.path))))
    return out


def find_declared(file: str, name: str, lookup, resolve, of, hops: int = 0):
    """(file, declaration) of the module-level declaration ``name`` (as written in ``file``:
    ``UserView``, ``views.UserView``) names among ``of(facts)`` (a file's views, its data
    classes), in the file itself or through its imports and re-exports (``from .users import
    UserViewSet`` in a package's ``__init__``); None when it is not one of the workspace's."""
    facts = lookup(file)
    if facts is None or hops > 8:
        return None
    if "." not in name:
        for d in of(facts):
            if d.name == name:
                return file, d
    node = child_node(file, name, lookup, resolve)
    if node is None or node == (file, name):
        return None
    target, attr = node
    tfacts = lookup(target)
    if tfacts is None:
        return None
    for d in of(tfacts):
        if d.name == attr:
            return target, d
    if any(i.local == attr for i in tfacts.imports):
        return find_declared(target, attr, lookup, resolve, of, hops + 1)
    return None
