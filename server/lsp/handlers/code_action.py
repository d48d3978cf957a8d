"""``textDocument/codeAction`` quick fixes: on ``phantom-api``, replace the path with each
of the nearest declared paths, or add the endpoint to the contract (a SpecDSL entry or an
OpenAPI path item, in the file's own indentation); on ``method-mismatch``, change the
call's method to a declared one (verb methods, ``method:`` options, ``request("GET", ...)``);
on the findings of the registered analyses (``phantom-import``, ``missing-export``,
``undeclared-dependency``, ``repeated-hallucination``), the edits the analysis proposed
(``Finding.data["fixes"]``). A fix of a phantom import or a missing export also records
itself in the fix-history ledger: it is the ``specward.applyFix`` command, which applies
the edit and then appends the record. On a ``TODO``/``FIXME`` line and on a spec, the LLM
stages' commands (``stage_command.stage_actions``). Every change is a ``WorkspaceEdit`` the user sees and can undo."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import converters
from lsprotocol import types as lsp

from specward.analyzers import ide
from specward.analyzers.contracts.edit import add_endpoint
from specward.analyzers.fields import FIELD_CODES
from specward.analyzers.manifest_edit import add_dependency, add_python_dependency, pyproject_dependency_place
from specward.analyzers.matching import full_path
from specward.analyzers.model import Call, Finding, Span
from specward.server.engine.packages import installed_distribution

from .. import convert

if TYPE_CHECKING:
    from specward.analyzers.lines import LineIndex
    from ..server import SpecwardServer
    from ..session import Session


def _actions(session: Session, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    uri = params.text_document.uri
    rel = session.rel_of_uri(uri)
    if rel is None:
        return []
    lines, version = session.text_of(rel)
    statuses = session.index.statuses.get(rel, ())
    out: list[lsp.CodeAction] = []
    for diag in params.context.diagnostics:
        if diag.source == "specward" and diag.code in CONTEXT_CODES:
            out.extend(_context_actions(session, rel, lines, diag))
            continue
        if diag.source == "specward" and diag.code in ANALYSIS_FIXES:
            out.extend(_analysis_fixes(session, rel, uri, version, lines, diag))
            continue
        if diag.source == "specward" and diag.code == "unknown-suppression":
            out.extend(_suppression_fixes(session, rel, uri, version, lines, diag))
            continue
        if diag.source == "specward" and diag.code in FIELD_CODES:
            out.extend(_field_fixes(session, rel, uri, version, lines, diag, statuses))
            continue
        if diag.source == "specward" and diag.code in ("undeclared-route", "unimplemented-endpoint"):
            out.extend(_drift_actions(session, rel, lines, diag))
            continue
        if diag.source != "specward" or diag.code not in ("phantom-api", "method-mismatch"):
            continue
        at = convert.offset_of(lines, diag.range.start, session.encoding)
        st = ide.call_at(statuses, at)
        if st is None:
            continue
        call = st.call
        source = lines.data[call.span.start:call.span.end].decode("utf-8", "replace")
        if diag.code == "phantom-api" and st.status == "phantom":
            for ep in session.index.table.nearest(call):
                new = ide.rewrite_path(source, ide.relative_to_call(ep, call))
                if new is None or new == source:
                    continue
                out.append(_fix(f"Replace with {ep.method} {full_path(ep)}", uri, version, lines, call.span, new,
                                diag, session.encoding, preferred=not out))
            added = _add_to_contract(session, call, diag)
            if added is not None:
                out.append(added)
            from .slice_command import implement_action  # the slice stage: contract edit + slice

            implemented = implement_action(session, rel, call, diag)
            if implemented is not None:
                out.append(implemented)
        elif diag.code == "method-mismatch" and st.status == "method-mismatch":
            declared = sorted({ep.method for ep in session.index.table.candidates(call)})
            text = lines.data[call.call_span.start:call.call_span.end].decode("utf-8", "replace")
            for method in declared:
                edit = _method_edit(text, call.method, method)
                if edit is None:
                    continue
                (s, e), new = edit
                base = call.call_span.start
                span = Span(base + len(text[:s].encode()), base + len(text[:e].encode()))
                out.append(_fix(f"Change the method to {method}", uri, version, lines, span, new, diag,
                                session.encoding, preferred=len(declared) == 1))
    only = params.context.only
    if rel.lower().endswith(".dsl.json") and rel in session.index.contracts \
            and (not only or any(lsp.CodeActionKind.Source.value.startswith(k) for k in only)):
        out.extend(_export_actions(rel))
    from .stage_command import stage_actions  # the LLM stages: a TODO line, a spec

    out.extend(stage_actions(session, rel, lines, params))
    from .stage_more import more_actions  # discuss a spec, update after a contract edit

    out.extend(more_actions(session, rel, lines, params))
    from .slice_command import slice_actions  # a slice of a contract's endpoint, model, or all of it

    out.extend(slice_actions(session, rel, lines, params))
    return out


def _export_actions(rel: str) -> list[lsp.CodeAction]:
    """On a SpecDSL contract: export it as OpenAPI 3.1, or as TypeScript types and a typed
    client (``export_command.py``; applied only once the user confirms)."""
    from .export_command import EXPORT_COMMAND, KINDS, target_of

    return [lsp.CodeAction(title=f"{title} ({target_of(rel, kind)})", kind=lsp.CodeActionKind.Source,
                           command=lsp.Command(title=title, command=EXPORT_COMMAND,
                                               arguments=[{"contract": rel, "kind": kind}]))
            for kind, (title, _) in KINDS.items()]


CONTEXT_CODES = ("stale-context", "low-confidence-context", "incomplete-context")


def _context_actions(session: Session, rel: str, lines: LineIndex, diag: lsp.Diagnostic) -> list[lsp.CodeAction]:
    """Re-capture the manifest a context finding is about (with the include an
    ``incomplete-context`` finding names)."""
    from ...engine.contexts import is_manifest
    from .execute_command import RECAPTURE_COMMAND

    at = convert.offset_of(lines, diag.range.start, session.encoding)
    for finding in session.index.context.findings.get(rel, ()):
        if finding.code != diag.code or not finding.span.start <= at <= max(finding.span.end, finding.span.start):
            continue
        data = dict(finding.data)
        manifest = rel if is_manifest(rel) else str(data.get("manifest", ""))
        if not is_manifest(manifest):
            return []
        remedy = str(data.get("remedy", ""))
        more = [remedy.split(" ", 1)[1]] if remedy.startswith("--include ") else []
        title = f"Re-capture the context with {more[0]}" if more else "Re-capture the context manifest"
        return [lsp.CodeAction(title=title, kind=lsp.CodeActionKind.QuickFix, diagnostics=[diag], is_preferred=True,
                               command=lsp.Command(title=title, command=RECAPTURE_COMMAND,
                                                   arguments=[{"manifest": manifest, "include": more}]))]
    return []


ANALYSIS_FIXES = ("phantom-import", "missing-export", "undeclared-dependency", "repeated-hallucination")
APPLY_COMMAND = "specward.applyFix"  # handlers/execute_command.py


def _declare_fix(session, rel: str, data: dict) -> tuple:
    """Add an installed package to the nearest manifest, with the installed version's range
    (never an invented one); nothing when it is not installed here. npm: the nearest
    package.json; Python: see :func:`_declare_python`."""
    package = data.get("package")
    if not isinstance(package, str):
        return ()
    index = session.index
    folders = []
    folder = rel.rpartition("/")[0]
    while True:
        folders.append(folder)
        if not folder:
            break
        folder = folder.rpartition("/")[0]
    if rel.endswith((".py", ".pyi")):
        return _declare_python(session, folders, data.get("distribution"))
    version = None
    for f in folders:  # the package as Node resolves it: the nearest node_modules that has it
        meta = index.ws.read(f"{f}/node_modules/{package}/package.json" if f else f"node_modules/{package}/package.json")
        if meta.text is not None:
            try:
                got = json.loads(meta.text).get("version")
            except (ValueError, AttributeError):
                got = None
            version = got if isinstance(got, str) else None
            break
    if version is None:
        return ()
    for f in folders:
        manifest = f"{f}/package.json" if f else "package.json"
        mlines, _ = session.text_of(manifest) if index.ws.read(manifest).text is not None else (None, None)
        if mlines is None:
            continue
        edit = add_dependency(mlines.data.decode("utf-8", "replace"), package, version)
        if edit is None:
            return ()
        span, new_text = edit
        return ((f"Add {package}@^{version} to {manifest}", manifest, span.start, span.end, new_text),)
    return ()


def _declare_python(session, folders: list[str], distribution) -> tuple:
    """The Python side: the version of ``distribution`` installed in the project's
    environment (its ``*.dist-info/METADATA``), added to the nearest folder's manifest that
    holds Python manifests: its ``pyproject.toml`` when that declares dependencies
    (``[project]`` ``dependencies`` or Poetry's table), else its ``requirements.txt``. The
    manifest's text is the editor's when it is open."""
    if not isinstance(distribution, str) or not distribution:
        return ()
    index = session.index
    env = getattr(index.analysis_input, "environment", None)
    manifests = dict(getattr(env, "manifests", None) or {})
    python_folders = sorted({m.folder for m in manifests.values() if m.kind == "python"},
                            key=lambda f: (f.count("/"), f))
    python = getattr(index.settings, "python", None)
    if python and not Path(python).is_absolute():
        python = str(index.root / python)
    installed = installed_distribution(index.root, python, python_folders, distribution)
    if installed is None:
        return ()
    name, version = installed
    for f in folders:
        here = [p for p, m in manifests.items() if m.kind == "python" and m.folder == f]
        if not here:
            continue
        for base in ("pyproject.toml", "requirements.txt"):
            manifest = f"{f}/{base}" if f else base
            if index.ws.read(manifest).text is None:
                continue
            mlines, _ = session.text_of(manifest)
            text = mlines.data.decode("utf-8", "replace")
            if base == "pyproject.toml" and pyproject_dependency_place(text) is None:
                continue  # a pyproject that declares no dependencies: the requirements file then
            edit = add_python_dependency(manifest, text, name, version)
            if edit is None:
                return ()
            span, new_text, label = edit
            return ((f"Add {label} to {manifest}", manifest, span.start, span.end, new_text),)
        return ()  # the nearest project's manifests (setup.cfg, ...) are not edited
    return ()


def _record(finding: Finding, data: dict, new_text: str, rel: str, line: int) -> dict | None:
    """The fix-history ledger record of applying this fix (docs/ledger.md), or None when it
    is not one the ledger keeps: fixes of a phantom import (the specifier rewritten), of a
    missing export (the name renamed) and the replay of a recorded fix."""
    module = data.get("module")
    if module is None:
        return None
    names = list(data.get("names", ())) or ([data["name"]] if "name" in data else [])
    if finding.code == "phantom-import":
        reason, kind, target = "file_not_found", "rewrite_import", new_text
    elif finding.code == "missing-export" and "name" in data:
        reason, kind, target = "missing_export", "rename", f"{data['name']}={new_text.split(' as ')[0]}"
    elif finding.code == "repeated-hallucination" and data.get("fix_kind"):
        reason, kind, target = str(data.get("reason") or "repeated"), str(data["fix_kind"]), str(data.get("fix_target", ""))
    else:
        return None
    return {"source": module, "names": names, "reason": reason, "file": rel, "line": line,
            "fix_kind": kind, "fix_target": target}


def _analysis_fixes(session: Session, rel: str, uri: str, version: int | None, lines: LineIndex,
                    diag: lsp.Diagnostic) -> list[lsp.CodeAction]:
    at = convert.offset_of(lines, diag.range.start, session.encoding)
    out: list[lsp.CodeAction] = []
    for finding in session.index.analysis_findings.get(rel, ()):
        if finding.code != diag.code or not finding.span.start <= at <= max(finding.span.end, finding.span.start):
            continue
        data = dict(finding.data)
        fixes = tuple(data.get("fixes", ()))
        if finding.code == "undeclared-dependency" and not fixes:
            fixes = _declare_fix(session, rel, data)
        for i, (title, file, start, end, new_text) in enumerate(fixes):
            if file == rel:
                action = _fix(title, uri, version, lines, Span(start, end), new_text, diag, session.encoding,
                              preferred=i == 0)
            else:
                flines, fversion = session.text_of(file)
                action = _fix(title, session.uri_of(file), fversion, flines, Span(start, end), new_text, diag,
                              session.encoding)
            record = _record(finding, data, new_text, rel, lines.line_of(finding.span.start) + 1)
            if record is not None:
                # a fix the ledger remembers is a command: the server applies the edit
                # (workspace/applyEdit) and records it once the editor applied it. (An
                # action with both an edit and a command is read as a bare Command by
                # lsprotocol-based clients, which would drop the edit.)
                edit = converters.get_converter().unstructure(action.edit)
                action.command = lsp.Command(title=title, command=APPLY_COMMAND,
                                             arguments=[{"edit": edit, "record": record}])
                action.edit = None
            out.append(action)
        break
    return out


def _suppression_fixes(session: Session, rel: str, uri: str, version: int | None, lines: LineIndex,
                       diag: lsp.Diagnostic) -> list[lsp.CodeAction]:
    """A code misspelt in a ``specward: ignore[...]`` comment: the nearest known code."""
    at = convert.offset_of(lines, diag.range.start, session.encoding)
    for finding in session.index.findings(rel):
        if finding.code == diag.code and finding.span.start <= at <= finding.span.end:
            return [_fix(title, uri, version, lines, Span(s, e), new, diag, session.encoding, preferred=i == 0)
                    for i, (title, file, s, e, new) in enumerate(dict(finding.data).get("fixes", ())) if file == rel]
    return []


def _field_fixes(session: Session, rel: str, uri: str, version: int | None, lines: LineIndex,
                 diag: lsp.Diagnostic, statuses) -> list[lsp.CodeAction]:
    """The field checks' fixes: rename to the nearest declared name (``Finding.data["fixes"]``),
    add the missing required fields with a placeholder (``ide.add_fields``, on the literal's
    text)."""
    at = convert.offset_of(lines, diag.range.start, session.encoding)
    for st in statuses:
        for finding in st.field_findings:
            if finding.code != diag.code or not finding.span.start <= at <= finding.span.end:
                continue
            data = dict(finding.data)
            fixes = list(data.get("fixes", ()))
            obj = data.get("object")
            if obj is not None:  # missing-field, missing-parameter
                start, end = obj  # type: ignore[misc]
                text = lines.data[start:end].decode("utf-8", "replace")
                got = ide.add_fields(text, tuple(data.get("fields", ())), str(data.get("endpoint", "")),  # type: ignore[arg-type]
                                     python=rel.endswith((".py", ".pyi")))
                if got is not None:
                    offset, new_text = got
                    pos = start + len(text[:offset].encode("utf-8"))
                    names = ", ".join(f"`{f}`" for f in data.get("fields", ()))  # type: ignore[union-attr]
                    fixes.append((f"Add the required {names}", rel, pos, pos, new_text))
            return [_fix(title, uri, version, lines, Span(s, e), new, diag, session.encoding, preferred=i == 0)
                    for i, (title, file, s, e, new) in enumerate(fixes) if file == rel]
    return []


def _add_to_contract(session: Session, call: Call, diag: lsp.Diagnostic) -> lsp.CodeAction | None:
    index = session.index
    if not index.contracts or call.template is None or call.method == "UNKNOWN":
        return None
    near = index.table.nearest(call)
    rel = near[0].file if near else sorted(index.contracts)[0]
    contract = index.contracts[rel]
    base = next((ep.base_path for ep in contract.endpoints if ep.base_path), "")
    clines, cversion = session.text_of(rel)
    edit = add_endpoint(rel, clines.data.decode("utf-8", "replace"), call.method, call.template, base)
    if edit is None:
        return None
    span, new_text = edit
    return _fix(f"Add {call.method} {call.template} to {rel}", session.uri_of(rel), cversion, clines, span, new_text,
                diag, session.encoding)


SHOW_COMMAND = "specward.showLocation"  # execute_command.show_location: window/showDocument


def _drift_actions(session: Session, rel: str, lines: LineIndex, diag: lsp.Diagnostic) -> list[lsp.CodeAction]:
    """On ``undeclared-route``: add the route to the contract its neighbours are in (the
    edit "add to contract" makes for a phantom call). On ``unimplemented-endpoint``: go to
    the nearest routes of the backend (writing a handler is left to the generation stages)."""
    from specward.analyzers.route_contract import contract_for, nearest_routes

    index = session.index
    at = convert.offset_of(lines, diag.range.start, session.encoding)
    finding = next((x for x in index.drift_findings(rel) if x.code == diag.code and x.span.start <= at <= x.span.end),
                   None)
    if finding is None:
        return []
    data = dict(finding.data)
    method, path = str(data.get("method", "")), str(data.get("path", ""))
    if diag.code == "unimplemented-endpoint":
        out = []
        for c in nearest_routes(index.composed_routes(), method, path):
            loc = session.location(c.file, c.route.span)
            title = f"Go to the nearest route: {c.method} {c.path} ({c.file})"
            out.append(lsp.CodeAction(title=title, kind=lsp.CodeActionKind.QuickFix, diagnostics=[diag],
                                      is_preferred=not out, command=lsp.Command(title=title, command=SHOW_COMMAND,
                                                          arguments=[{"uri": loc.uri, "range": converters.get_converter()
                                                                      .unstructure(loc.range)}])))
        return out
    if method in ("", "ANY"):
        return []  # a route for every method: which one to declare is the user's choice
    target = contract_for(index.contract_table.endpoints, path)
    if target is None or target[0] not in index.contracts:
        return []
    crel, base = target
    clines, cversion = session.text_of(crel)
    edit = add_endpoint(crel, clines.data.decode("utf-8", "replace"), method, path, base)
    if edit is None:
        return []
    span, new_text = edit
    return [_fix(f"Add {method} {path} to {crel}", session.uri_of(crel), cversion, clines, span, new_text, diag,
                 session.encoding, preferred=True)]


def _method_edit(call_text: str, old: str, new: str) -> tuple[tuple[int, int], str] | None:
    """Where the call's source names its method, and the replacement."""
    verbs = {"DELETE": ("delete", "del")}.get(old, (old.lower(),))
    for verb in verbs:
        m = re.match(rf"[\w$.]*?\.?\b({verb})\b(\s*(<[^()]*>)?\s*\()", call_text)
        if m:
            replacement = new.lower() if not (verb == "del" and new == "DELETE") else "del"
            if verb == "del" and new != "DELETE":
                replacement = new.lower()
            return (m.start(1), m.end(1)), replacement
    m = re.search(rf"""(\bmethod\s*[:=]\s*)(['"`])({old})\2""", call_text, re.I)
    if m:
        value = new if m.group(3).isupper() else new.lower()
        return (m.start(3), m.end(3)), value
    m = re.match(rf"""[\w$.]*?\(\s*(['"])({old})\1""", call_text, re.I)  # requests.request("PATCH", url)
    if m:
        return (m.start(2), m.end(2)), new if m.group(2).isupper() else new.lower()
    return None


def _fix(title: str, uri: str, version: int | None, lines: LineIndex, span: Span, new_text: str,
         diag: lsp.Diagnostic, encoding: str, preferred: bool = False) -> lsp.CodeAction:
    edit = lsp.TextEdit(range=convert.range_of(lines, span, encoding), new_text=new_text)
    doc = lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
    return lsp.CodeAction(title=title, kind=lsp.CodeActionKind.QuickFix, diagnostics=[diag], is_preferred=preferred,
                          edit=lsp.WorkspaceEdit(document_changes=[lsp.TextDocumentEdit(text_document=doc, edits=[edit])]))


async def handle(ls: SpecwardServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction] | None:
    return await ls.session.request(_actions, ls.session, params) if ls.session else None
