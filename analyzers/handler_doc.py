"""A route handler's signature and documentation, for the card a call shows when the
backend's routes are its contract (``docs/routes.md``): ``def read_user(user_id: int) ->
User`` and its docstring (Python), ``async findOne(@Param('id') id: string)`` or ``export
async function GET(request: Request)`` and the JSDoc comment before it (ECMAScript).

Pure: a file's text and the handler's byte offset in, text out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .languages import language_of, parse

_PY_FUNCTIONS = ("function_definition",)
_JS_FUNCTIONS = ("function_declaration", "method_definition", "arrow_function", "function_expression",
                 "function", "generator_function_declaration")
MAX_DOC = 600  # characters of documentation shown


@dataclass(frozen=True)
class HandlerDoc:
    signature: str  # the declaration up to its body, whitespace collapsed
    doc: str | None  # the docstring or JSDoc text, trimmed


def handler_doc(path: str, text: str, offset: int) -> HandlerDoc | None:
    """The function at ``offset`` (its name, or anywhere in it) of the file ``path``; None
    when there is none or the file is not Python or ECMAScript."""
    lang = language_of(path)
    if lang not in ("python", "typescript", "tsx", "javascript"):
        return None
    src = text.encode("utf-8", "surrogatepass")
    tree = parse(lang, src)
    node = tree.root_node.descendant_for_byte_range(offset, offset)
    kinds = _PY_FUNCTIONS if lang == "python" else _JS_FUNCTIONS
    while node is not None and node.type not in kinds:
        node = node.parent
    if node is None:
        return None
    body = node.child_by_field_name("body")
    end = body.start_byte if body is not None else node.end_byte
    start = node.start_byte  # (a Python function's decorators are the route, already shown)
    signature = " ".join(src[start:end].decode("utf-8", "replace").split())
    if lang == "python":
        signature = signature.removesuffix(":").rstrip()
    elif node.type == "arrow_function" and not signature.endswith("=>"):
        signature += " =>"
    return HandlerDoc(signature, _python_doc(body, src) if lang == "python" else _js_doc(node, src))


def _python_doc(body, src: bytes) -> str | None:
    if body is None or not body.named_children:
        return None
    first = body.named_children[0]
    if first.type != "expression_statement" or not first.named_children or first.named_children[0].type != "string":
        return None
    raw = src[first.named_children[0].start_byte:first.named_children[0].end_byte].decode("utf-8", "replace")
    m = re.match(r'(?s)^[rRuUbB]*("""|\'\'\'|"|\')(.*)\1$', raw)
    return _trim(m.group(2) if m else raw)


def _js_doc(node, src: bytes) -> str | None:
    """The ``/** ... */`` comment right before the function (or the statement that holds it:
    ``export``, a variable declaration, a decorated method)."""
    at = node
    while at.parent is not None and at.parent.type in ("export_statement", "variable_declarator",
                                                        "lexical_declaration", "variable_declaration"):
        at = at.parent
    prev = at.prev_named_sibling
    while prev is not None and prev.type == "decorator":
        prev = prev.prev_named_sibling
    if prev is None or prev.type != "comment":
        return None
    raw = src[prev.start_byte:prev.end_byte].decode("utf-8", "replace")
    if not raw.startswith("/**"):
        return None
    lines = [re.sub(r"^\s*\*?\s?", "", ln) for ln in raw[3:-2].splitlines()]
    return _trim("\n".join(lines))


def _trim(doc: str) -> str | None:
    lines = doc.strip("\n").splitlines()
    indents = [len(ln) - len(ln.lstrip()) for ln in lines[1:] if ln.strip()]
    cut = min(indents) if indents else 0
    out = "\n".join([lines[0].strip(), *(ln[cut:] for ln in lines[1:])]).strip() if lines else ""
    if len(out) > MAX_DOC:
        out = out[:MAX_DOC].rstrip() + " …"
    return out or None


def route_card(method: str, path: str, handler: str, where: str, doc: HandlerDoc | None,
               framework: str | None = None) -> str:
    """Markdown: the route, its handler's signature in a code block and its documentation."""
    head = f"**{method} {path}** — handled by `{handler}`" + (f" ({framework})" if framework else "")
    parts = [head]
    if doc is not None:
        fence = "python" if where.split(":")[0].endswith(".py") else "typescript"
        parts.append(f"```{fence}\n{doc.signature}\n```")
        if doc.doc:
            parts.append(doc.doc)
    parts.append(f"Route of the backend: `{where}`")
    return "\n\n".join(parts)
