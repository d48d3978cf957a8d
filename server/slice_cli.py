"""``specward generate slice CONTRACT [--endpoint "METHOD /path" ...] [--model NAME ...]``:
one vertical capability generated from a contract's endpoints and models (issue 15,
"Slice"; ``docs/stages.md``, "Generating a slice").

1. **The plan.** The model states what the slice produces and consumes
   (``analyzers/stages/slice_plan.py``: files with roles, names, endpoints), told where the
   project keeps routes, models, clients and tests (``layout_hints`` over the index's
   project map). The plan is checked for soundness (``plan_problems``: every consumed name
   produced upstream or in the index, every produced name unique, every selected endpoint
   produced and consumed, a test) and sent back for at most three repairs; the user is
   shown it before any code is asked for.
2. **The files.** Asked for against the plan and judged all together with specward's own
   checks (``stage_files.generate_files``: phantom calls and imports, invariants, ledger,
   and every error), the plan's promises (``verify_slice``: present, exporting what was
   promised, wired to each other, routes declared, endpoints called) and stubs
   (``stubs.find_stubs``); the problems go back grouped by file, at most three repair
   cycles.
3. **The acceptance script** ``specs/<slug>.uat.md`` (``uat.acceptance_script``), from the
   spec's acceptance criteria, cross-checked against the routes and calls generated.
4. **The proposal**: every file shown with its diff and written on approval; the run is
   logged with the findings' codes, and scored once written (``score_cli.score_run``; the
   compile dimension only with ``--build``).

Every prompt carries the shared sections (``stage_context.gather``: the contract, the
relevant invariants, the context manifest's files, the ledger's DO-NOT-REPEAT, the
feature's decisions).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from specward.analyzers.contracts import parse_contract
from specward.analyzers.contracts.common import path_shape
from specward.analyzers.matching import full_path
from specward.analyzers.stages import answers, score, slice_plan, stubs, uat

from . import stage_context
from .engine.reading import shown
from .export_cli import read_contract
from .stage_files import generate_files
from .stage_run import (EXIT_OK, FILES_ANSWER_FORMAT, JSON_ANSWER_FORMAT, Proposal, Run, Usage,
                        model_config, project_root, valid_run_id)

MAX_PLAN_REPAIRS = 3

SLICE_SYSTEM = (
    "You implement one vertical slice of a feature in an existing project: the backend handler, the data "
    "model, the frontend client call and a test, in the project's own layout and conventions. You never "
    "invent endpoints, fields, modules or packages that the contract or the project does not have, and you "
    "write complete code: no TODO, no placeholder, no empty function.")


def add_parser(kinds) -> None:
    s = kinds.add_parser("slice", help="generate one vertical slice (handler, model, client call, test) from a contract")
    s.add_argument("contract", metavar="CONTRACT", help="the contract file (SpecDSL or OpenAPI)")
    s.add_argument("--endpoint", action="append", default=[], metavar='"METHOD /path"',
                   help="an endpoint of the contract to implement (repeatable; default: all)")
    s.add_argument("--model", action="append", default=[], metavar="NAME", dest="models",
                   help="a data model of the contract to implement (repeatable; default: all)")
    s.add_argument("--slug", help="the feature's name (default: the contract's file name)")
    s.add_argument("--spec", metavar="SPEC.md", help="the spec whose acceptance criteria the script follows "
                   "(default: specs/<slug>.md when it exists)")
    s.add_argument("--build", metavar="CMD", help="your build or test command: run on the generated files in a "
                   "scratch copy before they are offered (its failures go back to the model), and for the score")
    s.add_argument("--yes", action="store_true", help="write without asking")


# ------------------------------------------------------------------------- selecting
def _parse_endpoint(text: str) -> tuple[str, str]:
    parts = text.split()
    if len(parts) != 2 or not parts[1].startswith("/"):
        raise Usage(f"--endpoint {shown(text)}: write it as \"METHOD /path\"")
    return parts[0].upper(), parts[1]


def select(contract, endpoints: list[str], models: list[str]) -> tuple[list, list]:
    """The contract's endpoints and models the slice implements (all when none is named);
    ``Usage`` naming what the contract declares when one is unknown."""
    chosen = []
    for text in endpoints:
        method, path = _parse_endpoint(text)
        shape = path_shape(_braced(path))
        hits = [ep for ep in contract.endpoints if ep.method == method
                and shape in (path_shape(ep.path), path_shape(full_path(ep)))]
        if not hits:
            declared = ", ".join(f"{ep.method} {full_path(ep)}" for ep in contract.endpoints) or "none"
            raise Usage(f"--endpoint {shown(text)}: the contract declares no such endpoint (it declares: {declared})")
        chosen.extend(ep for ep in hits if ep not in chosen)
    picked = []
    names = {m.name: m for m in contract.models}
    for name in models:
        if name not in names:
            raise Usage(f"--model {shown(name)}: the contract declares no such model "
                        f"(it declares: {', '.join(names) or 'none'})")
        picked.append(names[name])
    if not endpoints and not models:
        return list(contract.endpoints), list(contract.models)
    return chosen, picked


def _braced(path: str) -> str:
    """``/notes/:id`` written as ``/notes/{id}`` (the shape compares braces)."""
    return "/".join("{" + seg[1:] + "}" if seg.startswith(":") and len(seg) > 1 else seg for seg in path.split("/"))


def _endpoint_json(ep) -> dict:
    details = dict(ep.details)
    out = {"method": ep.method, "path": full_path(ep)}
    if ep.id:
        out["id"] = ep.id
    if ep.summary:
        out["summary"] = ep.summary
    for key in ("description", "auth", "request", "successStatus", "responses", "errors"):
        if key in details:
            out[key] = details[key]
    return out


def _model_json(m) -> dict:
    return {"name": m.name, "fields": [{"name": name, "type": kind} for name, kind in m.fields]}


# ------------------------------------------------------------------------- the prompts
def plan_messages(contract_rel: str, endpoints: list, models: list, hints: str, context: str) -> list[dict]:
    selected = json.dumps({"endpoints": [_endpoint_json(ep) for ep in endpoints],
                           "models": [_model_json(m) for m in models]}, indent=2, ensure_ascii=False, default=str)
    parts = [f"Implement this part of the contract `{contract_rel}` as one vertical slice:\n\n```json\n{selected}\n```"]
    if hints:
        parts.append(f"Where this project keeps things:\n{hints}")
    if context:
        parts.append(context)
    parts.append(f"{slice_plan.PLAN_FORMAT}\n\n{JSON_ANSWER_FORMAT}")
    return [{"role": "system", "content": SLICE_SYSTEM}, {"role": "user", "content": "\n\n".join(parts)}]


def plan_repair(problems) -> dict:
    listed = "\n".join(f"- {p}" for p in problems)
    return {"role": "user", "content": f"The plan is not sound:\n{listed}\n\nGive the whole corrected plan again.\n\n"
                                       f"{slice_plan.PLAN_FORMAT}\n\n{JSON_ANSWER_FORMAT}"}


def files_message(plan_shown: str) -> dict:
    return {"role": "user", "content": (
        f"The plan is accepted:\n\n{plan_shown}\n\nNow write every file of the plan, complete, exporting exactly the "
        "names it promises and importing what it consumes from where the plan says. Only the files of the plan.\n\n"
        f"{FILES_ANSWER_FORMAT}")}


# ------------------------------------------------------------------------- the stage
_SOURCE_EXT = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".vue", ".svelte", ".py")


def _exists(tools, root: Path):
    """``exists(name, module)`` for ``plan_problems``: a workspace module (a path, or a
    Python dotted name) must be a file of the index that offers the name; a package goes
    to the index's own import resolution; without a module, any file of the index that
    offers the name."""
    index = tools.index

    def offered(rel: str, head: str) -> bool | None:
        stem = rel[:-len(rel.rsplit(".", 1)[-1]) - 1] if rel.endswith(_SOURCE_EXT) else rel
        with tools.lock:
            for cand in (rel, *(stem + e for e in _SOURCE_EXT), *(stem + "/index" + e for e in _SOURCE_EXT[:6]),
                         stem + "/__init__.py"):
                facts = index.facts.get(cand)
                if facts is not None:
                    return head in slice_plan.exported_names(facts)
        return None

    def exists(name: str, module: str | None) -> bool:
        head = name.split(".")[0]
        if not module:
            with tools.lock:
                return any(head in slice_plan.exported_names(f) for rel in index.facts
                           if (f := index.facts.get(rel)) is not None)
        rel = module[2:] if module.startswith("./") else module
        dotted = "/" not in rel and "." in rel and not rel.endswith(_SOURCE_EXT)
        if dotted:
            rel = rel.replace(".", "/") + ".py"
        workspace = rel.startswith("/") is False and not rel.startswith("..") and (
            module.startswith("./") or rel.endswith(_SOURCE_EXT) or (root / rel.split("/")[0]).is_dir())
        if workspace:
            found = offered(rel, head)
            if found is not None or not dotted:
                return bool(found)
        probe = "__specward_probe__.py" if dotted or module.endswith(".py") else "__specward_probe__.ts"
        try:
            return bool(tools.resolve_import(probe, module, head)["exists"])
        except Exception:  # noqa: BLE001 - a specifier the resolver refuses: not there
            return False

    return exists


def _examples(tools, project: dict, slug: str) -> list[str] | None:
    """The files the prompt shows as the project's conventions: the feature's own context
    manifest when it has one (None: ``gather`` reads it), else a route file, a data-model
    file and an API-client file of the index with what they import (``context_capture``,
    depth 1); at most 8 files, token-bounded by ``gather``."""
    if (tools.root / f".specward/context/{slug}.json").is_file():
        return None
    seeds: list[str] = []
    for key in ("routes", "data_models", "api_clients", "http_callers"):
        for item in project.get(key) or ():
            rel = item.get("file")
            if rel and rel not in seeds:
                seeds.append(rel)
                break
    if not seeds:
        return []
    try:
        files = tools.context_capture(seeds, depth=1)["files"]
    except Exception:  # noqa: BLE001 - the examples are a help, not a requirement
        files = seeds
    return [f for f in files if f.rsplit(".", 1)[-1] not in ("json", "lock", "toml", "yaml", "yml")][:8]


def plan_depth(plan, *texts: str) -> score.DepthChoice:
    """The verification depth of a plan: its file count, its domains (backend, data,
    frontend, tests, from the files' roles) and the risk words of the contract, the spec and
    the paths. ``minimal``: specward's checks and the plan's promises; ``standard`` adds
    the stub check; ``thorough`` adds the three review passes and the ``strict`` profile."""
    domains = {{"backend": "backend", "model": "data", "client": "frontend", "test": "tests"}.get(f.role, "other")
               for f in plan.files}
    return score.select_depth(len(plan.files), len(domains), *texts, *(f.path for f in plan.files))


def _stub_problems(files: dict[str, str]) -> list[tuple[str, str]]:
    out = []
    for rel, text in files.items():
        for s in stubs.find_stubs(rel, text):
            line = text.encode("utf-8", "surrogatepass")[: s.span.start].count(b"\n") + 1
            out.append((rel, f"line {line}: stub[{s.kind}] {s.message}"))
    return out


def _build_problems(run: Run, files: dict[str, str], command: str, notes: list[str],
                    builds: list | None = None) -> list[tuple[str, str]]:
    """The build or test command on the files in a scratch copy: its output's last lines
    as one problem when it fails; a note when it could not run there. ``builds`` gets the
    result (the compile dimension of the score before approval)."""
    from .stage_build import scratch_build

    run.ui.status(f"running `{command}` on the generated files (a scratch copy of the workspace)...")
    result = scratch_build(run.root, run.run_id, files, command)
    if builds is not None:
        builds.append(result)
    if result.value is None:
        if result.note not in notes:
            notes.append(result.note)
        return []
    if result.value == 1.0:
        return []
    why = result.note or f"exit code {result.exit_code}"
    tail = "\n".join(result.tail) or "(no output)"
    return [("(build)", f"`{command}` failed ({why}); its output ends with:\n{tail}")]


def _run_commands(root: Path, plan) -> list[str]:
    commands = []
    pkg = root / "package.json"
    if pkg.is_file():
        try:
            scripts = json.loads(pkg.read_text("utf-8")).get("scripts") or {}
        except (OSError, ValueError, AttributeError):
            scripts = {}
        for name in ("dev", "start"):
            if isinstance(scripts, dict) and name in scripts:
                commands.append(f"npm run {name}")
                break
        if isinstance(scripts, dict) and "test" in scripts:
            commands.append("npm test")
    if any(f.path.endswith(".py") for f in plan.files if f.role == "test"):
        commands.append("python -m pytest -q " + " ".join(f.path for f in plan.files if f.role == "test"))
    return commands


def propose_slice(run: Run, tools, contract_rel: str, contract_text: str, endpoints: list[str], models: list[str],
                  slug: str, spec_text: str | None = None, build: str | None = None) -> Proposal:
    """The slice's files and its acceptance script, checked; ``NotWritten`` when the plan
    or the files still have problems after the repairs. ``tools``: an ``agent_tools.Tools``
    on the workspace (built here when not yet). ``build``: the build or test command
    (``stage_build.build_command``), run from ``standard`` depth on in a scratch copy
    holding the files, its failure sent back like the other problems."""
    contract = parse_contract(contract_rel, contract_text)
    errors = [f.message for f in contract.findings if f.severity == "error"]
    if contract.format == "unknown" or errors:
        raise Usage(f"{contract_rel}: not a valid contract ({'; '.join(errors[:3]) or 'not a contract'}): fix it first")
    chosen, picked = select(contract, endpoints, models)
    if not chosen and not picked:
        raise Usage(f"{contract_rel}: the contract declares no endpoint and no model")
    tools.wait()
    project = tools.project_map()
    hints = slice_plan.layout_hints(project)
    context = stage_context.gather(run.root, slug=slug, contract_rel=contract_rel,
                                   context_paths=_examples(tools, project, slug))
    run.ui.status(f"slice of {contract_rel}: {len(chosen)} endpoint(s), {len(picked)} model(s)")

    # 1. the plan
    messages = plan_messages(contract_rel, chosen, picked, "" if hints.empty else hints.text, context)
    exists = _exists(tools, run.root)
    plan = problems = None
    for _round in range(1 + MAX_PLAN_REPAIRS):
        answer = run.ask(messages)
        try:
            plan = slice_plan.parse_plan(answers.first_json_object(answer))
            problems = [p.message for p in slice_plan.plan_problems(plan, chosen, exists)]
        except (answers.AnswerError, slice_plan.PlanError) as exc:
            plan, problems = None, [str(exc)]
        if plan is not None and not problems:
            break
        messages = [*messages, {"role": "assistant", "content": answer}, plan_repair(problems)]
    if plan is None or problems:
        raise run.gave_up(f"the slice's plan is still not sound after {MAX_PLAN_REPAIRS} repair rounds",
                          [f"plan: {shown(p)}" for p in problems or ()])
    shown_plan = slice_plan.plan_text(plan)
    run.ui.status(f"the slice's plan:\n{shown_plan}")
    run.save_step("plan", {"files": [f.path for f in plan.files]})

    # 2. the files, verified at the depth the change's risk asks for
    planned = {f.path for f in plan.files}
    notes: list[str] = []
    builds: list = []  # the build's results, round by round
    depth = [plan_depth(plan, contract_text, spec_text or "")]
    run.ui.status(f"verification depth: {depth[0].depth} ({'; '.join(depth[0].reasons)})")

    def verify(files: dict[str, str], facts: dict) -> list[tuple[str, str]]:
        got = {rel: facts.get(rel) for rel in files if rel in planned}
        out = [(p.file, f"{p.kind}: {p.message}") for p in slice_plan.verify_slice(plan, got)]
        if depth[0].depth != "minimal":
            out += _stub_problems(files)
        if build and not out and depth[0].depth != "minimal":
            out += _build_problems(run, files, build, notes, builds)
        return out

    def gate(problems: list[tuple[str, str]]) -> None:  # a failed gate raises the depth
        before = depth[0]
        depth[0] = score.raise_depth(before, f"{len(problems)} problem(s) in a round")
        if depth[0] is not before:
            run.ui.status(f"verification depth raised to {depth[0].depth}")

    def allowed(rel: str) -> str | None:
        return None if rel in planned else "not in the plan (its files: " + ", ".join(sorted(planned)) + ")"

    got = generate_files(run, [*messages, {"role": "assistant", "content": answer}, files_message(shown_plan)],
                         tools, verify=verify, allowed=allowed, on_problems=gate)
    run.save_step("depth", {"depth": depth[0].depth, "reasons": list(depth[0].reasons)})
    if got.problems:
        raise run.gave_up(f"the slice still has {len(got.problems)} problem(s) after {got.rounds} repair round(s)",
                          [f"{rel or '(answer)'}: {shown(msg)}" for rel, msg in got.problems],
                          finding_codes=got.finding_codes)

    # 3. the acceptance script
    routes, calls = [], []
    for rel, facts in got.facts.items():
        if facts is None:
            continue
        routes += [uat.GeneratedRoute(r.method, r.path, rel) for r in getattr(facts, "routes", ()) or ()]
        calls += [uat.GeneratedCall(c.method or "", c.template or "", rel) for c in getattr(facts, "calls", ()) or ()
                  if getattr(c, "template", None)]
    criteria = uat.acceptance_criteria(spec_text) if spec_text else []
    script = uat.acceptance_script(slug, criteria, [uat.uat_endpoint(ep) for ep in chosen], routes, calls,
                                   [f.path for f in plan.files if f.role == "test"], _run_commands(run.root, plan))
    files = list(got.files.items()) + [(f"specs/{slug}.uat.md", script)]
    notes += [f"{rel}: reaches a protected path ({why}): confirm it on its own" for rel, why in got.protected.items()]
    if not spec_text:
        notes.append(f"no spec with acceptance criteria (specs/{slug}.md): the acceptance script lists the endpoints only")
    # 4. the score, before the user accepts anything
    report = score_before_approval(run, tools, dict(files), chosen, picked, depth[0], build, builds)
    notes.append(report_line(report))
    return Proposal("slice", files, notes, depth[0], report)


def score_before_approval(run: Run, tools, files: dict[str, str], endpoints, models, depth, build: str | None,
                          builds: list):
    """The harness score of the proposed files with the index holding them (nothing
    written): compliance from specward's findings on them, coverage of the slice's own
    endpoints and models, compile from the build already run on them (``builds``; not
    measured without a build command), the three review passes at ``thorough`` depth."""
    from specward.analyzers.stages.runs import make_record

    from .score_cli import CompileResult, score_files

    record = make_record(run.run_id, "", "slice", run.config.model, run.prompt, files)
    compiled = next((b for b in reversed(builds) if b.value is not None), None) if builds else None
    if compiled is None:
        compiled = CompileResult(None, build, note="compile was not measured before approval: "
                                 + ("the build could not run on a copy" if build else "no build command (--build CMD, "
                                    "or `build` in a workspace you trust)"))
    scope = ({f"{ep.method} {full_path(ep)}" for ep in endpoints}, {m.name for m in models})
    review = run.config if depth.depth == "thorough" else None
    profile = score.profile_for(depth.depth)
    with tools.overlay(files):
        return score_files(run.root, tools.index, record, tuple(files), profile=profile, review_config=review,
                           ui=run.ui, compile_result=compiled, texts=files, scope=scope)


def report_line(report) -> str:
    """The score in one line: value, verdict and profile, the dimensions measured."""
    dims = report.dimensions
    shown_dims = ", ".join(f"{name} {value:.2f}" for name in score.DIMENSIONS
                           if (value := getattr(dims, name)) is not None)
    value = "not measured" if report.harness is None else f"{report.harness.score:.1f}"
    verdict = report.verdict_text or "no verdict"
    reasons = f" ({'; '.join(report.reasons)})" if report.reasons else ""
    return f"harness score before approval: {value}, {verdict} ({report.profile}; {shown_dims}){reasons}"


def run_slice(args: argparse.Namespace, offer_all, started) -> int:
    """``generate slice``: the arguments read and checked before any request, then the
    stage (``started`` registers the run and saves its first state: ``--resume``)."""
    root = project_root()
    contract_path = Path(args.contract).resolve()
    try:
        contract_rel = contract_path.relative_to(root).as_posix()
    except ValueError:
        raise Usage(f"{shown(args.contract)}: the contract must be a file of the project ({shown(str(root))})") from None
    text = read_contract(args.contract, Usage)
    slug = args.slug or contract_path.name.split(".", 1)[0]
    if not valid_run_id(slug):
        raise Usage(f"--slug {shown(slug)}: use letters, digits and dashes")
    spec_text = None
    spec = Path(args.spec) if args.spec else root / "specs" / f"{slug}.md"
    if spec.is_file():
        try:
            spec_text = spec.read_text("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise Usage(f"{shown(str(spec))}: cannot read: {exc}") from None
    elif args.spec:
        raise Usage(f"{shown(args.spec)}: no such file")
    select(parse_contract(contract_rel, text), args.endpoint, args.models)  # an unknown name: before any request
    stage_args = {"contract_rel": contract_rel, "contract_text": text, "endpoints": list(args.endpoint),
                  "models": list(args.models), "slug": slug, "spec_text": spec_text, "build": args.build}
    run = started(Run(root, "slice", model_config(root), args=stage_args))
    return slice_run(run, offer_all, args.yes)


def _judged_with(tools, a: dict):
    """The tools the slice's files are judged with: with ``with_contract`` (the editor's
    "Implement this endpoint", whose contract text is not written yet), the new contract in
    place too (``stage_files.WithContract``)."""
    from .stage_files import WithContract

    return WithContract(tools, {a["contract_rel"]: a["contract_text"]}) if a.get("with_contract") else tools


def _log_score(run: Run, tools, proposal: Proposal, command: str | None) -> None:
    """The written slice's score in the run log: the one measured before approval, or (a
    resumed run, whose proposal was kept without it) measured now on the written files."""
    from .score_cli import append_score, score_run

    report = proposal.score
    if report is None:
        with tools.lock:
            for rel, _ in proposal.files:
                tools.index.update_from_disk(rel)
        review = run.config if proposal.depth is not None and proposal.depth.depth == "thorough" else None
        try:
            report = score_run(run.root, tools.index, run.run_id, build=command, review_config=review, ui=run.ui)
        except Exception as exc:  # noqa: BLE001 - the slice is written; the score is a report
            print(f"specward: the slice was written but not scored: {exc}", file=sys.stderr)
            return
        print(f"specward: {report_line(report).replace(' before approval', '')}", file=sys.stderr)
    try:
        append_score(report)
    except Exception as exc:  # noqa: BLE001
        print(f"specward: warning: the score was not logged: {exc}", file=sys.stderr)


def slice_run(run: Run, offer_all, yes: bool) -> int:
    """The slice stage of ``run`` (new, or resumed from its state: the answers already
    received are not asked again, the files already written are not offered again), its
    files offered, and the written slice scored."""
    from .agent_tools import Tools

    from .stage_build import build_command

    a = run.args
    root = run.root
    command, source = build_command(root, a.get("build"))
    if command is None and source.startswith("the workspace configuration names"):
        print(f"specward: note: {source}", file=sys.stderr)
    tools = Tools(root)
    try:
        done = run.step("proposal")
        if done is not None:
            proposal = Proposal("slice", [tuple(f) for f in done["files"]], list(done["notes"]),
                                score.DepthChoice(done["depth"], tuple(done["reasons"])))
        else:
            proposal = propose_slice(run, _judged_with(tools, a), a["contract_rel"], a["contract_text"],
                                     a["endpoints"], a["models"], a["slug"], a["spec_text"], build=command)
            if a.get("with_contract"):  # "Implement this endpoint": the contract's edit comes with the slice
                proposal.files.insert(0, (a["contract_rel"], a["contract_text"]))
            run.save_step("proposal", {"files": [list(f) for f in proposal.files], "notes": proposal.notes,
                                       "depth": proposal.depth.depth, "reasons": list(proposal.depth.reasons)})
        code = offer_all(run, proposal, yes)
        if any(run.was_written(rel) for rel, _ in proposal.files):
            _log_score(run, tools, proposal, command)
        return code if code is not None else EXIT_OK
    finally:
        tools.close()
