"""From a resolved URL expression to a path template. Pure.

The linker (``analyzers/http.py``) resolves what it can of a call's URL expression
(constants, bases, wrappers, URL builders) and hands the parts here: ``expand`` turns the
conditional pieces (``Alt``) into candidate expressions, ``url_of`` one candidate into a
template (scheme, host, query and fragment dropped, dynamic parts as ``{name}``), with the
reason when it cannot be one.

Rules (see docs/http-calls.md):
- a leading environment value, a reference named like a base (``apiUrl``, ``BASE``) that is
  not a visible constant, or a getter of one (``config.get('apiUrl')``) is an unknown base:
  dropped, and the call is marked ``base_unknown``;
- a dynamic tail glued to the last segment without a slash and named like a query or a
  suffix (``'/reports' + query``, ``${path}${getQueryString(params)}``) is dropped;
- ``{name}`` in a literal is a path parameter (OpenAPI-style templates written in code, as
  openapi-fetch and generated clients do);
- an absolute URL to a host other than localhost is external unless the caller knows the
  host is the API's.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import product
from typing import Iterable, NamedTuple

from .model import Alt, Arg, Call, Env, Lit, Param, Part, Ref, Unknown, UrlExpr

BASEISH = re.compile(r"base|url|uri|host|origin|api|endpoint|server|domain|root|prefix|backend|address", re.I)
SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):(//)?")
MAX_CANDIDATES = 8
_QUERYISH = ("query", "qs", "search", "params", "filter", "option", "opts", "suffix", "ext", "format",
             "stringify", "urlsearchparams")
_PLACEHOLDER = re.compile(r"\{([A-Za-z_$][\w$-]*)\}")
_DUP_SLASH = re.compile(r"/{2,}")
_NOT_NAME = re.compile(r"[^A-Za-z0-9_]")


class Url(NamedTuple):
    kind: str  # "call" or "skip" (not an HTTP API call: ws:, mailto:, data:, ...)
    template: str | None
    relative: str | None  # the part after a known base
    host: str | None
    reason: str | None  # why there is no template
    base_unknown: bool
    external: bool  # an absolute URL to a host other than localhost


def expand(url: UrlExpr, base_len: int) -> list[tuple[UrlExpr, int]]:
    """Every combination of the conditional pieces' options (at most ``MAX_CANDIDATES`` + 1:
    more means too many to check), with the length of each one's base."""
    if not any(type(p) is Alt for p in url):
        return [(url, base_len)]
    bases = _options(url[:base_len])
    rests = _options(url[base_len:])
    out = []
    for b, r in product(bases, rests):
        out.append((b + r, len(b)))
        if len(out) > MAX_CANDIDATES:
            break
    return out


def _options(parts: UrlExpr, depth: int = 0) -> list[UrlExpr]:
    out: list[UrlExpr] = [()]
    for p in parts:
        if type(p) is Alt and depth < 4:
            choices = [o for opt in p.options for o in _options(opt, depth + 1)]  # type: ignore[union-attr]
            out = [a + c for a in out for c in choices][: MAX_CANDIDATES + 1]
        else:
            out = [a + (p,) for a in out]
    return out


def _calls_resolved(seq: list[Part]) -> list[Part]:
    """Calls nobody could follow: a base getter at the start (``config.get('apiUrl')``) is an
    unknown base; another call at the start computes the URL; elsewhere, one dynamic value."""
    out: list[Part] = []
    for i, p in enumerate(seq):
        if type(p) is Call:
            if i == 0:
                text = p.callee + " " + " ".join(  # type: ignore[union-attr]
                    x.text for a in p.args if hasattr(a, "expr") for x in a.expr if type(x) is Lit)  # type: ignore[union-attr]
                if BASEISH.search(text) and len(seq) > 1:
                    out.append(Env(f"{p.callee}()"))  # type: ignore[union-attr]
                else:
                    out.append(Unknown(f"computed by {p.callee}()"))  # type: ignore[union-attr]
            else:
                out.append(Param(p.name))  # type: ignore[union-attr]
        elif type(p) is Alt:
            out.append(Param("param"))
        else:
            out.append(p)
    return out


def _queryish(p: Part) -> bool:
    name = getattr(p, "name", None) or getattr(p, "why", "")
    name = name.lower()
    return name != "param" and any(q in name for q in _QUERYISH)


def _strip_suffix(seq: list[Part], keep: int) -> list[Part]:
    """Drop dynamic parts glued to the end of the last segment without a slash when they
    are named like a query string or a suffix (never the first ``keep`` parts)."""
    while len(seq) > max(keep, 1) and type(seq[-1]) is not Lit and _queryish(seq[-1]):
        prev = seq[-2]
        if type(prev) is Lit and prev.text.endswith("/"):  # type: ignore[union-attr]
            break  # a segment of its own: `/items/${q}` is a path parameter
        seq = seq[:-1]
    return seq


@lru_cache(maxsize=1 << 16)
def url_of(url: UrlExpr, base_len: int) -> Url:
    """The template of one resolved URL expression without conditional pieces. A pure
    function of its arguments, memoized: the same URL expressions come back across a
    workspace."""

    def unresolved(reason: str) -> Url:
        return Url("call", None, None, None, reason, False, False)

    seq = _calls_resolved(list(url))
    if not seq:
        return unresolved("the URL is empty")
    first = seq[0]
    dropped_base = False
    if type(first) is Env or (type(first) is Ref and BASEISH.search(first.name)):  # type: ignore[union-attr]
        # a base that cannot be seen statically (environment, configuration): dropped
        seq = seq[1:]
        base_len = max(0, base_len - 1)
        dropped_base = True
        if not seq:
            return unresolved(f"the URL is only the base {_describe(first)}")
    elif type(first) is Unknown:
        return unresolved(first.why)  # type: ignore[union-attr]
    elif type(first) in (Ref, Param):
        return unresolved(f"the URL starts with {_describe(first)}, which specward cannot resolve")
    elif type(first) is Arg:
        return unresolved("the URL is a parameter of the enclosing function")
    seq = _strip_suffix(seq, base_len)
    if base_len or dropped_base:
        nxt = seq[base_len] if base_len < len(seq) else None
        if nxt is not None and type(nxt) is not Lit:
            # base + a whole path only known at run time: `${API}${endpoint}`
            return unresolved(f"the path after the base is {_describe(nxt)}, which specward cannot resolve")
    full = render(seq)
    base_text = render(seq[:base_len])
    host = None
    external = False
    m = SCHEME.match(full)
    if m:
        if m.group(1).lower() not in ("http", "https"):
            return Url("skip", None, None, None, None, False, False)
        after = full[m.end():]
        slash = after.find("/")
        host = after if slash < 0 else after[:slash]
        cut = m.end() + (len(after) if slash < 0 else slash)
        full = full[cut:] or "/"
        base_text = base_text[cut:] if len(base_text) >= cut else ""
        external = not base_len and not dropped_base and not local_host(host)
    elif full.startswith("//"):
        return unresolved("protocol-relative URL to another host")
    for sep in ("?", "#"):
        cut = full.find(sep)
        if cut >= 0:
            full = full[:cut]
    if not full.startswith("/"):
        if not dropped_base:
            return unresolved(f"relative URL {full!r} depends on the page's address")
        full = "/" + full
    template = normalize(full)
    relative = None
    base_path = normalize(base_text.split("?")[0]) if base_text else ""
    if base_path not in ("", "/") and template.startswith(base_path):
        relative = normalize("/" + template[len(base_path):].lstrip("/"))
    elif dropped_base or base_len:
        relative = template
    return Url("call", template, relative, host, None, dropped_base, external)


def render(parts: Iterable[Part]) -> str:
    out = []
    for part in parts:
        if type(part) is Lit:
            text = part.text  # type: ignore[union-attr]
            if "{" in text or "}" in text:
                text = _PLACEHOLDER.sub(lambda m: "\0" + m.group(1) + "\1", text)
                text = text.replace("{", "%7B").replace("}", "%7D").replace("\0", "{").replace("\1", "}")
            out.append(text)
        else:
            out.append("{" + _param_name(part) + "}")
    return "".join(out)


def local_host(host: str) -> bool:
    h = host.split("@")[-1].split(":")[0].lower()
    return h in ("localhost", "127.0.0.1", "0.0.0.0", "[::1]") or h.startswith("{")


def host_of(text: str) -> str | None:
    """The host of an absolute http(s) URL literal, else None."""
    m = SCHEME.match(text)
    if not m or m.group(1).lower() not in ("http", "https"):
        return None
    after = text[m.end():]
    return after.split("/", 1)[0].split("?", 1)[0] or None


def _param_name(part: Part) -> str:
    if type(part) is Param:
        name = part.name  # type: ignore[union-attr]
    elif type(part) in (Ref, Env):
        name = part.name.rpartition(".")[2]  # type: ignore[union-attr]
    else:
        name = "param"
    if not (name.isascii() and name.isidentifier()):
        name = _NOT_NAME.sub("", name)
    return name or "param"


def _describe(part: Part) -> str:
    if type(part) is Env:
        return f"environment value {part.name}"  # type: ignore[union-attr]
    if type(part) is Ref:
        return f"`{part.name}`"  # type: ignore[union-attr]
    if type(part) is Param:
        return f"a dynamic value ({part.name})"  # type: ignore[union-attr]
    if type(part) is Unknown:
        return f"a value specward cannot see ({part.why})"  # type: ignore[union-attr]
    return "a parameter of the enclosing function"


def normalize(path: str) -> str:
    """Collapse duplicate slashes, strip a trailing slash, decode nothing."""
    if "//" in path:
        path = _DUP_SLASH.sub("/", path)
    if len(path) > 1 and path.endswith("/"):
        path = path.rstrip("/") or "/"
    return path
