"""SpecDSL 1.0 -> TypeScript types and a typed ``fetch`` client, with no LLM (issue 15,
"Generate TypeScript types and a typed client").

``to_typescript(spec)`` returns one module's text: an ``export interface`` per model, an
``export interface`` per request body and query, an ``ApiError`` class, and
``createClient(baseUrl, init?)`` returning one async function per endpoint (named as the
OpenAPI ``operationId``: ``export_openapi.plan``). Each function calls ``fetch`` itself
with the endpoint's literal path, so specward's own phantom-API check sees every call the
client makes. The output needs the DOM (or any) ``fetch`` types and ES2017+; it compiles
under ``tsc --strict`` (and ``noUnusedLocals``, ``noUnusedParameters``,
``exactOptionalPropertyTypes``, ``noUncheckedIndexedAccess``). Pure: data in, text out.
"""

from __future__ import annotations

import json
import re

from ..contracts.dsl import SpecDSL
from .export_openapi import IDENT, FieldPlan, Operation, Plan, TypeRef, pascal, plan

# names the generated code uses itself, and TypeScript's own type names: a model of one of
# these names is emitted as NameModel
_TAKEN = {
    "Promise", "RequestInit", "Response", "Headers", "Error", "URLSearchParams", "Object", "String", "Number",
    "Boolean", "Array", "JSON", "Record", "ApiError", "Client", "createClient", "Partial", "ReturnType",
    "string", "number", "boolean", "object", "unknown", "any", "never", "void", "null", "undefined", "symbol",
    "bigint", "type", "interface", "fetch", "encodeURIComponent",
}
_UNION_LIKE = ("union", "enum")


class _Names:
    """The TypeScript name of every model and generated type, unique in the module."""

    def __init__(self, p: Plan) -> None:
        self.used: set[str] = set(_TAKEN)
        self.models: dict[str, str] = {}
        for m in p.models:
            if m.name not in self.models:
                self.models[m.name] = self.fresh(pascal(m.name) or "Model", suffix="Model")

    def fresh(self, base: str, suffix: str = "") -> str:
        if not IDENT.match(base):
            base = "_" + base
        name = base
        if name in self.used and suffix:
            name = base + suffix
        n = 2
        while name in self.used:
            name, n = f"{base}{suffix}{n}", n + 1
        self.used.add(name)
        return name


def ts_type(t: TypeRef, names: dict[str, str]) -> str:
    if t.kind in ("string", "boolean", "null"):
        return t.kind
    if t.kind in ("integer", "number"):
        return "number"
    if t.kind == "model":
        return names.get(t.name, "unknown")
    if t.kind == "array":
        inner = ts_type(t.items or TypeRef("any"), names)
        if (t.items and t.items.kind in _UNION_LIKE and " | " in inner):
            inner = f"({inner})"
        return f"{inner}[]"
    if t.kind == "map":
        return f"{{ [key: string]: {ts_type(t.items or TypeRef('any'), names)} }}"
    if t.kind == "object":
        return "{ [key: string]: unknown }"
    if t.kind == "enum":
        return " | ".join(json.dumps(v, ensure_ascii=False) for v in t.values) or "never"
    if t.kind == "union":
        return " | ".join(ts_type(o, names) for o in t.options)
    return "unknown"


def _key(name: str) -> str:
    return name if IDENT.match(name) else json.dumps(name, ensure_ascii=False)


def _doc(lines: list[str], indent: str) -> list[str]:
    lines = [ln.replace("*/", "*\\/") for ln in lines if ln]
    if not lines:
        return []
    if len(lines) == 1:
        return [f"{indent}/** {lines[0]} */"]
    return [f"{indent}/**", *(f"{indent} * {ln}" for ln in lines), f"{indent} */"]


def _interface(name: str, fields: tuple[FieldPlan, ...], names: dict[str, str], description: str = "") -> list[str]:
    out = _doc([description], "")
    if not fields:
        return out + [f"export interface {name} {{}}"]
    out.append(f"export interface {name} {{")
    for f in fields:
        out += _doc([f.description], "  ")
        out.append(f"  {_key(f.name)}{'' if f.required else '?'}: {ts_type(f.type, names)};")
    out.append("}")
    return out


_ERROR = '''\
/** A response whose status is not 2xx: `status`, and the body (parsed JSON when it is JSON, else text). */
export class ApiError extends Error {
  readonly status: number;
  readonly body: unknown;
  constructor(status: number, body: unknown, message: string) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.body = body;
  }
}
'''

_QUERY = '''\
function queryString(query: object | undefined): string {
  if (query === undefined) return "";
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) params.append(key, String(item));
  }
  const text = params.toString();
  return text ? "?" + text : "";
}
'''

_READ = '''\
async function read<T>(res: Response): Promise<T> {
  const text = await res.text();
  let body: unknown = undefined;
  if (text) {
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      body = text;
    }
  }
  if (!res.ok) throw new ApiError(res.status, body, `${res.status} ${res.statusText}`.trim());
  return body as T;
}
'''


def _signature(op: Operation, names: dict[str, str], body_name: str | None, query_name: str | None) -> str:
    args = [f"{_arg(f.name)}: {ts_type(f.type, names)}" for f in op.path_params]
    if body_name is not None:
        args.append(f"body: {body_name}")
    if query_name is not None:
        optional = not any(f.required for f in op.query or ())
        args.append(f"query{'?' if optional else ''}: {query_name}")
    args.append("options?: RequestInit")
    return ", ".join(args)


def _arg(name: str) -> str:
    ident = re.sub(r"[^\w$]", "_", name)
    if not IDENT.match(ident):
        ident = "_" + ident
    return ident + "_" if ident in _RESERVED_ARGS else ident


_RESERVED_ARGS = {"body", "query", "options", "base", "init", "res", "headers", "class", "default", "delete",
                  "new", "function", "var", "let", "const", "in", "for", "if", "do", "this", "void", "with",
                  "enum", "export", "import", "return", "switch", "case", "typeof", "null", "true", "false",
                  "yield", "await", "super", "try", "catch", "finally", "throw", "while", "break", "continue",
                  "extends", "instanceof", "debugger", "package", "private", "protected", "public",
                  "interface", "static", "implements"}


def _url(op: Operation) -> str:
    by_name = {f.name: _arg(f.name) for f in op.path_params}
    text = re.sub(r"[`\\$]", lambda m: "\\" + m.group(0), op.path)

    def param(m: re.Match) -> str:
        return f"${{encodeURIComponent(String({by_name.get(m.group(1), '_')}))}}"

    path = re.sub(r"\{([^{}/]+)\}", param, text)
    return "`${base}" + path + ("${queryString(query)}`" if op.query is not None else "`")


def _function(op: Operation, names: dict[str, str], body_name: str | None, query_name: str | None) -> list[str]:
    ep = op.endpoint
    returns = "void" if op.response is None else ts_type(op.response, names)
    doc = [f"{op.method} {ep.path} ({ep.id}): {ep.description}"]
    for status, errors in op.errors:
        for code, description in errors:
            doc.append(f"@throws ApiError {status} {code}: {description}")
    out = _doc(doc, "    ")
    out.append(f"    async {op.name}({_signature(op, names, body_name, query_name)}): Promise<{returns}> {{")
    headers = "headers(options, true)" if body_name is not None else "headers(options, false)"
    init = f'{{ ...init, ...options, method: "{op.method}", headers: {headers}'
    if body_name is not None:
        init += ", body: JSON.stringify(body)"
    init += " }"
    out.append(f"      const res = await fetch({_url(op)}, {init});")
    out.append(f"      return read<{returns}>(res);")
    out.append("    },")
    return out


def to_typescript(spec: SpecDSL, the_plan: Plan | None = None) -> str:
    """The TypeScript module of a SpecDSL document (types and ``createClient``)."""
    p = the_plan or plan(spec)
    n = _Names(p)
    models = n.models
    out = [
        f"// Generated by specward from the SpecDSL contract `{spec.feature.id}` ({spec.feature.title}).",
        "// Do not edit: regenerate with `specward export client CONTRACT --lang ts`.",
        "",
    ]
    seen: set[str] = set()
    for m in p.models:
        if m.name in seen:
            continue
        seen.add(m.name)
        out += _interface(models[m.name], m.fields, models, m.description)
        out.append("")
    shapes: dict[str, tuple[str | None, str | None]] = {}
    for op in p.operations:
        base = op.name[:1].upper() + op.name[1:]
        body_name = n.fresh(base + "Body") if op.body is not None else None
        query_name = n.fresh(base + "Query") if op.query is not None else None
        if body_name is not None:
            out += _interface(body_name, op.body or (), models, f"The request body of {op.method} {op.endpoint.path}.")
            out.append("")
        if query_name is not None:
            out += _interface(query_name, op.query or (), models, f"The query of {op.method} {op.endpoint.path}.")
            out.append("")
        shapes[op.name] = (body_name, query_name)
    out.append(_ERROR)
    if any(op.query is not None for op in p.operations):
        out.append(_QUERY)
    if p.operations:
        out.append(_READ)
    out += [
        "/**",
        " * The API's client: one function per endpoint. `baseUrl` is prepended to every path",
        " * (`\"\"` for the page's own origin); `init` applies to every request and `options` to one.",
        " */",
        "export function createClient(baseUrl: string, init: RequestInit = {}) {",
    ]
    if not p.operations:
        out += ["  void baseUrl;", "  void init;", "  return {};", "}", "", "export type Client = ReturnType<typeof createClient>;", ""]
        return "\n".join(out)
    out += [
        '  const base = baseUrl.replace(/\\/+$/, "");',
        "  function headers(options: RequestInit | undefined, json: boolean): Headers {",
        "    const merged = new Headers(init.headers);",
        "    new Headers(options?.headers).forEach((value, key) => merged.set(key, value));",
        '    if (json) merged.set("Content-Type", "application/json");',
        "    return merged;",
        "  }",
        "  return {",
    ]
    for op in p.operations:
        out += _function(op, models, *shapes[op.name])
    out += ["  };", "}", "", "export type Client = ReturnType<typeof createClient>;", ""]
    return "\n".join(out)
