"""Deterministic synthetic workspace for the benchmark (``bench/run.py``).

``ensure_workspace(workdir, n)`` writes ``workdir/ws-<n>`` (or reuses it when its stamp
says it was made by this generator version with the same seed and size) and returns a
``Manifest``: where the contracts and the edit target are, and what the generator
*expects* the index to find (calls per status), so the benchmark can tell a fast index
from an index that found nothing.

The workspace is a mixed TypeScript/JavaScript/Python monorepo:

- ``src/api/config.ts``   ``API_BASE`` and a ``ROUTES`` object, imported by many files;
- ``src/api/http.ts``     an axios instance (``axios.create({ baseURL: API_BASE })``);
- ``src/api/request.ts``  a thin wrapper: ``get(path)``/``post(path, body)``/... forwarding
  to ``fetch(`${API_ROOT}${path}`)``;
- ``src/<area>/<feature>/*.{ts,tsx,js,jsx}`` feature modules calling the API through
  ``fetch`` (literals, templates, imported constants), the axios instance and the wrapper;
- ``pyclient/config.py`` and ``pyclient/<area>/<pkg>/*.py`` using ``requests``/``httpx``
  (module functions, ``httpx.Client(base_url=...)``, ``requests.Session`` in classes) with
  f-strings over a ``BASE`` constant, module-level or imported;
- ``src/big/big.ts`` a ~2,000-line module with ~100 calls and one marked edit target;
- ``src/big/calls2k.ts`` (2,000 lines, ~120 KB) and ``src/big/calls10k.ts`` (10,000 lines,
  ~600 KB): service modules with long lines of calls (HTTP calls, logging, metrics,
  navigation, array pipelines), the targets of the random-position edits; what they
  import lives in ``src/core/`` (telemetry, store, router, cache, context);
- ``contracts/openapi.yaml`` (OpenAPI 3.0, 150 operations, servers url with base path
  ``/api/v2``) and ``contracts/billing.dsl.json`` (SpecDSL, 50 endpoints).

About 5% of the calls are phantom (path not declared) or method mismatches.

For the import checks (``add_import_parts``, which draws from its own seeded generators so
that the HTTP calls above stay byte-identical): a root ``tsconfig.json`` (``@/*`` ->
``src/*``), ``package.json`` (dependencies, ``workspaces``), a barrel chain
``src/shared/index.ts`` -> ``src/shared/ui/index.ts`` -> modules (``export *``, two levels),
a workspace package ``packages/billing-sdk`` (``@bench/billing-sdk``, linked into
``node_modules`` as npm does), a small ``node_modules`` tree (``axios``, ``react``,
``dayjs``, ``@acme/ui``, and ``left-pad``, installed but not declared), extra imports of
all of these in feature files, ``flag_importer_count(n)`` TypeScript files importing
``FLAG_EXPORT`` through the barrel (the export-removal edit), and ``PLANTED_IMPORTS``:
one wrong import each in a known TypeScript file (``Manifest.import_phantoms``).
"""

from __future__ import annotations

import json
import random
import re
import shutil
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

GENERATOR_VERSION = 7  # 5: the import-check parts (tsconfig, barrels, packages, node_modules); 6: the backends;
# 7: the fields (literal bodies, params objects, response reads, planted field mistakes; the schemas they need)
DEFAULT_SEED = 20250601

API_PREFIX = "/api/v2"
PY_BASE = "http://localhost:8000/api/v2"
OPENAPI_REL = "contracts/openapi.yaml"
DSL_REL = "contracts/billing.dsl.json"
BIG_REL = "src/big/big.ts"
# the big files of long call lines for the random-position edits: path -> line count
CALLS_FILES = {"src/big/calls2k.ts": 2000, "src/big/calls10k.ts": 10000}
EDIT_MARKER = "bench:edit-target"
# the edit target call is `api.get(`<DECLARED>`)`; the benchmark flips it to UNDECLARED
EDIT_DECLARED = "/users/${userId}"
EDIT_UNDECLARED = "/users/${userId}/avatarz"
# the body-key edit target (version 7): bench/run.py deletes the second letter of the key
# `name` in its object literal (`nme`: an unknown-field) and puts it back
FIELD_EDIT_MARKER = "bench:field-target"
FIELD_EDIT_KEY = "name"
FIELD_EDIT_BLOCK = (f"// {FIELD_EDIT_MARKER}: bench/run.py renames the body key `{FIELD_EDIT_KEY}` (one keystroke) and back\n"
                    "export async function benchFieldTarget(userName: string) {\n"
                    f"  const {{ data }} = await api.post(`/users`, {{ {FIELD_EDIT_KEY}: userName, status: 'active' }});\n"
                    "  return data;\n}\n")
PHANTOM_RATE = 0.05

# --------------------------------------------------------------------------- vocabulary

OPENAPI_RESOURCES = [
    ("users", "user"), ("orders", "order"), ("products", "product"), ("carts", "cart"),
    ("payments", "payment"), ("shipments", "shipment"), ("reviews", "review"), ("categories", "category"),
    ("coupons", "coupon"), ("addresses", "address"), ("notifications", "notification"), ("sessions", "session"),
    ("teams", "team"), ("projects", "project"), ("tasks", "task"), ("comments", "comment"),
    ("files", "file"), ("webhooks", "webhook"), ("reports", "report"), ("subscriptions", "subscription"),
    ("plans", "plan"), ("warehouses", "warehouse"), ("suppliers", "supplier"), ("refunds", "refund"),
    ("vendors", "vendor"),
]
DSL_RESOURCES = [
    ("invoices", "invoice"), ("ledgers", "ledger"), ("taxes", "tax"), ("receipts", "receipt"),
    ("payouts", "payout"), ("disputes", "dispute"), ("balances", "balance"), ("statements", "statement"),
    ("transfers", "transfer"), ("fees", "fee"),
]
SUBS = ["items", "history", "members", "attachments", "events", "tags", "lines", "audit", "settings", "stats"]
BOGUS_SUBS = ["avatarz", "preview", "export-v2", "legacy", "summaryx", "bulk", "archive-all", "duplicate"]
METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]

NOUNS = ["account", "badge", "basket", "billing", "board", "calendar", "catalog", "channel", "checkout", "client",
         "dashboard", "delivery", "detail", "digest", "draft", "editor", "entry", "feed", "filter", "folder",
         "gallery", "header", "inbox", "insight", "invoice", "label", "layout", "ledger", "list", "login", "menu",
         "metric", "modal", "order", "overview", "panel", "picker", "pipeline", "preview", "price", "profile",
         "queue", "quota", "record", "refund", "region", "report", "review", "route", "schedule", "search",
         "section", "selector", "setting", "sidebar", "signal", "stock", "summary", "table", "tag", "team",
         "ticket", "timeline", "toolbar", "tracker", "usage", "vault", "viewer", "wallet", "widget", "workflow"]
ADJS = ["active", "archived", "basic", "bulk", "cached", "compact", "current", "daily", "default", "detailed",
        "draft", "editable", "expanded", "filtered", "global", "inline", "latest", "local", "main", "monthly",
        "nested", "paged", "pending", "primary", "public", "quick", "recent", "remote", "shared", "simple",
        "sorted", "stale", "team", "user", "weekly"]
AREAS = ["admin", "analytics", "auth", "billing", "catalog", "checkout", "core", "crm", "dashboard", "editor",
         "growth", "inventory", "messaging", "mobile", "onboarding", "ops", "payments", "platform", "search",
         "settings", "shipping", "social", "support", "teams", "reports", "marketing", "media", "partners"]
# the schemas' fields (version 7): what the OpenAPI records return, what their request bodies
# take (`name` required), the paging query parameters of every list (OpenAPI and SpecDSL)
RESPONSE_FIELDS = ("id", "name", "status", "createdAt")
INPUT_FIELDS = ("name", "status", "note", "requestId")
QUERY_PARAMS = ("limit", "offset", "page")
FIELDS = ["id", "name", "status", "createdAt", "updatedAt", "total", "count", "owner", "label", "priority",
          "email", "region", "currency", "amount", "note", "kind"]


def camel(*words: str) -> str:
    parts = [p for w in words for p in w.replace("-", "_").split("_") if p]
    return parts[0].lower() + "".join(p[:1].upper() + p[1:] for p in parts[1:])


def pascal(*words: str) -> str:
    c = camel(*words)
    return c[:1].upper() + c[1:]


def snake(*words: str) -> str:
    out = []
    for w in words:
        buf = ""
        for ch in w.replace("-", "_"):
            if ch.isupper():
                buf += "_" + ch.lower()
            else:
                buf += ch
        out.append(buf.strip("_"))
    return "_".join(x for x in out if x)


# --------------------------------------------------------------------------- the API


@dataclass(frozen=True)
class Ep:
    """One declared endpoint: ``segs`` are literal segments or ``(param,)`` tuples."""

    method: str
    segs: tuple
    resource: str  # plural resource name (ROUTES key)
    kind: str  # openapi | dsl
    route_prefix: tuple  # literal segments that ROUTES[resource] stands for

    def openapi_path(self) -> str:
        return "/" + "/".join(s if isinstance(s, str) else "{" + s[0] + "}" for s in self.segs)

    def dsl_path(self) -> str:
        return API_PREFIX + "/" + "/".join(s if isinstance(s, str) else ":" + s[0] for s in self.segs)

    def shape(self) -> str:
        """The path as the matcher sees it (params as {})."""
        return "/" + "/".join(s if isinstance(s, str) else "{}" for s in self.segs)


@dataclass
class Api:
    openapi: list[Ep]
    dsl: list[Ep]
    methods_by_shape: dict[str, set[str]]

    @property
    def all(self) -> list[Ep]:
        return self.openapi + self.dsl


def build_api() -> Api:
    rng = random.Random(7)
    openapi: list[Ep] = []
    for plural, single in OPENAPI_RESOURCES:
        pid = (camel(single, "id"),)
        sub = rng.choice(SUBS)
        update = "PUT" if rng.random() < 0.5 else "PATCH"
        pre = (plural,)
        openapi += [
            Ep("GET", (plural,), plural, "openapi", pre),
            Ep("POST", (plural,), plural, "openapi", pre),
            Ep("GET", (plural, pid), plural, "openapi", pre),
            Ep(update, (plural, pid), plural, "openapi", pre),
            Ep("DELETE", (plural, pid), plural, "openapi", pre),
            Ep("GET", (plural, pid, sub), plural, "openapi", pre),
        ]
    dsl: list[Ep] = []
    for plural, single in DSL_RESOURCES:
        pid = (camel(single, "id"),)
        sub = rng.choice(SUBS)
        pre = ("billing", plural)
        dsl += [
            Ep("GET", pre, plural, "dsl", pre),
            Ep("POST", pre, plural, "dsl", pre),
            Ep("GET", pre + (pid,), plural, "dsl", pre),
            Ep("PATCH", pre + (pid,), plural, "dsl", pre),
            Ep("GET", pre + (pid, sub), plural, "dsl", pre),
        ]
    by_shape: dict[str, set[str]] = {}
    for ep in openapi + dsl:
        by_shape.setdefault(ep.shape(), set()).add(ep.method)
    return Api(openapi, dsl, by_shape)


def render_openapi(api: Api, skip: Ep | None = None) -> str:
    lines = [
        "openapi: 3.0.3",
        "info:",
        "  title: Storefront API",
        "  version: 2.4.0",
        "  description: Generated by bench/generate.py for the specward benchmark.",
        "servers:",
        "  - url: https://api.example.com/api/v2",
        "    description: production",
        "paths:",
    ]
    by_path: dict[str, list[Ep]] = {}
    for ep in api.openapi:
        if ep is not skip:
            by_path.setdefault(ep.openapi_path(), []).append(ep)
    for path, eps in by_path.items():
        lines.append(f"  {path}:")
        params = [s[0] for s in eps[0].segs if not isinstance(s, str)]
        if params:
            lines.append("    parameters:")
            for p in params:
                lines += [f"      - name: {p}", "        in: path", "        required: true",
                          "        schema:", "          type: string"]
        for ep in eps:
            res = pascal(ep.resource)
            op = camel(ep.method.lower(), *[s if isinstance(s, str) else "by_" + s[0] for s in ep.segs])
            lines += [f"    {ep.method.lower()}:", f"      operationId: {op}",
                      f"      summary: {ep.method} {path}", f"      tags: [{ep.resource}]"]
            if ep.method == "GET" and isinstance(ep.segs[-1], str):  # a list: the paging parameters
                lines.append("      parameters:")
                for q in QUERY_PARAMS:
                    lines += [f"        - name: {q}", "          in: query", "          required: false",
                              "          schema:", "            type: integer"]
            if ep.method in ("POST", "PUT", "PATCH"):
                lines += ["      requestBody:", "        required: true", "        content:",
                          "          application/json:", "            schema:",
                          f"              $ref: \"#/components/schemas/{res}Input\""]
            ok = {"POST": "201", "DELETE": "204"}.get(ep.method, "200")
            lines += ["      responses:", f"        \"{ok}\":", "          description: OK"]
            if ok != "204":
                lines += ["          content:", "            application/json:", "              schema:",
                          f"                $ref: \"#/components/schemas/{res}\""]
            lines += ["        \"404\":", "          description: Not found"]
    lines += ["components:", "  schemas:"]
    for plural, _ in OPENAPI_RESOURCES:
        res = pascal(plural)
        # the response: a record, which also carries `items` (the code reads `res.data?.items`)
        lines += [f"    {res}:", "      type: object", "      properties:"]
        for f in RESPONSE_FIELDS:
            lines += [f"        {f}:", "          type: string"]
        lines += ["        total:", "          type: integer",
                  "        items:", "          type: array", "          items:",
                  f"            $ref: \"#/components/schemas/{res}Row\""]
        lines += [f"    {res}Row:", "      type: object", "      properties:"]
        for f in ("id", "name", "status", "owner", "total"):
            lines += [f"        {f}:", "          type: string"]
        # the request body: `name` required; `requestId` is what the service modules add
        lines += [f"    {res}Input:", "      type: object", "      required: [name]", "      properties:"]
        for f in INPUT_FIELDS:
            lines += [f"        {f}:", "          type: string"]
    return "\n".join(lines) + "\n"


def render_dsl(api: Api) -> str:
    endpoints = []
    for i, ep in enumerate(api.dsl, 1):
        params = {s[0]: "string" for s in ep.segs if not isinstance(s, str)}
        req: dict = {}
        if params:
            req["params"] = params
        if ep.method in ("POST", "PATCH"):
            req["body"] = {"amount": "number, required", "currency": "string", "note": "string",
                           "requestId": "string"}
        if ep.method == "GET" and not params:
            req["query"] = {q: "number" for q in QUERY_PARAMS}
        endpoints.append({
            "id": f"EP-{i:03d}", "method": ep.method, "path": ep.dsl_path(),
            "description": f"{ep.method} {ep.resource}", "auth": ep.method != "GET",
            **({"request": req} if req else {}),
            "successStatus": 201 if ep.method == "POST" else 200,
            "successDescription": f"The {ep.resource}",
            "errors": [{"status": 404, "code": "NOT_FOUND", "description": "No such record"}] if params else [],
        })
    models = [{"name": pascal(single), "description": f"A {single}",
               "fields": [{"name": "id", "type": "String", "required": True, "unique": True},
                          {"name": "amount", "type": "Int", "required": True},
                          {"name": "currency", "type": "String", "required": True}]}
              for _, single in DSL_RESOURCES]
    doc = {"version": "1.0",
           "feature": {"id": "billing", "title": "Billing", "description": "Invoices, payouts and ledgers."},
           "models": models, "endpoints": endpoints}
    return json.dumps(doc, indent=2) + "\n"


# --------------------------------------------------------------------------- calls


@dataclass
class Expect:
    calls: int = 0
    matched: int = 0
    phantom: int = 0
    mismatch: int = 0

    def add(self, status: str) -> None:
        self.calls += 1
        if status == "matched":
            self.matched += 1
        elif status == "phantom":
            self.phantom += 1
        else:
            self.mismatch += 1


@dataclass
class CallPlan:
    """What one generated call asks for: method, path segments, expected status."""

    method: str
    segs: tuple  # literal segments (after API_PREFIX) or (param,) tuples
    status: str
    ep: Ep

    @property
    def params(self) -> list[str]:
        return [s[0] for s in self.segs if not isinstance(s, str)]


def plan_call(rng: random.Random, api: Api, expect: Expect, force: str | None = None) -> CallPlan:
    ep = rng.choice(api.all)
    roll = rng.random()
    status = force or ("phantom" if roll < PHANTOM_RATE * 0.6 else "mismatch" if roll < PHANTOM_RATE else "matched")
    if status == "matched":
        plan = CallPlan(ep.method, ep.segs, "matched", ep)
    elif status == "phantom":
        # /orders/{orderId}/<bogus>: the resource's id path plus a sub-resource nobody declared
        single = next(s for p, s in OPENAPI_RESOURCES + DSL_RESOURCES if p == ep.resource)
        segs = ep.route_prefix + ((camel(single, "id"),), rng.choice(BOGUS_SUBS))
        plan = CallPlan(rng.choice(["GET", "POST"]), segs, "phantom", ep)
    else:
        declared = api.methods_by_shape[ep.shape()]
        method = rng.choice([m for m in METHODS if m not in declared])
        plan = CallPlan(method, ep.segs, "method-mismatch", ep)
    expect.add(plan.status)
    return plan


def ts_path(plan: CallPlan, rng: random.Random, style: str = "camel") -> str:
    """Path after the base, as template-literal text (`/users/${userId}/items`)."""
    out = []
    for s in plan.segs:
        if isinstance(s, str):
            out.append(s)
        elif rng.random() < 0.15:
            out.append("${encodeURIComponent(" + s[0] + ")}")
        else:
            out.append("${" + s[0] + "}")
    path = "/" + "/".join(out)
    if plan.method == "GET" and isinstance(plan.segs[-1], str) and rng.random() < 0.25:
        path += "?limit=${limit}&offset=${offset}"
    return path


def py_path(plan: CallPlan, rng: random.Random) -> str:
    out = []
    for s in plan.segs:
        out.append(s if isinstance(s, str) else "{" + snake(s[0]) + "}")
    path = "/" + "/".join(out)
    if plan.method == "GET" and isinstance(plan.segs[-1], str) and rng.random() < 0.2:
        path += "?page={page}"
    return path


def ts_params(plan: CallPlan, typed: bool, extra: list[str] = ()) -> str:
    names = plan.params + list(extra)
    return ", ".join(f"{n}: string" if typed else n for n in names)


# --------------------------------------------------------------------------- fields (version 7)
# What matched calls send and read, checked against the schemas (issue 14): object-literal
# bodies, `params` objects, reads of the response in the same function; and the PLANTED
# mistakes, one finding each, recorded in `Manifest.field_phantoms`. Every choice here draws
# from a generator of its own (seeded by the workspace seed and the file's path), never from
# the one of the calls: the calls, their methods, paths and statuses are those of version 6.

FIELD_CODES = ("unknown-field", "missing-field", "unknown-parameter", "missing-parameter", "unknown-response-field")
FIELD_BODY_RATE = 0.5  # of the matched calls with a body, in the styles that write one inline
FIELD_PARAMS_RATE = 0.4  # of the matched list GETs (no query string in the URL)
FIELD_READS_RATE = 0.5  # of the matched OpenAPI calls with a response body
# of those: the share with a planted mistake (each kind one finding at one line)
PLANT_UNKNOWN_FIELD, PLANT_MISSING_FIELD, PLANT_UNKNOWN_PARAM, PLANT_UNKNOWN_READ = 0.12, 0.08, 0.15, 0.12

# a body or parameter set: (key, value), the value ("var", name) | ("str", text) | ("num", text)
_V = lambda n: ("var", n)  # noqa: E731
_S = lambda t: ("str", t)  # noqa: E731
_N = lambda t: ("num", t)  # noqa: E731
BODIES = {  # by contract: (valid ones, planted unknown fields (one each, near a declared one), planted missing)
    "openapi": ([[("name", _V("name")), ("status", _S("active"))],
                 [("name", _V("name")), ("status", _S("draft")), ("note", _S("created in the app"))],
                 [("name", _V("name"))]],
                [[("name", _V("name")), ("stauts", _S("active"))],
                 [("name", _V("name")), ("status", _S("draft")), ("notes", _S("created in the app"))],
                 [("nmae", _V("name")), ("status", _S("active"))]],
                [("status", _S("active")), ("note", _S("created in the app"))]),  # no `name`
    "dsl": ([[("amount", _V("amount")), ("currency", _S("EUR"))],
             [("amount", _V("amount")), ("currency", _S("EUR")), ("note", _S("monthly run"))]],
            [[("amount", _V("amount")), ("curency", _S("EUR"))],
             [("amount", _V("amount")), ("currency", _S("EUR")), ("notes", _S("monthly run"))]],
            [("currency", _S("EUR")), ("note", _S("monthly run"))]),  # no `amount`
}
PARAMS_VALID = [[("limit", _V("limit")), ("offset", _V("offset"))], [("limit", _V("limit"))],
                [("page", _V("page")), ("limit", _N("50"))]]
PARAMS_UNKNOWN = [[("limit", _V("limit")), ("pageSize", _N("20"))],
                  [("limit", _V("limit")), ("offset", _V("offset")), ("sort", _S("name"))],
                  [("limt", _V("limit"))]]
PY_PARAMS_UNKNOWN = [[("limit", _V("limit")), ("per_page", _N("50"))],
                     [("limit", _V("limit")), ("offset", _V("offset")), ("sort", _S("name"))],
                     [("page_size", _N("20"))]]
READS_VALID = list(RESPONSE_FIELDS)
READS_UNKNOWN = ["ownerName", "createdOn", "statusCode", "displayName", "updatedAt"]
VAR_TYPES = {"name": ("string", "str"), "amount": ("number", "float"), "limit": ("number", "int = 50"),
             "offset": ("number", "int = 0"), "page": ("number", "int = 1")}


def ts_object(pairs: list) -> str:
    out = []
    for k, (kind, v) in pairs:
        out.append(k if kind == "var" and k == v else f"{k}: {v}" if kind != "str" else f"{k}: '{v}'")
    return "{ " + ", ".join(out) + " }"


def py_dict(pairs: list) -> str:
    return "{" + ", ".join(f'"{k}": ' + (v if kind != "str" else f'"{v}"') for k, (kind, v) in pairs) + "}"


@dataclass
class FieldPlan:
    """What one call sends and reads (None: as in version 6)."""

    body: list | None = None
    params: list | None = None
    read: str | None = None
    planted: list = field(default_factory=list)  # (code, what) of this call's planted mistakes

    @property
    def vars(self) -> list[str]:
        out: list[str] = []
        for k, (kind, v) in (self.body or []) + (self.params or []):
            if kind == "var" and v not in out:
                out.append(v)
        return out


class FieldGen:
    """Decides the fields of each call and records where the planted mistakes are."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.pending: list[tuple[str, str, str]] = []  # (needle, code, about) of the block being written
        self.bound: list[tuple[str, int, str, str, str]] = []  # (block, line in block, code, about, needle)
        self.planted: list[dict] = []
        self.sites = {"bodies": 0, "params": 0, "reads": 0}
        self.extra = 0  # characters the fields added to the current file's call blocks

    def start(self, rel: str) -> None:
        self.rng = random.Random(f"{self.seed}:fields:{rel}")
        self.bound = []
        self.extra = 0

    def same_draws(self, rng: random.Random, plain, with_fields) -> str:
        """``with_fields()``, drawing from ``rng`` exactly what ``plain()`` (the version 6 block)
        draws; the difference in length is kept in ``extra``, so that the file's filler (sized
        by length) is the same, and with it every later draw of the calls' generator."""
        state = rng.getstate()
        base = plain()
        after = rng.getstate()
        rng.setstate(state)
        text = with_fields()
        if rng.getstate() != after:
            raise AssertionError("the field content drew from the calls' generator")
        self.extra += len(text) - len(base)
        return text

    def plan(self, plan: CallPlan, path: str, *, body: bool, params: bool, reads: bool, py: bool = False) -> FieldPlan:
        fp = FieldPlan()
        if plan.status != "matched":
            return fp
        r, ep = self.rng, plan.ep
        if body and plan.method in ("POST", "PUT", "PATCH") and r.random() < FIELD_BODY_RATE:
            valid, unknown, missing = BODIES[ep.kind]
            roll = r.random()
            if roll < PLANT_UNKNOWN_FIELD:
                fp.body = r.choice(unknown)
                fp.planted.append(("unknown-field", next(k for k, _ in fp.body if k not in INPUT_FIELDS + (
                    "amount", "currency"))))
            elif roll < PLANT_UNKNOWN_FIELD + PLANT_MISSING_FIELD:
                fp.body = missing
                fp.planted.append(("missing-field", "name" if ep.kind == "openapi" else "amount"))
            else:
                fp.body = r.choice(valid)
            self.sites["bodies"] += 1
        complete = ep.kind == "openapi" or plan.segs == ep.route_prefix  # the operation lists its query parameters
        if (params and plan.method == "GET" and "?" not in path and isinstance(plan.segs[-1], str) and complete
                and r.random() < FIELD_PARAMS_RATE):
            if r.random() < PLANT_UNKNOWN_PARAM:
                fp.params = r.choice(PY_PARAMS_UNKNOWN if py else PARAMS_UNKNOWN)
                fp.planted.append(("unknown-parameter", next(k for k, _ in fp.params if k not in QUERY_PARAMS)))
            else:
                fp.params = r.choice(PARAMS_VALID)
            self.sites["params"] += 1
        if reads and ep.kind == "openapi" and plan.method != "DELETE" and r.random() < FIELD_READS_RATE:
            if r.random() < PLANT_UNKNOWN_READ:
                fp.read = r.choice(READS_UNKNOWN)
                fp.planted.append(("unknown-response-field", fp.read))
            else:
                fp.read = r.choice(READS_VALID)
            self.sites["reads"] += 1
        return fp

    def plant(self, fp: FieldPlan, needles: dict[str, str]) -> None:
        """The planted mistakes of ``fp``, each found in its block by ``needles[code]`` (text
        on the line of the finding)."""
        for code, about in fp.planted:
            self.pending.append((needles[code], code, about))

    def bind(self, block: str) -> None:
        for needle, code, about in self.pending:
            i = block.find(needle)
            if i < 0:
                raise AssertionError(f"planted {code}: {needle!r} not in its block")
            self.bound.append((block, block.count("\n", 0, i), code, about, needle))
        self.pending = []

    def place(self, rel: str, first_line: int, blocks: list[str], joiner: str) -> None:
        """Lines of the planted mistakes of one file: its ``blocks`` joined by ``joiner``,
        the first one starting at 1-based line ``first_line``."""
        line, left = first_line, list(self.bound)
        for b in blocks:
            for entry in [e for e in left if e[0] is b]:
                left.remove(entry)
                self.planted.append({"file": rel, "line": line + entry[1], "code": entry[2], "about": entry[3],
                                     "text": entry[4]})
            line += b.count("\n") + joiner.count("\n")
        if left:
            raise AssertionError(f"{rel}: {len(left)} planted field mistake(s) in no block")
        self.bound = []


# --------------------------------------------------------------------------- TS / JS files


@dataclass
class Ctx:
    rng: random.Random
    api: Api
    expect: Expect
    lang: str  # ts tsx js jsx
    stem: str
    imports_needed: set = field(default_factory=set)
    fields: FieldGen | None = None  # None: no field content (the service modules of CALLS_FILES)

    @property
    def typed(self) -> bool:
        return self.lang in ("ts", "tsx")

    @property
    def jsx(self) -> bool:
        return self.lang in ("tsx", "jsx")


def _query_params(path: str, typed: bool) -> list[str]:
    return ["limit", "offset"] if "${limit}" in path else []


def ts_call_block(ctx: Ctx, plan: CallPlan | None = None) -> str:
    """One exported function/class/component containing one HTTP call."""
    if ctx.fields is None:
        return _ts_call_block(ctx, plan)
    plan = plan or plan_call(ctx.rng, ctx.api, ctx.expect)
    text = ctx.fields.same_draws(ctx.rng, lambda: _ts_call_block(replace(ctx, fields=None), plan),
                                 lambda: _ts_call_block(ctx, plan))
    ctx.fields.bind(text)
    return text


def _ts_sig(params: list[str], typed: bool) -> str:
    if not typed:
        return ", ".join(params)
    return ", ".join(f"{p}: {'Record<string, unknown>' if p == 'payload' else VAR_TYPES.get(p, ('string',))[0]}"
                     for p in params)


def _ts_call_block(ctx: Ctx, plan: CallPlan | None = None) -> str:
    rng, typed = ctx.rng, ctx.typed
    plan = plan or plan_call(rng, ctx.api, ctx.expect)
    path = ts_path(plan, rng)
    qp = _query_params(path, typed)
    words = [s for s in plan.segs if isinstance(s, str)]
    fname = camel(plan.method.lower() if plan.method != "GET" else rng.choice(["load", "fetch", "get", "read"]),
                  *words[-2:], rng.choice(NOUNS))
    body_arg = plan.method in ("POST", "PUT", "PATCH")
    sig_params = plan.params + qp + (["payload"] if body_arg else [])
    if typed:
        sig = ", ".join(f"{p}: {('Record<string, unknown>' if p == 'payload' else 'number' if p in ('limit', 'offset') else 'string')}"
                        for p in sig_params)
    else:
        sig = ", ".join(sig_params)
    ret = f": Promise<{pascal(words[0] if words else 'item')}Dto>" if typed else ""
    style = rng.choices(["wrapper", "axios", "fetch-const", "fetch-literal", "fetch-routes", "class", "component"],
                        [26, 24, 14, 10, 8, 10, 8 if ctx.jsx else 0])[0]
    if style == "fetch-routes" and plan.segs[: len(plan.ep.route_prefix)] != plan.ep.route_prefix:
        style = "fetch-const"
    fetching = style in ("fetch-const", "fetch-literal", "fetch-routes")
    fp = (ctx.fields.plan(plan, path, body=style in ("axios", "class") or fetching, params=style in ("axios", "class"),
                          reads=style == "axios" or fetching)
          if ctx.fields is not None else FieldPlan())
    if fp.body is not None or fp.params is not None:
        sig_params = plan.params + qp + fp.vars + (["payload"] if body_arg and fp.body is None else [])
        sig = _ts_sig(sig_params, typed)
    body_text = ts_object(fp.body) if fp.body is not None else "payload"
    cfg = f", {{ params: {ts_object(fp.params)} }}" if fp.params is not None else ""
    needles = {"unknown-field": body_text, "missing-field": body_text,
               "unknown-parameter": ts_object(fp.params) if fp.params is not None else "",
               "unknown-response-field": f".{fp.read}"}
    doc = f"/** {plan.method} {path.split('?')[0]} — {rng.choice(DOC_PHRASES)} */\n"
    if style == "wrapper":
        fn = {"GET": "get", "POST": "post", "PUT": "put", "PATCH": "patch", "DELETE": "del"}[plan.method]
        ctx.imports_needed.add(("request", fn))
        call = f"{fn}(`{path}`" + (", payload)" if body_arg else ")")
        return (doc + f"export async function {fname}({sig}){ret} {{\n"
                f"  const data = await {call};\n"
                f"  if (!data) {{\n    throw new Error('{fname}: empty response');\n  }}\n"
                f"  return data{' as ' + ret[10:-1] if typed else ''};\n}}\n")
    if style == "axios":
        ctx.imports_needed.add(("http", "api"))
        verb = plan.method.lower()
        call = f"api.{verb}(`{path}`" + (f", {body_text}" if body_arg else "") + cfg + ")"
        if fp.read is not None:  # the response read where it arrives: `const { data } = await api.get(...)`
            ctx.fields.plant(fp, {**needles, "unknown-response-field": f"data.{fp.read}"})
            return (doc + f"export async function {fname}({sig}){ret} {{\n"
                    f"  const {{ data }} = await {call};\n"
                    f"  if (!data.{fp.read}) {{\n    throw new Error('{fname}: the response has no {fp.read}');\n  }}\n"
                    "  return data;\n}\n")
        if ctx.fields is not None:
            ctx.fields.plant(fp, needles)
        return (doc + f"export async function {fname}({sig}){ret} {{\n"
                f"  const res = await {call};\n"
                f"  if (res.status >= 400) {{\n    throw new Error(`{fname} failed with ${{res.status}}`);\n  }}\n"
                f"  return res.data;\n}}\n")
    if style in ("fetch-const", "fetch-literal", "fetch-routes"):
        if style == "fetch-const":
            ctx.imports_needed.add(("config", "API_BASE"))
            url = f"`${{API_BASE}}{path}`"
        elif style == "fetch-routes":
            ctx.imports_needed.add(("config", "API_BASE"))
            ctx.imports_needed.add(("config", "ROUTES"))
            n = len(plan.ep.route_prefix)
            rest = ts_path(CallPlan(plan.method, plan.segs[n:], plan.status, plan.ep), rng) if plan.segs[n:] else ""
            rest = rest.replace("?limit=${limit}&offset=${offset}", "")
            if rest:
                url = f"`${{API_BASE}}${{ROUTES.{camel(plan.ep.resource)}}}{rest}`"
            else:
                url = f"API_BASE + ROUTES.{camel(plan.ep.resource)}"
        else:
            url = f"`{API_PREFIX}{path}`" if "${" in path else f"'{API_PREFIX}{path}'"
        init = []
        if plan.method != "GET" or rng.random() < 0.2:
            init.append(f"method: '{plan.method}'")
        init.append("headers: { 'Content-Type': 'application/json', Accept: 'application/json' }")
        if body_arg:
            init.append(f"body: JSON.stringify({body_text})")
        opts = "{\n    " + ",\n    ".join(init) + ",\n  }"
        head = (doc + f"export async function {fname}({sig}){ret} {{\n"
                f"  const res = await fetch({url}, {opts});\n"
                f"  if (!res.ok) {{\n    throw new Error(`{fname}: HTTP ${{res.status}}`);\n  }}\n")
        if fp.read is None:
            if ctx.fields is not None:
                ctx.fields.plant(fp, needles)
            return head + "  return res.json();\n}\n"
        f = fp.read
        if ctx.fields.rng.random() < 0.5:  # bound once, then read
            ctx.fields.plant(fp, {**needles, "unknown-response-field": f"body.{f}"})
            return (head + "  const body = await res.json();\n"
                    f"  if (!body.{f}) {{\n    throw new Error(`{fname}: the response has no {f}`);\n  }}\n"
                    "  return body;\n}\n")
        ctx.fields.plant(fp, {**needles, "unknown-response-field": f"(await res.json()).{f}"})
        return (head + f"  const {f}Value = (await res.json()).{f};\n"
                f"  if ({f}Value === undefined) {{\n    throw new Error(`{fname}: the response has no {f}`);\n  }}\n"
                f"  return {f}Value;\n}}\n")
    if style == "class":
        ctx.imports_needed.add(("http", "api"))
        cls = pascal(rng.choice(ADJS), words[0] if words else "item", "service")
        verb = plan.method.lower()
        call = f"api.{verb}(`{path}`" + (f", {body_text}" if body_arg else "") + cfg + ")"
        if ctx.fields is not None:
            ctx.fields.plant(fp, needles)
        field_t = "private readonly cache = new Map<string, unknown>();" if typed else "cache = new Map();"
        ctor = "constructor(private readonly tenant: string) {}" if typed else "constructor(tenant) {\n    this.tenant = tenant;\n  }"
        return (f"/** Service for {' '.join(words)}; caches responses per key. */\n"
                f"export class {cls} {{\n  {field_t}\n\n  {ctor}\n\n"
                f"  async {camel('run', *words[-1:])}({sig}) {{\n"
                f"    const key = [{', '.join(plan.params) or repr(fname)}].join(':');\n"
                f"    if (this.cache.has(key)) {{\n      return this.cache.get(key);\n    }}\n"
                f"    const res = await {call};\n"
                f"    this.cache.set(key, res.data);\n    return res.data;\n  }}\n\n"
                f"  clear() {{\n    this.cache.clear();\n  }}\n}}\n")
    # component (tsx/jsx)
    ctx.imports_needed.add(("react", "useEffect"))
    ctx.imports_needed.add(("react", "useState"))
    ctx.imports_needed.add(("config", "API_BASE"))
    comp = pascal(rng.choice(ADJS), words[-1] if words else "item", rng.choice(["panel", "list", "view", "card"]))
    props = plan.params + qp
    if typed:
        prop_t = "{ " + "; ".join(f"{p}: {'number' if p in ('limit', 'offset') else 'string'}" for p in props) + " }"
        head = f"export function {comp}({{ {', '.join(props)} }}: {prop_t}) {{\n" if props else f"export function {comp}() {{\n"
        state = "  const [rows, setRows] = useState<Array<{ id: string; name: string }>>([]);\n" \
                "  const [error, setError] = useState<string | null>(null);\n"
    else:
        head = f"export function {comp}({{ {', '.join(props)} }}) {{\n" if props else f"export function {comp}() {{\n"
        state = "  const [rows, setRows] = useState([]);\n  const [error, setError] = useState(null);\n"
    init = f", {{ method: '{plan.method}' }}" if plan.method != "GET" else ""
    deps = ", ".join(props)
    return (f"/** Shows {' '.join(words)}. */\n" + head + state +
            "  useEffect(() => {\n    let cancelled = false;\n"
            f"    fetch(`${{API_BASE}}{path}`{init})\n"
            "      .then((r) => r.json())\n"
            "      .then((body) => {\n        if (!cancelled) setRows(body.items ?? []);\n      })\n"
            "      .catch((e) => setError(String(e)));\n"
            "    return () => {\n      cancelled = true;\n    };\n"
            f"  }}, [{deps}]);\n"
            "  return (\n"
            f"    <section className=\"{snake(comp).replace('_', '-')}\">\n"
            "      {error && <p className=\"error\">{error}</p>}\n"
            "      <ul>\n"
            "        {rows.map((row) => (\n"
            "          <li key={row.id}>{row.name}</li>\n"
            "        ))}\n"
            "      </ul>\n"
            "    </section>\n"
            "  );\n}\n")


DOC_PHRASES = [
    "used by the list view and the export job", "keep in sync with the backend team's contract",
    "retries are handled by the caller", "the response is cached for one minute",
    "see the ADR on pagination for the limits", "called on every route change",
    "errors are surfaced in the toast area", "results are sorted on the server",
    "TODO: move to the generated client", "the payload is validated before sending",
]


def ts_filler_block(ctx: Ctx, i: int) -> str:
    rng, typed = ctx.rng, ctx.typed
    noun, adj = rng.choice(NOUNS), rng.choice(ADJS)
    kind = rng.choices(["interface", "helper", "reducer", "constants", "comment", "class", "component", "enum"],
                       [3 if typed else 0, 5, 3, 2, 2, 2, 3 if ctx.jsx else 0, 1 if typed else 0])[0]
    T = pascal(adj, noun)
    if kind == "interface":
        fields = rng.sample(FIELDS, rng.randint(3, 7))
        body = "\n".join(f"  {f}{'?' if rng.random() < 0.3 else ''}: {rng.choice(['string', 'number', 'boolean', 'string | null', 'Date'])};" for f in fields)
        return f"export interface {T}{i} {{\n{body}\n}}\n"
    if kind == "enum":
        vals = rng.sample(["Idle", "Loading", "Ready", "Failed", "Stale", "Archived", "Draft"], 4)
        return f"export enum {T}State{i} {{\n" + "\n".join(f"  {v} = '{v.lower()}'," for v in vals) + "\n}\n"
    if kind == "helper":
        fn = camel("format", adj, noun, str(i))
        a = "value: { name?: string; total?: number }, locale = 'en-US'" if typed else "value, locale = 'en-US'"
        r = ": string" if typed else ""
        return (f"// Formats a {noun} for display; falls back to the raw name.\n"
                f"export function {fn}({a}){r} {{\n"
                f"  const total = typeof value.total === 'number' ? value.total : 0;\n"
                f"  const formatter = new Intl.NumberFormat(locale, {{ maximumFractionDigits: 2 }});\n"
                f"  const label = (value.name ?? '{noun}').trim();\n"
                f"  if (!label) {{\n    return formatter.format(total);\n  }}\n"
                f"  return `${{label}} (${{formatter.format(total)}})`;\n}}\n")
    if kind == "reducer":
        fn = camel(adj, noun, "reducer", str(i))
        st = "state: { items: string[]; selected: string | null }, action: { type: string; id?: string }" if typed else "state, action"
        return (f"/**\n * Reducer for the {adj} {noun} state.\n * Unknown actions return the state unchanged.\n */\n"
                f"export function {fn}({st}) {{\n"
                "  switch (action.type) {\n"
                "    case 'select':\n      return { ...state, selected: action.id ?? null };\n"
                "    case 'add':\n      return action.id ? { ...state, items: [...state.items, action.id] } : state;\n"
                "    case 'remove':\n      return { ...state, items: state.items.filter((x) => x !== action.id) };\n"
                "    case 'reset':\n      return { items: [], selected: null };\n"
                "    default:\n      return state;\n  }\n}\n")
    if kind == "constants":
        name = snake(adj, noun, "options").upper() + f"_{i}"
        vals = rng.sample(["'compact'", "'comfortable'", "'spacious'", "'grid'", "'list'", "'table'", "'cards'"], 4)
        return (f"export const {name} = [{', '.join(vals)}]{' as const' if typed else ''};\n"
                f"export const {name}_DEFAULT = {vals[0]};\n"
                f"const {camel(adj, noun, 'limits', str(i))} = {{ min: {rng.randint(1, 5)}, max: {rng.randint(20, 200)}, step: {rng.randint(1, 10)} }};\n"
                f"export const clamp{T}{i} = (n{': number' if typed else ''}) => Math.min({camel(adj, noun, 'limits', str(i))}.max, Math.max({camel(adj, noun, 'limits', str(i))}.min, n));\n")
    if kind == "comment":
        return ("/*\n"
                f" * The {adj} {noun} flow talks to the API through the shared client. Keep the\n"
                " * request helpers thin: retries, auth headers and error mapping live in\n"
                " * src/api. When the contract changes, regenerate the DTOs first.\n"
                " */\n")
    if kind == "class":
        cls = pascal(adj, noun, "store", str(i))
        if typed:
            return (f"export class {cls} {{\n  private items = new Map<string, {{ id: string; name: string }}>();\n\n"
                    "  upsert(item: { id: string; name: string }): void {\n    this.items.set(item.id, item);\n  }\n\n"
                    "  get(id: string) {\n    return this.items.get(id);\n  }\n\n"
                    "  all(): Array<{ id: string; name: string }> {\n"
                    "    return [...this.items.values()].sort((a, b) => a.name.localeCompare(b.name));\n  }\n}\n")
        return (f"export class {cls} {{\n  constructor() {{\n    this.items = new Map();\n  }}\n\n"
                "  upsert(item) {\n    this.items.set(item.id, item);\n  }\n\n"
                "  get(id) {\n    return this.items.get(id);\n  }\n\n"
                "  all() {\n    return [...this.items.values()].sort((a, b) => a.name.localeCompare(b.name));\n  }\n}\n")
    # component without HTTP
    comp = pascal(adj, noun, "badge", str(i))
    props = "{ label, count }: { label: string; count: number }" if typed else "{ label, count }"
    return (f"export function {comp}({props}) {{\n"
            "  const tone = count > 10 ? 'warning' : count > 0 ? 'info' : 'muted';\n"
            "  return (\n"
            f"    <span className={{`badge badge-${{tone}}`}} title={{label}}>\n"
            "      {label}\n"
            "      {count > 0 && <strong className=\"badge-count\">{count}</strong>}\n"
            "    </span>\n"
            "  );\n}\n")


def ts_imports(ctx: Ctx, rel: str, siblings: list[tuple[str, str]]) -> str:
    """Import lines for what the blocks used, plus sibling imports (stem, export)."""
    up = "../" * (rel.count("/") - 1)  # from src/a/b/x.ts up to src/
    use_alias = ctx.rng.random() < 0.3
    lines = []
    groups: dict[str, list[str]] = {}
    for mod, name in sorted(ctx.imports_needed):
        groups.setdefault(mod, []).append(name)
    if "react" in groups:
        lines.append(f"import {{ {', '.join(sorted(groups.pop('react')))} }} from 'react';")
    for mod in ("config", "http", "request"):
        if mod in groups:
            spec = f"@/api/{mod}" if use_alias else f"{up}api/{mod}"
            lines.append(f"import {{ {', '.join(sorted(groups[mod]))} }} from '{spec}';")
    for stem, export in siblings:
        lines.append(f"import {{ {export} }} from './{stem}';")
    return "\n".join(lines) + "\n"


def sibling_export(stem: str) -> str:
    return camel(stem, "meta")


def gen_ts_file(rng: random.Random, api: Api, expect: Expect, rel: str, lang: str, stem: str,
                folder_stems: list[str], target_size: int, fields: FieldGen | None = None) -> str:
    ctx = Ctx(rng, api, expect, lang, stem, fields=fields)
    if fields is not None:
        fields.start(rel)
    n_calls = rng.randint(3, 6)
    blocks = [ts_call_block(ctx) for _ in range(n_calls)]
    size = sum(map(len, blocks)) - (fields.extra if fields is not None else 0)  # as in version 6
    i = 0
    while size < target_size - 600:
        b = ts_filler_block(ctx, i)
        i += 1
        blocks.insert(rng.randint(0, len(blocks)), b)
        size += len(b)
    others = [s for s in folder_stems if s != stem]
    siblings = [(s, sibling_export(s)) for s in rng.sample(others, min(len(others), rng.randint(0, 2)))]
    header = (f"// {rel}\n// {pascal(stem)}: {rng.choice(DOC_PHRASES)}.\n")
    imports = ts_imports(ctx, rel, siblings)
    meta_t = ": { name: string; version: number; uses: string[] }" if ctx.typed else ""
    uses = ", ".join(f"{e}.name" for _, e in siblings)
    meta = f"export const {sibling_export(stem)}{meta_t} = {{ name: '{stem}', version: {rng.randint(1, 9)}, uses: [{uses}] }};\n"
    prefix = header + imports + "\n" + meta + "\n"
    if fields is not None:
        fields.place(rel, prefix.count("\n") + 1, blocks, "\n")
    return prefix + "\n".join(blocks)


# --------------------------------------------------------------------------- Python files


def py_call_block(rng: random.Random, api: Api, expect: Expect, needs: set, plan: CallPlan | None = None,
                  fields: FieldGen | None = None) -> str:
    holder: list[tuple[FieldPlan, str]] = []
    if fields is None:
        return _py_call_block(rng, api, expect, needs, plan, None, holder)
    plan = plan or plan_call(rng, api, expect)
    text = fields.same_draws(rng, lambda: _py_call_block(rng, api, expect, needs, plan, None, []),
                             lambda: _py_call_block(rng, api, expect, needs, plan, fields, holder))
    fp, fname = holder[0]
    if fp.read is not None:  # `resp.json()["field"]` read before the function returns the body
        m = re.search(r"\n( +)return resp\.json\(\)\n", text)
        ind = m[1]
        read = f'{ind}log.debug("{fname}: %s", resp.json()["{fp.read}"])\n'
        text = text[:m.start() + 1] + read + text[m.start() + 1:]
        fields.extra += len(read)
    fields.plant(fp, {"unknown-field": "json=", "missing-field": "json=", "unknown-parameter": "params=",
                      "unknown-response-field": f'resp.json()["{fp.read}"]'})
    fields.bind(text)
    return text


def _py_call_block(rng: random.Random, api: Api, expect: Expect, needs: set, plan: CallPlan | None,
                   fields: FieldGen | None, holder: list) -> str:
    plan = plan or plan_call(rng, api, expect)
    path = py_path(plan, rng)
    words = [s for s in plan.segs if isinstance(s, str)]
    fname = snake(plan.method.lower() if plan.method != "GET" else rng.choice(["load", "fetch", "get", "read"]),
                  *[w.replace("-", "_") for w in words[-2:]], rng.choice(NOUNS))
    params = [snake(p) for p in plan.params] + (["page"] if "{page}" in path else [])
    body = plan.method in ("POST", "PUT", "PATCH")
    sig = ", ".join([f"{p}: str" if p != "page" else "page: int = 1" for p in params] + (["payload: dict"] if body else []))
    style = rng.choices(["requests", "httpx-client", "httpx-async", "session", "request-method"], [40, 20, 10, 20, 10])[0]
    m = plan.method.lower()
    js = ", json=payload" if body else ""
    if fields is not None:
        fp = fields.plan(plan, path, body=True, params=True, reads=True, py=True)
        holder.append((fp, fname))
        if fp.body is not None or fp.params is not None:
            sig = ", ".join([f"{p}: str" for p in params] + [f"{v}: {VAR_TYPES[v][1]}" for v in fp.vars]
                            + (["payload: dict"] if body and fp.body is None else []))
            js = ((f", json={py_dict(fp.body) if fp.body is not None else 'payload'}" if body else "")
                  + (f", params={py_dict(fp.params)}" if fp.params is not None else ""))
    doc = f'    """{plan.method} {path.split("?")[0]}: {rng.choice(DOC_PHRASES)}."""\n'
    if style == "requests":
        needs.add("requests")
        return (f"def {fname}({sig}) -> dict:\n{doc}"
                f"    resp = requests.{m}(f\"{{BASE}}{path}\"{js}, timeout=TIMEOUT)\n"
                "    resp.raise_for_status()\n    return resp.json()\n")
    if style == "httpx-client":
        needs.add("httpx")
        return (f"def {fname}({sig}) -> dict:\n{doc}"
                "    with httpx.Client(base_url=BASE, timeout=TIMEOUT) as client:\n"
                f"        resp = client.{m}(f\"{path}\"{js})\n"
                "        resp.raise_for_status()\n        return resp.json()\n")
    if style == "httpx-async":
        needs.add("httpx")
        return (f"async def {fname}({sig}) -> dict:\n{doc}"
                "    async with httpx.AsyncClient(base_url=BASE, timeout=TIMEOUT) as client:\n"
                f"        resp = await client.{m}(f\"{path}\"{js})\n"
                "        resp.raise_for_status()\n        return resp.json()\n")
    if style == "request-method":
        needs.add("requests")
        return (f"def {fname}({sig}) -> dict:\n{doc}"
                f"    resp = requests.request(\"{plan.method}\", f\"{{BASE}}{path}\"{js}, timeout=TIMEOUT)\n"
                "    resp.raise_for_status()\n    return resp.json()\n")
    needs.add("requests")
    cls = pascal(rng.choice(ADJS), words[0] if words else "item", "gateway")
    msig = ", ".join(["self"] + ([sig] if sig else []))
    return (f"class {cls}:\n    \"\"\"Talks to the {' '.join(words)} API with one pooled session.\"\"\"\n\n"
            "    def __init__(self, token: str) -> None:\n"
            "        self.session = requests.Session()\n"
            "        self.session.headers[\"Authorization\"] = f\"Bearer {token}\"\n\n"
            f"    def {fname}({msig}) -> dict:\n"
            f"        resp = self.session.{m}(f\"{{BASE}}{path}\"{js}, timeout=TIMEOUT)\n"
            "        resp.raise_for_status()\n        return resp.json()\n\n"
            "    def close(self) -> None:\n        self.session.close()\n")


def py_filler_block(rng: random.Random, i: int) -> str:
    noun, adj = rng.choice(NOUNS), rng.choice(ADJS)
    kind = rng.choice(["dataclass", "helper", "comment", "mapping", "class"])
    if kind == "dataclass":
        fields = rng.sample(FIELDS, rng.randint(3, 6))
        body = "\n".join(f"    {snake(f)}: {rng.choice(['str', 'int', 'float', 'bool', 'str | None'])} = None" for f in fields)
        return (f"@dataclass\nclass {pascal(adj, noun)}{i}:\n    \"\"\"A {adj} {noun} as the API returns it.\"\"\"\n\n{body}\n\n"
                "    def as_dict(self) -> dict:\n        return {k: v for k, v in self.__dict__.items() if v is not None}\n")
    if kind == "helper":
        fn = snake("summarize", adj, noun) + f"_{i}"
        return (f"def {fn}(rows: list[dict], key: str = \"total\") -> dict:\n"
                f"    \"\"\"Sum ``key`` over rows, grouped by status (used by the {noun} report).\"\"\"\n"
                "    out: dict[str, float] = {}\n"
                "    for row in rows:\n"
                "        status = row.get(\"status\") or \"unknown\"\n"
                "        out[status] = out.get(status, 0.0) + float(row.get(key) or 0)\n"
                "    return dict(sorted(out.items()))\n")
    if kind == "comment":
        return (f"# The {adj} {noun} job runs nightly. It is safe to re-run: every write is keyed\n"
                "# by the record id, and the API treats repeated writes as no-ops.\n"
                f"{snake(adj, noun).upper()}_{i}_BATCH = {rng.randint(10, 500)}\n")
    if kind == "mapping":
        vals = rng.sample(["open", "closed", "pending", "failed", "done", "archived", "draft"], 4)
        return (f"{snake(noun, 'labels').upper()}_{i} = {{\n" + "".join(f"    \"{v}\": \"{v.title()}\",\n" for v in vals) + "}\n\n"
                f"def label_{snake(noun)}_{i}(status: str) -> str:\n"
                f"    return {snake(noun, 'labels').upper()}_{i}.get(status, status.title())\n")
    return (f"class {pascal(adj, noun, 'cache')}{i}:\n    \"\"\"An in-memory cache with a size bound.\"\"\"\n\n"
            "    def __init__(self, limit: int = 128) -> None:\n        self.limit = limit\n        self.items: dict[str, dict] = {}\n\n"
            "    def get(self, key: str) -> dict | None:\n        return self.items.get(key)\n\n"
            "    def put(self, key: str, value: dict) -> None:\n"
            "        if len(self.items) >= self.limit:\n            self.items.pop(next(iter(self.items)))\n"
            "        self.items[key] = value\n")


def gen_py_file(rng: random.Random, api: Api, expect: Expect, rel: str, stem: str, folder_stems: list[str],
                pkg: str, target_size: int, fields: FieldGen | None = None) -> str:
    needs: set = set()
    if fields is not None:
        fields.start(rel)
    n_calls = rng.randint(3, 6)
    blocks = [py_call_block(rng, api, expect, needs, fields=fields) for _ in range(n_calls)]
    size = sum(map(len, blocks)) - (fields.extra if fields is not None else 0)  # as in version 6
    i = 0
    while size < target_size - 500:
        b = py_filler_block(rng, i)
        i += 1
        blocks.insert(rng.randint(0, len(blocks)), b)
        size += len(b)
    lines = [f'"""{pascal(stem)}: {rng.choice(DOC_PHRASES)}."""', "", "from __future__ import annotations", "",
             "import logging", "from dataclasses import dataclass", ""]
    lines += [f"import {m}" for m in sorted(needs)]
    lines.append("")
    if rng.random() < 0.6:
        lines.append("from pyclient.config import BASE, TIMEOUT")
    else:
        lines.append("from pyclient.config import TIMEOUT")
    others = [s for s in folder_stems if s != stem]
    for s in rng.sample(others, min(len(others), rng.randint(0, 2))):
        lines.append(f"from {pkg}.{s} import {s.upper()}_VERSION")
    lines.append("")
    if "from pyclient.config import BASE, TIMEOUT" not in lines:
        lines.append(f'BASE = "{PY_BASE}"')
    lines += [f"{stem.upper()}_VERSION = {rng.randint(1, 9)}", "log = logging.getLogger(__name__)", "", ""]
    prefix = "\n".join(lines)
    if fields is not None:
        fields.place(rel, prefix.count("\n") + 1, blocks, "\n\n")
    return prefix + "\n\n".join(blocks)


# --------------------------------------------------------------------------- fixed modules

CONFIG_TS = """// Shared API configuration: every module builds its URLs from these.
export const API_BASE = '/api/v2';

export const ROUTES = {
%s
};

export const DEFAULT_PAGE_SIZE = 20;
"""

HTTP_TS = """import axios from 'axios';
import { API_BASE } from './config';

// The one axios instance of the app: every call through it goes to /api/v2/...
export const api = axios.create({
  baseURL: API_BASE,
  timeout: 10_000,
  headers: { Accept: 'application/json' },
});

api.interceptors.response.use(
  (res) => res,
  (err) => Promise.reject(err),
);
"""

REQUEST_TS = """// A thin wrapper: get/post/put/patch/del(path) are HTTP calls to API_ROOT + path.
const API_ROOT = '/api/v2';

type Options = { method: string; path: string; body?: unknown };

async function send({ method, path, body }: Options) {
  const res = await fetch(`${API_ROOT}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) {
    throw new Error(`${method} ${path} failed: ${res.status}`);
  }
  return res.json();
}

export function get(path: string) {
  return send({ method: 'GET', path });
}

export function post(path: string, body?: unknown) {
  return send({ method: 'POST', path, body });
}

export function put(path: string, body?: unknown) {
  return send({ method: 'PUT', path, body });
}

export function patch(path: string, body?: unknown) {
  return send({ method: 'PATCH', path, body });
}

export function del(path: string) {
  return send({ method: 'DELETE', path });
}
"""

CONFIG_PY = f'''"""Settings shared by every API client module."""

BASE = "{PY_BASE}"
TIMEOUT = 10.0
'''


def gen_big_ts(rng: random.Random, api: Api, expect: Expect, fields: FieldGen | None = None) -> tuple[str, int]:
    """~2,000 lines, ~100 calls, 2+ phantoms, one edit target (and, with ``fields``, the
    body-key edit target after it). Returns (text, calls)."""
    ctx = Ctx(rng, api, expect, "ts", "big", fields=fields)
    if fields is not None:
        fields.start(BIG_REL)
    ctx.imports_needed |= {("http", "api"), ("request", "get"), ("config", "API_BASE")}
    blocks = []
    calls = 0
    for k in range(99):
        force = "phantom" if k in (10, 60) else None
        blocks.append(ts_call_block(ctx, plan_call(rng, api, expect, force)))
        calls += 1
        if k % 3 == 0:
            blocks.append(ts_filler_block(ctx, k))
    # the edit target (matched as generated), in the middle
    expect.add("matched")
    calls += 1
    target = (f"// {EDIT_MARKER}: bench/run.py flips this path between a declared and an undeclared endpoint\n"
              "export async function benchEditTarget(userId: string) {\n"
              f"  const res = await api.get(`{EDIT_DECLARED}`);\n"
              "  return res.data;\n}\n")
    blocks.insert(len(blocks) // 2, target)
    if fields is not None:  # the body-key edit target (version 7), right after the edit target
        expect.add("matched")
        calls += 1
        blocks.insert(blocks.index(target) + 1, FIELD_EDIT_BLOCK)
    body = "\n".join(blocks)
    head = "// src/big/big.ts: the generated 'everything' module (bench edit target).\n" + ts_imports(ctx, BIG_REL, []) + "\n"
    if fields is not None:
        fields.place(BIG_REL, head.count("\n") + 1, blocks, "\n")
    text = head + body
    n = text.count("\n")
    i = 1000
    while n < 2000:  # pad with filler to 2,000 lines
        b = "\n" + ts_filler_block(ctx, i)
        i += 1
        text += b
        n += b.count("\n")
    return text, calls


def _calls_http_line(ctx: Ctx, plan: CallPlan, fname: str) -> tuple[str, str]:
    """(the line with the HTTP call, its result variable) in the style of a service module:
    long argument lists, option objects, chained promise handlers."""
    rng = ctx.rng
    path = ts_path(plan, rng)
    verb = plan.method.lower()
    body = plan.method in ("POST", "PUT", "PATCH")
    opts = ("{ headers: { Authorization: `Bearer ${ctx.token}`, 'X-Request-Id': ctx.requestId }, "
            "timeout: ctx.timeoutMs ?? DEFAULT_TIMEOUT_MS, signal: ctx.signal }")
    style = rng.choices(["axios", "wrapper", "fetch"], [50, 25, 25])[0]
    if style == "axios":
        ctx.imports_needed.add(("http", "api"))
        args = f"`{path}`, " + ("payload, " if body else "") + opts
        return f"  const res = await api.{verb}({args});", "res.data"
    if style == "wrapper":
        fn = {"GET": "get", "POST": "post", "PUT": "put", "PATCH": "patch", "DELETE": "del"}[plan.method]
        ctx.imports_needed.add(("request", fn))
        return f"  const data = await {fn}(`{path}`{', payload' if body else ''});", "data"
    ctx.imports_needed.add(("config", "API_BASE"))
    init = [f"method: '{plan.method}'", "headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${ctx.token}` }"]
    if body:
        init.append("body: JSON.stringify({ ...payload, requestId: ctx.requestId })")
    init.append("signal: ctx.signal")
    return (f"  const res = await fetch(`${{API_BASE}}{path}`, {{ {', '.join(init)} }}).then((r) => "
            f"(r.ok ? r.json() : Promise.reject(new Error(`{fname}: HTTP ${{r.status}}`))));"), "res"


def _calls_function(ctx: Ctx, i: int) -> str:
    """One exported async function: an HTTP call among lines of logging, metrics and
    array pipelines, most of them over 100 characters."""
    rng = ctx.rng
    plan = plan_call(rng, ctx.api, ctx.expect)
    words = [s for s in plan.segs if isinstance(s, str)]
    noun = rng.choice(NOUNS)
    fname = camel(plan.method.lower() if plan.method != "GET" else rng.choice(["load", "fetch", "read", "sync"]),
                  *words[-2:], noun, str(i))
    params = plan.params + (["payload"] if plan.method in ("POST", "PUT", "PATCH") else [])
    sig = ", ".join([f"{p}: {'Record<string, unknown>' if p == 'payload' else 'string'}" for p in params]
                    + ["ctx: RequestContext"])
    dto = pascal(words[0] if words else "item", "dto")
    call, result = _calls_http_line(ctx, plan, fname)
    event = ".".join(w.replace("-", "_") for w in words) or "root"
    keys = ", ".join(plan.params + ["tenant: ctx.tenant"])
    lines = [
        f"/** {plan.method} {'/'.join(['', *words])}: {rng.choice(DOC_PHRASES)}. */",
        f"export async function {fname}({sig}): Promise<{dto}[]> {{",
        "  const started = performance.now();",
        f"  logger.debug(`{fname}: start for tenant ${{ctx.tenant}} (locale ${{ctx.locale}}, currency ${{ctx.currency}})`, {{ {keys} }});",
        call,
        f"  const rows: {dto}[] = ({result}?.items ?? []).filter((row: {dto}) => row.status !== 'archived' && row.owner !== undefined)"
        f".map((row: {dto}) => normalizeRow(row, ctx.locale, ctx.currency));",
    ]
    groups = [
        [f"  metrics.timing('{event}.{noun}', performance.now() - started, {{ tenant: ctx.tenant, count: String(rows.length), cached: 'false' }});"],
        [f"  store.dispatch(actions.{camel('set', noun, 'rows')}({{ rows, total: rows.length, fetchedAt: Date.now(), source: '{fname}' }}));"],
        [f"  const byStatus = rows.reduce((acc: Record<string, number>, row: {dto}) => ({{ ...acc, [row.status]: (acc[row.status] ?? 0) + 1 }}), {{}});",
         "  if (byStatus.failed) {",
         f"    logger.warn(`{fname}: ${{byStatus.failed}} failed rows`, byStatus);",
         "  }"],
        [f"  track('{event}/{noun}/loaded', {{ count: rows.length, durationMs: Math.round(performance.now() - started), tenant: ctx.tenant }});"],
        ["  if (rows.length === 0 && ctx.redirectOnEmpty) {",
         f"    router.push(`/{noun}s/empty?from=${{encodeURIComponent(ctx.route)}}&tenant=${{ctx.tenant}}`, {{ replace: true }});",
         "    return [];",
         "  }"],
        [f"  cache.set(['{fname}', {', '.join(plan.params) or 'ctx.tenant'}].join(':'), rows, {{ ttlMs: 60_000, tags: ['{event}', '{noun}'] }});"],
    ]
    for g in rng.sample(groups, rng.randint(1, 3)):
        lines += g
    lines.append(f"  logger.info(`{fname}: ${{rows.length}} rows in ${{Math.round(performance.now() - started)}} ms`, {{ {keys} }});")
    lines += ["  return rows;", "}"]
    return "\n".join(lines) + "\n"


def _calls_helper(ctx: Ctx, i: int) -> str:
    """A function without HTTP calls: formatting and selection helpers with long chains."""
    rng = ctx.rng
    noun, adj = rng.choice(NOUNS), rng.choice(ADJS)
    fn = camel("select", adj, noun, str(i))
    T = pascal(noun, "row")
    return (f"// Picks the {adj} {noun} rows for the current view and formats their labels.\n"
            f"export function {fn}(rows: {T}[], filter: {{ status?: string; owner?: string; query?: string }}, locale = 'en-US'): string[] {{\n"
            f"  const query = (filter.query ?? '').trim().toLowerCase();\n"
            f"  const visible = rows.filter((row) => (!filter.status || row.status === filter.status) && (!filter.owner || row.owner === filter.owner));\n"
            f"  const matching = query ? visible.filter((row) => row.name.toLowerCase().includes(query) || String(row.id).startsWith(query)) : visible;\n"
            f"  return matching.sort((a, b) => a.name.localeCompare(b.name, locale)).map((row) => `${{row.name}} (${{new Intl.NumberFormat(locale).format(row.total ?? 0)}})`);\n"
            "}\n")


def _calls_class(ctx: Ctx, i: int) -> str:
    """A class whose methods call the API through the shared axios instance."""
    rng = ctx.rng
    plan = plan_call(rng, ctx.api, ctx.expect)
    ctx.imports_needed.add(("http", "api"))
    words = [s for s in plan.segs if isinstance(s, str)]
    cls = pascal(rng.choice(ADJS), words[0] if words else "item", "repository", str(i))
    path = ts_path(plan, rng)
    verb = plan.method.lower()
    sig = ", ".join(f"{p}: string" for p in plan.params)
    body = ", payload" if plan.method in ("POST", "PUT", "PATCH") else ""
    psig = (sig + ", " if sig else "") + ("payload: Record<string, unknown>" if body else "")
    return (f"/** Repository for {' '.join(words)}: one cache entry per key, invalidated on writes. */\n"
            f"export class {cls} {{\n"
            "  private readonly cache = new Map<string, { value: unknown; expires: number }>();\n\n"
            "  constructor(private readonly ctx: RequestContext, private readonly ttlMs = 30_000) {}\n\n"
            f"  async run({psig.rstrip(', ')}) {{\n"
            f"    const key = [{', '.join(plan.params) or repr(cls)}, this.ctx.tenant].join(':');\n"
            "    const hit = this.cache.get(key);\n"
            "    if (hit && hit.expires > Date.now()) {\n      return hit.value;\n    }\n"
            f"    const res = await api.{verb}(`{path}`{body}, {{ headers: {{ Authorization: `Bearer ${{this.ctx.token}}` }}, timeout: this.ctx.timeoutMs }});\n"
            "    this.cache.set(key, { value: res.data, expires: Date.now() + this.ttlMs });\n"
            f"    logger.debug(`{cls}.run: cached ${{key}} for ${{this.ttlMs}} ms`, {{ key, size: this.cache.size, tenant: this.ctx.tenant }});\n"
            "    return res.data;\n  }\n\n"
            "  clear(): void {\n    this.cache.clear();\n  }\n}\n")


def gen_calls_ts(rng: random.Random, api: Api, expect: Expect, rel: str, n_lines: int) -> tuple[str, int]:
    """A service module of ``n_lines`` lines (about 60 bytes per line) made of long lines of
    calls; about one HTTP call per 20 lines. Returns (text, HTTP calls planted)."""
    ctx = Ctx(rng, api, expect, "ts", rel.rsplit("/", 1)[1].split(".")[0])
    ctx.imports_needed |= {("http", "api"), ("config", "API_BASE")}
    before = expect.calls
    blocks: list[str] = []
    lines = 12  # the header written below
    i = 0
    while lines < n_lines:
        kind = rng.choices(["function", "helper", "class", "filler"], [40, 10, 8, 42])[0]
        if kind == "function":
            b = _calls_function(ctx, i)
        elif kind == "helper":
            b = _calls_helper(ctx, i)
        elif kind == "class":
            b = _calls_class(ctx, i)
        else:
            b = ts_filler_block(ctx, 5000 + i)
        i += 1
        blocks.append(b)
        lines += b.count("\n") + 1
    head = (f"// {rel}: generated service module with long lines of calls (bench random-position edits).\n"
            + ts_imports(ctx, rel, [])
            + "import { logger, metrics, track } from '../core/telemetry';\n"
            + "import { store, actions } from '../core/store';\n"
            + "import { router } from '../core/router';\n"
            + "import { cache } from '../core/cache';\n"
            + "import type { RequestContext } from '../core/context';\n\n"
            + "const DEFAULT_TIMEOUT_MS = 8_000;\n\n"
            + "function normalizeRow<T extends { name?: string }>(row: T, locale: string, currency: string) {\n"
            + "  return { ...row, name: (row.name ?? '').trim(), locale, currency };\n}\n")
    text = head + "\n" + "\n".join(blocks)
    return text, expect.calls - before


# --------------------------------------------------------------------------- import-check parts
# Everything below draws from its own generators (seeded by the workspace seed and the file
# path), never from the generator of the calls: the HTTP calls stay as in version 4.

SHARED_INDEX = "src/shared/index.ts"
FLAG_MODULE = "src/shared/ui/flags.ts"
FLAG_EXPORT = "benchFlags"  # bench/run.py deletes its last letter (one keystroke) and puts it back
WS_PACKAGE = "@bench/billing-sdk"
WS_PACKAGE_DIR = "packages/billing-sdk"
IMPORT_CODES = ("phantom-import", "missing-export", "undeclared-dependency")


def flag_importer_count(n: int) -> int:
    """How many TypeScript files import ``FLAG_EXPORT``: 10 at 200 files, 100 at 10,000."""
    return max(10, min(100, n // 100))


# (label, import line, expected code, the name or specifier it is about). One each, in a
# .ts feature file, so that tsc sees them too (TS2307 / TS2305 / TS2724; tsc has no
# counterpart of undeclared-dependency).
PLANTED_IMPORTS = [
    ("missing relative module", "import { parseLedgerLine } from './ledgerParser';", "phantom-import", "./ledgerParser"),
    ("missing module through the @/ alias", "import { useTenant } from '@/core/tenant';", "phantom-import", "@/core/tenant"),
    ("package neither installed nor declared", "import { retryRequest } from 'axios-retryer';", "phantom-import", "axios-retryer"),
    ("missing named export", "import { API_TIMEOUT_MS } from '@/api/config';", "missing-export", "API_TIMEOUT_MS"),
    ("misspelled export through the barrel chain", "import { formatMony } from '@/shared';", "missing-export", "formatMony"),
    ("misspelled export of the workspace package", f"import {{ formatInvoiceNo }} from '{WS_PACKAGE}';", "missing-export", "formatInvoiceNo"),
    ("installed but undeclared package", "import leftPad from 'left-pad';", "undeclared-dependency", "left-pad"),
]

CORE_MODULES = {
    "src/core/telemetry.ts": """// Logging, metrics and product analytics shared by the service modules.
type Fields = Record<string, unknown>;

function emit(level: string, message: string, fields?: Fields): void {
  if (level === 'debug' && !(globalThis as { DEBUG?: boolean }).DEBUG) {
    return;
  }
  console.log(JSON.stringify({ level, message, ...fields, at: new Date().toISOString() }));
}

export const logger = {
  debug: (message: string, fields?: Fields) => emit('debug', message, fields),
  info: (message: string, fields?: Fields) => emit('info', message, fields),
  warn: (message: string, fields?: Fields) => emit('warn', message, fields),
};

export const metrics = {
  timing(name: string, ms: number, tags: Record<string, string> = {}): void {
    emit('metric', name, { ms, ...tags });
  },
};

export function track(event: string, props: Fields = {}): void {
  emit('track', event, props);
}
""",
    "src/core/store.ts": """// A minimal store: actions are created by name (actions.setOrderRows(payload)).
type Action = { type: string; payload: unknown };
type Listener = (action: Action) => void;

const listeners: Listener[] = [];

export const store = {
  dispatch(action: Action): void {
    listeners.forEach((l) => l(action));
  },
  subscribe(l: Listener): () => void {
    listeners.push(l);
    return () => listeners.splice(listeners.indexOf(l), 1);
  },
};

export const actions: Record<string, (payload: unknown) => Action> = new Proxy({}, {
  get: (_target, name) => (payload: unknown) => ({ type: String(name), payload }),
});
""",
    "src/core/router.ts": """// Client-side navigation.
export const router = {
  push(path: string, options: { replace?: boolean } = {}): void {
    if (options.replace) {
      history.replaceState(null, '', path);
    } else {
      history.pushState(null, '', path);
    }
  },
};
""",
    "src/core/cache.ts": """// An in-memory cache with a time-to-live and tags.
const entries = new Map<string, { value: unknown; expires: number; tags: string[] }>();

export const cache = {
  set(key: string, value: unknown, options: { ttlMs: number; tags?: string[] }): void {
    entries.set(key, { value, expires: Date.now() + options.ttlMs, tags: options.tags ?? [] });
  },
  get(key: string): unknown {
    const hit = entries.get(key);
    return hit && hit.expires > Date.now() ? hit.value : undefined;
  },
  invalidate(tag: string): void {
    for (const [key, entry] of entries) {
      if (entry.tags.includes(tag)) {
        entries.delete(key);
      }
    }
  },
};
""",
    "src/core/context.ts": """// What every request of a service module carries.
export interface RequestContext {
  token: string;
  requestId: string;
  tenant: string;
  locale: string;
  currency: string;
  route: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  redirectOnEmpty?: boolean;
}
""",
}

SHARED_MODULES = {
    SHARED_INDEX: """// The shared toolkit: import from '@/shared', never from the files below.
export * from './format';
export * from './ui';
""",
    "src/shared/format.ts": """// Formatting helpers used by list views and exports.
export function formatMoney(amount: number, currency = 'EUR', locale = 'en-US'): string {
  return new Intl.NumberFormat(locale, { style: 'currency', currency }).format(amount);
}

export function formatShortDate(value: string | number | Date, locale = 'en-US'): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium' }).format(new Date(value));
}

export const EMPTY_LABEL = '—';
""",
    "src/shared/ui/index.ts": """// UI building blocks re-exported by '@/shared'.
export * from './theme';
export * from './flags';
""",
    "src/shared/ui/theme.ts": """// Design tokens.
export const themeColors = { primary: '#2f6fed', danger: '#d93025', muted: '#6b7280' } as const;

export type ThemeColor = keyof typeof themeColors;

export function colorOf(name: ThemeColor): string {
  return themeColors[name];
}
""",
    FLAG_MODULE: f"""// Feature flags read at start-up (bench/run.py edits the name of the export below).
export const {FLAG_EXPORT} = {{ newCheckout: false, denseTables: true, betaSearch: false }};

export function isEnabled(name: keyof typeof {FLAG_EXPORT}): boolean {{
  return Boolean({FLAG_EXPORT}[name]);
}}
""",
}

PACKAGE_FILES = {
    f"{WS_PACKAGE_DIR}/package.json": json.dumps({
        "name": WS_PACKAGE, "version": "0.3.0", "private": True,
        "main": "src/index.ts", "types": "src/index.ts"}, indent=2) + "\n",
    f"{WS_PACKAGE_DIR}/src/index.ts": """// Public surface of the billing SDK.
export * from './invoice';
export { formatInvoiceNumber } from './numbers';
""",
    f"{WS_PACKAGE_DIR}/src/invoice.ts": """export interface InvoiceDraft {
  customerId: string;
  lines: Array<{ sku: string; quantity: number; unitPrice: number }>;
  currency: string;
}

export function createInvoiceDraft(customerId: string, currency = 'EUR'): InvoiceDraft {
  return { customerId, lines: [], currency };
}

export function invoiceTotal(draft: InvoiceDraft): number {
  return draft.lines.reduce((sum, line) => sum + line.quantity * line.unitPrice, 0);
}
""",
    f"{WS_PACKAGE_DIR}/src/numbers.ts": """export function formatInvoiceNumber(year: number, seq: number): string {
  return `INV-${year}-${String(seq).padStart(6, '0')}`;
}
""",
}


def _npm(name: str, version: str, dts: str) -> dict[str, str]:
    base = f"node_modules/{name}"
    return {f"{base}/package.json": json.dumps({"name": name, "version": version, "main": "index.js",
                                                "types": "index.d.ts"}, indent=2) + "\n",
            f"{base}/index.js": "module.exports = {};\n",
            f"{base}/index.d.ts": dts}


NODE_MODULES = {
    **_npm("axios", "1.7.9", """export interface AxiosResponse<T = any> { data: T; status: number; headers: Record<string, string>; }
export interface AxiosRequestConfig { baseURL?: string; timeout?: number; headers?: Record<string, string>; signal?: AbortSignal; }
export interface AxiosInstance {
  get<T = any>(url: string, config?: AxiosRequestConfig): Promise<AxiosResponse<T>>;
  delete<T = any>(url: string, config?: AxiosRequestConfig): Promise<AxiosResponse<T>>;
  post<T = any>(url: string, data?: unknown, config?: AxiosRequestConfig): Promise<AxiosResponse<T>>;
  put<T = any>(url: string, data?: unknown, config?: AxiosRequestConfig): Promise<AxiosResponse<T>>;
  patch<T = any>(url: string, data?: unknown, config?: AxiosRequestConfig): Promise<AxiosResponse<T>>;
  interceptors: { response: { use(ok: (r: AxiosResponse) => unknown, fail: (e: unknown) => unknown): number } };
}
declare const axios: AxiosInstance & { create(config?: AxiosRequestConfig): AxiosInstance };
export default axios;
"""),
    **_npm("react", "18.3.1", """export function useState<S>(initial: S | (() => S)): [S, (next: S | ((prev: S) => S)) => void];
export function useEffect(effect: () => void | (() => void), deps?: readonly unknown[]): void;
export function useMemo<T>(factory: () => T, deps: readonly unknown[]): T;
declare global {
  namespace JSX {
    interface Element {}
    interface IntrinsicElements { [name: string]: any; }
  }
}
"""),
    **_npm("dayjs", "1.11.13", """interface Dayjs { format(template?: string): string; add(n: number, unit: string): Dayjs; }
declare function dayjs(value?: string | number | Date): Dayjs;
export default dayjs;
"""),
    **_npm("@acme/ui", "2.4.0", """export interface ButtonProps { label: string; tone?: 'primary' | 'danger'; onClick?: () => void; }
export declare function Button(props: ButtonProps): any;
export declare function Toast(props: { message: string }): any;
export declare const spacing: { sm: number; md: number; lg: number };
"""),
    # a transitive dependency: installed, never declared by the workspace
    **_npm("left-pad", "1.3.0", """declare function leftPad(text: string, length: number, fill?: string): string;
export default leftPad;
"""),
}

ROOT_PACKAGE_JSON = json.dumps({
    "name": "bench-storefront", "version": "1.0.0", "private": True,
    "workspaces": ["packages/*"],
    "dependencies": {"@acme/ui": "^2.4.0", "axios": "^1.7.9", "dayjs": "^1.11.13", "express": "^4.21.2",
                     "react": "^18.3.1"},
}, indent=2) + "\n"

# covers only the TypeScript files (tsc runs on it: bench/run.py)
TSCONFIG_JSON = json.dumps({
    "compilerOptions": {
        "target": "ES2022", "lib": ["ES2022", "DOM"], "module": "ESNext", "moduleResolution": "Bundler",
        "jsx": "preserve", "strict": False, "noEmit": True, "skipLibCheck": True, "types": [],
        "baseUrl": ".", "paths": {"@/*": ["src/*"]},
    },
    "include": ["src/**/*.ts", "src/**/*.tsx", "packages/*/src/**/*.ts"],
}, indent=2) + "\n"

# extra imports of feature files: (probability, line, languages)
EXTRA_IMPORTS = [
    (0.20, "import { formatMoney, EMPTY_LABEL } from '@/shared';", ("ts", "tsx", "js", "jsx")),
    (0.08, "import { themeColors } from '../../shared/ui';", ("ts", "tsx", "js", "jsx")),
    (0.10, "import { Button, spacing } from '@acme/ui';", ("tsx", "jsx")),
    (0.06, "import dayjs from 'dayjs';", ("ts", "tsx", "js", "jsx")),
    (0.05, f"import {{ createInvoiceDraft, formatInvoiceNumber }} from '{WS_PACKAGE}';", ("ts", "tsx")),
    (0.04, f"import type {{ InvoiceDraft }} from '{WS_PACKAGE}';", ("ts",)),
]


def _insert_imports(text: str, lines: list[str]) -> tuple[str, int]:
    """``lines`` inserted after a feature file's two header comment lines; returns the new
    text and the 1-based line number of the first inserted line."""
    head, rest = text.split("\n", 2)[:2], text.split("\n", 2)[2]
    return "\n".join([*head, *lines, rest]), 3


def add_import_parts(files: dict[str, str], web: list[str], n: int, seed: int) -> tuple[list[dict], list[str]]:
    """Add the import-check parts to ``files`` (in place). ``web``: the generated feature
    files (TS/JS), in generation order. Returns (the planted wrong imports, the files
    importing ``FLAG_EXPORT``)."""
    files.update(CORE_MODULES)
    files.update(SHARED_MODULES)
    files.update(PACKAGE_FILES)
    files.update(NODE_MODULES)
    files["package.json"] = ROOT_PACKAGE_JSON
    files["tsconfig.json"] = TSCONFIG_JSON
    for rel in web:
        depth_ok = rel.count("/") == 3  # src/<area>/<feature>/x: '../../shared/ui' is right there
        r = random.Random(f"{seed}:imports:{rel}")
        ext = rel.rsplit(".", 1)[1]
        extra = [line for p, line, langs in EXTRA_IMPORTS
                 if ext in langs and r.random() < p and (depth_ok or "../../" not in line)]
        if extra:
            files[rel] = _insert_imports(files[rel], extra)[0]
    pick = random.Random(f"{seed}:planted-imports")
    ts_files = [rel for rel in web if rel.endswith(".ts")]
    chosen = pick.sample(ts_files, min(len(ts_files), len(PLANTED_IMPORTS) + flag_importer_count(n)))
    planted: list[dict] = []
    for rel, (label, line, code, about) in zip(chosen, PLANTED_IMPORTS):
        text, lineno = _insert_imports(files[rel], [line])
        files[rel] = text
        planted.append({"file": rel, "line": lineno, "code": code, "about": about, "label": label})
    importers = sorted(chosen[len(PLANTED_IMPORTS):])
    for rel in importers:
        files[rel] = _insert_imports(files[rel], [f"import {{ {FLAG_EXPORT} }} from '@/shared';"])[0]
    return planted, importers


# --------------------------------------------------------------------------- the backends

def _py_route_path(ep: Ep, skip: int) -> str:
    """The FastAPI path of ``ep`` below its router's prefix (``skip`` segments): snake-case
    parameters (``{order_id}`` where the contract says ``{orderId}``)."""
    rest = ep.segs[skip:]
    return "".join("/" + (s if isinstance(s, str) else "{" + snake(s[0]) + "}") for s in rest)


def _js_route_path(ep: Ep, skip: int) -> str:
    rest = ep.segs[skip:]
    return "".join("/" + (s if isinstance(s, str) else ":" + s[0]) for s in rest) or "/"


def gen_backends(api: Api) -> tuple[dict[str, str], int]:
    """The backends that implement the two contracts, their prefixes composed across three
    files each: FastAPI for the OpenAPI resources (``backend/main.py`` mounts
    ``backend/api/router.py`` under ``/api/v2``, which mounts one router per resource under
    ``/<plural>``), Express for the SpecDSL ones (``server/app.js`` uses ``/api/v2`` for
    ``server/routes/index.js``, which uses ``/billing/<plural>`` for each resource's router).
    Every contract entry has exactly one route: no drift finding is expected. Returns the
    files and the number of routes."""
    files: dict[str, str] = {}
    by_res: dict[str, list[Ep]] = {}
    for ep in api.openapi:
        by_res.setdefault(ep.resource, []).append(ep)
    imports, mounts = [], []
    for plural, eps in by_res.items():
        single = snake(eps[0].route_prefix[0])
        body = ["from fastapi import APIRouter, HTTPException", "", "router = APIRouter()", ""]
        for k, ep in enumerate(eps):
            params = [snake(s[0]) for s in ep.segs if not isinstance(s, str)]
            sig = ", ".join(f"{p}: int" for p in params)
            verb = ep.method.lower()
            body += ["", f'@router.{verb}("{_py_route_path(ep, 1)}")',
                     f"def {verb}_{single}_{k}({sig}) -> dict:",
                     f'    """{ep.method} {ep.openapi_path()} of the storefront API."""']
            if params:
                body += [f"    if {params[-1]} <= 0:", "        raise HTTPException(status_code=404)",
                         f'    return {{"id": {params[-1]}}}', ""]
            else:
                body += ["    return {}", ""]
        files[f"backend/api/routes/{plural}.py"] = "\n".join(body)
        imports.append(plural)
        mounts.append(f'api_router.include_router({plural}.router, prefix="/{plural}", tags=["{plural}"])')
    files["backend/api/router.py"] = ("from fastapi import APIRouter\n\nfrom backend.api.routes import "
                                      + ", ".join(imports) + "\n\napi_router = APIRouter()\n" + "\n".join(mounts) + "\n")
    files["backend/main.py"] = ("from fastapi import FastAPI\n\nfrom backend.api.router import api_router\n\n"
                                'app = FastAPI(title="Storefront")\n'
                                f'app.include_router(api_router, prefix="{API_PREFIX}")\n')
    by_res = {}
    for ep in api.dsl:
        by_res.setdefault(ep.resource, []).append(ep)
    uses = []
    for plural, eps in by_res.items():
        lines = ["const express = require('express');", "", "const router = express.Router();", ""]
        for ep in eps:
            lines.append(f"router.{ep.method.lower()}('{_js_route_path(ep, len(ep.route_prefix))}', "
                         "(req, res) => res.json({ ok: true }));")
        lines += ["", "module.exports = router;", ""]
        files[f"server/routes/{plural}.js"] = "\n".join(lines)
        uses.append(f"router.use('/billing/{plural}', require('./{plural}'));")
    files["server/routes/index.js"] = ("const express = require('express');\n\nconst router = express.Router();\n"
                                       + "\n".join(uses) + "\n\nmodule.exports = router;\n")
    files["server/app.js"] = ("const express = require('express');\nconst api = require('./routes');\n\n"
                              "const app = express();\napp.use(express.json());\n"
                              f"app.use('{API_PREFIX}', api);\n\nmodule.exports = app;\n")
    return files, len(api.all)


# --------------------------------------------------------------------------- layout


@dataclass
class Manifest:
    n: int
    seed: int
    version: int
    files: int
    bytes: int
    by_language: dict
    expected: dict
    openapi: str = OPENAPI_REL
    dsl: str = DSL_REL
    big: str = BIG_REL
    big_calls: int = 0
    calls_files: dict = field(default_factory=dict)  # path -> (lines, HTTP calls planted)
    # the import checks: the planted wrong imports ({file, line (1-based), code, about,
    # label}), and the module whose export FLAG_EXPORT the importers import (through '@/shared')
    import_phantoms: list = field(default_factory=list)
    flag_module: str = FLAG_MODULE
    flag_export: str = FLAG_EXPORT
    flag_importers: list = field(default_factory=list)
    routes: int = 0  # the backends' routes (gen_backends): each implements one contract entry
    # the field checks (version 7): the planted mistakes ({file, line (1-based), code, about}),
    # one finding each; and how many calls send a literal body / a params object / read the response
    field_phantoms: list = field(default_factory=list)
    field_sites: dict = field(default_factory=dict)


def _folders(rng: random.Random, count: int, top: str, depth_words: list[str]) -> list[str]:
    """``count`` nested folders under ``top`` (area/feature[/sub])."""
    out: list[str] = []
    seen = set()
    while len(out) < count:
        area = rng.choice(AREAS)
        feat = camel(rng.choice(ADJS), rng.choice(depth_words)) if top == "src" else snake(rng.choice(ADJS), rng.choice(depth_words))
        parts = [top, area, feat]
        if rng.random() < 0.35:
            parts.append(rng.choice(["components", "hooks", "services", "utils", "widgets"]) if top == "src"
                         else rng.choice(["jobs", "sync", "clients", "tasks", "reports"]))
        path = "/".join(parts)
        if path not in seen:
            seen.add(path)
            out.append(path)
    return out


def _split(total: int, rng: random.Random) -> list[int]:
    """Folder sizes of 10-20 summing to ``total``."""
    sizes = []
    while total > 0:
        k = min(total, rng.randint(10, 20))
        sizes.append(k)
        total -= k
    return sizes


def _target_size(rng: random.Random) -> int:
    return int(min(14000, max(900, rng.lognormvariate(8.05, 0.45))))


def generate(root: Path, n: int, seed: int = DEFAULT_SEED) -> Manifest:
    rng = random.Random(seed)
    api = build_api()
    expect = Expect()
    files: dict[str, str] = {}
    routes = ",\n".join(f"  {camel(ep.resource)}: '/{'/'.join(ep.route_prefix)}'"
                        for ep in {e.resource: e for e in api.all}.values())
    files["src/api/config.ts"] = CONFIG_TS % routes
    files["src/api/http.ts"] = HTTP_TS
    files["src/api/request.ts"] = REQUEST_TS
    files["pyclient/config.py"] = CONFIG_PY
    backend, n_routes = gen_backends(api)
    files.update(backend)
    fields = FieldGen(seed)
    big_text, big_calls = gen_big_ts(random.Random(seed + 1), api, expect, fields)
    files[BIG_REL] = big_text
    calls_files = {}
    for k, (rel, n_lines) in enumerate(CALLS_FILES.items()):
        text, planted = gen_calls_ts(random.Random(seed + 2 + k), api, expect, rel, n_lines)
        files[rel] = text
        calls_files[rel] = (text.count("\n"), planted)
    remaining = max(0, n - len(files))
    n_py = round(remaining * 0.30)
    n_js = round(remaining * 0.30)
    n_ts = remaining - n_py - n_js
    # web files: TS (~1/4 of them .tsx) and JS (~1/3 .jsx) mixed in the same folders
    web_langs = ["ts"] * n_ts + ["js"] * n_js
    rng.shuffle(web_langs)
    web_sizes = _split(len(web_langs), rng)
    web_dirs = _folders(rng, len(web_sizes), "src", NOUNS)
    k = 0
    web: list[str] = []
    for folder, size in zip(web_dirs, web_sizes):
        stems: list[str] = []
        while len(stems) < size:
            s = camel(rng.choice(ADJS), rng.choice(NOUNS))
            if s not in stems:
                stems.append(s)
        for stem in stems:
            base = web_langs[k]
            k += 1
            lang = ("tsx" if rng.random() < 0.25 else "ts") if base == "ts" else ("jsx" if rng.random() < 0.3 else "js")
            rel = f"{folder}/{stem}.{lang}"
            files[rel] = gen_ts_file(rng, api, expect, rel, lang, stem, stems, _target_size(rng), fields)
            web.append(rel)
    py_sizes = _split(n_py, rng)
    py_dirs = _folders(rng, len(py_sizes), "pyclient", NOUNS)
    for folder, size in zip(py_dirs, py_sizes):
        stems = []
        while len(stems) < size:
            s = snake(rng.choice(ADJS), rng.choice(NOUNS))
            if s not in stems:
                stems.append(s)
        pkg = folder.replace("/", ".")
        for stem in stems:
            rel = f"{folder}/{stem}.py"
            files[rel] = gen_py_file(rng, api, expect, rel, stem, stems, pkg, _target_size(rng), fields)
    files[OPENAPI_REL] = render_openapi(api)
    files[DSL_REL] = render_dsl(api)
    planted_in = {p["file"] for p in fields.planted}
    lines_before = {rel: files[rel].count("\n") for rel in planted_in}
    import_phantoms, flag_importers = add_import_parts(files, web, n, seed)
    for p in fields.planted:  # the import lines went in above every call block: shift by their number
        p["line"] += files[p["file"]].count("\n") - lines_before[p["file"]]
        got = files[p["file"]].split("\n")[p["line"] - 1]
        if p.pop("text") not in got:
            raise AssertionError(f"planted {p['code']} not at {p['file']}:{p['line']}: {got!r}")
    field_phantoms = sorted(fields.planted, key=lambda p: (p["file"], p["line"], p["code"]))
    total_bytes = 0
    by_lang: dict[str, int] = {}
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        data = text.encode("utf-8")
        p.write_bytes(data)
        ext = rel.rsplit(".", 1)[1]
        if not rel.startswith(("contracts/", "node_modules/")) and ext in ("ts", "tsx", "js", "jsx", "py"):
            total_bytes += len(data)
            by_lang[ext] = by_lang.get(ext, 0) + 1
    # the workspace package, linked into node_modules as `npm install` does for workspaces
    link = root / "node_modules" / WS_PACKAGE
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(Path("../..") / WS_PACKAGE_DIR, target_is_directory=True)
    sources = sum(by_lang.values())
    return Manifest(n, seed, GENERATOR_VERSION, sources, total_bytes, dict(sorted(by_lang.items())),
                    asdict(expect), big_calls=big_calls, calls_files=calls_files,
                    import_phantoms=import_phantoms, flag_importers=flag_importers, routes=n_routes,
                    field_phantoms=field_phantoms, field_sites=fields.sites)


STAMP = ".bench-stamp.json"


def ensure_workspace(workdir: Path, n: int, seed: int = DEFAULT_SEED, log=print) -> tuple[Path, Manifest]:
    root = workdir / f"ws-{n}"
    stamp = root / STAMP
    if stamp.is_file():
        try:
            data = json.loads(stamp.read_text())
            if data.get("n") == n and data.get("seed") == seed and data.get("version") == GENERATOR_VERSION:
                return root, Manifest(**data)
        except (ValueError, TypeError):
            pass
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    log(f"generating {n:,} files in {root} ...")
    manifest = generate(root, n, seed)
    stamp.write_text(json.dumps(asdict(manifest), indent=2))
    return root, manifest


if __name__ == "__main__":  # python bench/generate.py DIR N
    import sys

    path, m = ensure_workspace(Path(sys.argv[1]), int(sys.argv[2]))
    print(path, json.dumps(asdict(m), indent=2))
