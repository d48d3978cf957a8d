"""check_imports on fixture trees: phantom-import, missing-export, undeclared-dependency and
their quick fixes. Facts come from the real ``extract``; where extraction of a form is not
there yet (module spans, guarded imports, ambient modules, ``__getattr__``), the test builds
the facts by hand from the same text."""

from __future__ import annotations

from dataclasses import replace
from textwrap import dedent

from specward.analyzers.extract import extract
from specward.analyzers.imports import (
    Environment, Manifest, check_imports, normalize_distribution, with_declared_modules)
from specward.analyzers.languages import language_of
from specward.analyzers.model import Export, FileFacts, Import, Span
from specward.analyzers.resolve import Resolver, ResolverConfig, is_resolver_config

from fixtures import split


class Tree:
    def __init__(self, fixture: str, env: Environment | None = None, **overrides: FileFacts) -> None:
        self.files = split(fixture)
        self.facts = {p: extract(p, t) for p, t in self.files.items() if language_of(p)}
        self.facts.update(overrides)
        self.config = ResolverConfig.build({p: t for p, t in self.files.items() if is_resolver_config(p)})
        self.env = env or Environment()
        self.looked: list[str] = []

    def lookup(self, path: str) -> FileFacts | None:
        self.looked.append(path)
        return self.facts.get(path)

    def check(self, path: str, spans: bool = False):
        facts = self.facts[path]
        if spans:
            facts = with_module_spans(facts, self.files[path])
        resolver = Resolver(self.config, lambda p: p in self.files)
        return check_imports(facts, resolver, self.lookup, self.env, files=list(self.files))

    def verdicts(self, path: str) -> list[tuple[str, str, str]]:
        """(code, severity, message) of each finding."""
        return [(f.code, f.severity, f.message) for f in self.check(path).findings]

    def codes(self, path: str) -> list[tuple[str, str]]:
        """(code, imported module) of each finding."""
        return [(f.code, dict(f.data)["module"]) for f in self.check(path).findings]


def with_module_spans(facts: FileFacts, text: str) -> FileFacts:
    """The facts with each import's ``module_span`` as the extractor is to give it (the
    string with its quotes; Python's dotted name)."""
    data = text.encode()
    out = []
    for imp in facts.imports:
        if imp.module_span is None:
            for needle in (f"'{imp.module}'", f'"{imp.module}"', f"from {imp.module} ", f"import {imp.module}"):
                at = data.find(needle.encode())
                if at >= 0:
                    if needle.startswith(("from ", "import ")):
                        at += len(needle.split(" ")[0]) + 1
                        imp = replace(imp, module_span=Span(at, at + len(imp.module.encode())))
                    else:
                        imp = replace(imp, module_span=Span(at, at + len(needle.encode())))
                    break
        out.append(imp)
    return replace(facts, imports=tuple(out))


def npm(folder: str = "", declared=(), name: str | None = None) -> tuple[str, Manifest]:
    path = f"{folder}/package.json" if folder else "package.json"
    return path, Manifest("npm", folder, frozenset(declared), path, name)


# ---------------------------------------------------------------------------- phantom-import
TS_APP = """
//- tsconfig.json
{"compilerOptions": {"baseUrl": ".", "paths": {"@/*": ["src/*"]}}}
//- src/utils/formatDate.ts
export function formatDate(d: Date) { return d.toISOString(); }
//- src/views/list.ts
import { formatDate } from '../utils/formatDate';
import { formatDay } from '../utils/formatDay';
import { loadBoard } from '@/api/board';
import { formatDate as again } from '@/utils/formatDate';
"""


def test_a_relative_or_aliased_import_of_no_file_is_a_phantom_import():
    tree = Tree(TS_APP)
    found = tree.verdicts("src/views/list.ts")
    assert [c for c, _, _ in found] == ["phantom-import", "phantom-import"]
    assert found[0][1] == "error"
    assert found[0][2].startswith("cannot find module '../utils/formatDay' (tried src/utils/formatDay.ts, .tsx, .d.ts, .js")
    assert found[1][2].startswith("cannot find module '@/api/board' (tried src/api/board.ts, ")


def test_the_check_depends_on_every_path_probed_and_read():
    tree = Tree(TS_APP)
    deps = tree.check("src/views/list.ts").deps
    assert {"src/utils/formatDay.ts", "src/utils/formatDay/index.ts", "src/api/board.tsx"} <= deps
    assert "src/utils/formatDate.ts" in deps  # read through lookup for its exports
    assert "src/utils/formatDate.ts" in tree.looked


def test_creating_the_missing_file_makes_the_import_resolve():
    fixture = TS_APP + "//- src/api/board.ts\nexport const loadBoard = () => [];\n"
    tree = Tree(fixture)
    assert tree.codes("src/views/list.ts") == [("phantom-import", "../utils/formatDay")]


def test_the_nearest_existing_module_is_offered_as_a_fix():
    tree = Tree(TS_APP)
    text = tree.files["src/views/list.ts"]
    (finding,) = [f for f in tree.check("src/views/list.ts", spans=True).findings if "formatDay" in f.message]
    fix, alias = dict(finding.data)["fixes"]
    title, file, start, end, new = fix
    assert (title, file, new) == ("Change to '../utils/formatDate'", "src/views/list.ts", "../utils/formatDate")
    assert text.encode()[start:end] == b"../utils/formatDay"  # inside the quotes
    # and the same file through the alias the project's tsconfig has for it
    assert alias == ("Change to '@/utils/formatDate' (the project's alias)", file, start, end, "@/utils/formatDate")


def test_the_alias_form_keeps_the_written_extension_and_needs_an_alias():
    tree = Tree("""
    //- tsconfig.json
    {"compilerOptions": {"paths": {"~lib/*": ["./packages/lib/src/*"]}}}
    //- packages/lib/src/money/index.ts
    export const cents = (n: number) => n * 100;
    //- packages/lib/src/money/round.ts
    export const round = Math.round;
    //- packages/app/src/cart.ts
    import { cents } from '../../lib/src/mony';
    import { round } from '../../lib/src/money/rund.js';
    """)
    fixes = [[(title, new) for title, _, _, _, new in dict(f.data)["fixes"]]
             for f in tree.check("packages/app/src/cart.ts", spans=True).findings]
    assert fixes == [
        [("Change to '../../lib/src/money'", "../../lib/src/money"),
         ("Change to '~lib/money' (the project's alias)", "~lib/money")],
        [("Change to '../../lib/src/money/round.js'", "../../lib/src/money/round.js"),
         ("Change to '~lib/money/round.js' (the project's alias)", "~lib/money/round.js")],
    ]
    plain = Tree(TS_APP.replace('"paths": {"@/*": ["src/*"]}', '"paths": {}'))
    (finding,) = [f for f in plain.check("src/views/list.ts", spans=True).findings if "formatDay" in f.message]
    assert [t for t, *_ in dict(finding.data)["fixes"]] == ["Change to '../utils/formatDate'"]


def test_unreadable_configuration_means_no_verdict():
    tree = Tree("""
    //- tsconfig.json
    {"extends": "@company/tsconfig-base", "compilerOptions": {"paths": {"~/*": ["src/*"]}}}
    //- src/a.ts
    import { x } from 'shared/thing';
    import { y } from './nope';
    """, Environment(node_modules={"": frozenset()}))
    resolver = Resolver(tree.config, lambda p: p in tree.files)
    assert resolver.resolve("src/a.ts", "shared/thing").doubt  # the premise
    assert tree.codes("src/a.ts") == [("phantom-import", "./nope")]  # relative ones are still judged


def test_builtins_and_framework_modules_are_fine():
    tree = Tree("""
    //- package.json
    {"name": "site", "dependencies": {"@sveltejs/kit": "^2"}}
    //- svelte.config.js
    export default {};
    //- src/routes/+page.ts
    import fs from 'fs';
    import { readFile } from 'node:fs/promises';
    import { join } from 'path';
    import { goto } from '$app/navigation';
    import { env } from '$env/dynamic/public';
    import routes from 'virtual:generated-pages';
    import type { PageLoad } from './$types';
    """, Environment(node_modules={"": frozenset({"@sveltejs/kit"})}, manifests=dict([npm(declared={"@sveltejs/kit"})])))
    assert tree.codes("src/routes/+page.ts") == []


def test_ambient_module_declarations_make_a_package_specifier_resolve():
    fixture = """
    //- tsconfig.json
    {"compilerOptions": {"paths": {"@/*": ["src/*"]}}}
    //- src/env.d.ts
    declare module 'board-theme' { export const accent: string; }
    //- src/a.ts
    import { accent } from 'board-theme';
    import logo from '@/assets/logo.svg';
    import icon from './icons/missing.svg';
    import home from '~icons/mdi/home';
    import { db } from '@/generated/db';
    """
    env = Environment(node_modules={"": frozenset({"react"})}, manifests=dict([npm()]))
    plain = Tree(fixture, env)
    ambient = FileFacts("src/env.d.ts", "typescript", declared_modules=("board-theme", "*.svg", "@/generated/db"))
    env = with_declared_modules(env, [ambient, plain.facts["src/a.ts"]])
    assert env.declared_modules == {"board-theme": "src/env.d.ts", "*.svg": "src/env.d.ts",
                                    "@/generated/db": "src/env.d.ts"}
    tree = Tree(fixture, env)
    # a path to a missing file stays a phantom: tsc accepts it through '*.svg', the bundler
    # does not
    assert tree.codes("src/a.ts") == [("phantom-import", "@/assets/logo.svg"), ("phantom-import", "./icons/missing.svg")]
    # without the declarations; `~icons/...` names no path and no package: never judged
    assert plain.codes("src/a.ts") == [("phantom-import", "board-theme"), ("phantom-import", "@/assets/logo.svg"),
                                       ("phantom-import", "./icons/missing.svg"), ("phantom-import", "@/generated/db")]


def test_a_guarded_import_is_a_warning_and_a_guarded_package_is_not_judged():
    text = "try { require('./optional-plugin'); require('fancy-colors'); } catch {}\n"
    facts = FileFacts("src/a.js", "javascript", imports=(
        Import("./optional-plugin", "default", "", Span(14, 31), "require", True, Span(14, 33)),
        Import("fancy-colors", "default", "", Span(44, 58), "require", True, Span(44, 58)),
    ))
    tree = Tree(f"//- src/a.js\n{text}", Environment(node_modules={"": frozenset()}, manifests=dict([npm()])),
                **{"src/a.js": facts})
    assert [(c, s) for c, s, _ in tree.verdicts("src/a.js")] == [("phantom-import", "warning")]


# ---------------------------------------------------------------------------- packages
def test_a_package_neither_installed_nor_declared_is_a_phantom_import():
    fixture = """
    //- package.json
    {"name": "web", "dependencies": {"react": "^18", "vue": "^3"}}
    //- src/a.ts
    import React from 'react';
    import _ from 'lodash-es';
    import { debounce } from 'lodash';
    import { ref } from 'vue';
    import type { Node } from 'estree';
    """
    env = Environment(node_modules={"": frozenset({"react", "lodash", "@types/estree"})},
                      manifests=dict([npm(declared={"react", "vue"})]))
    found = Tree(fixture, env).verdicts("src/a.ts")
    assert found == [
        ("phantom-import", "error", "cannot find package 'lodash-es': it is not installed (node_modules) and not "
                                    "declared in package.json: it may be a hallucinated package name"),
        ("undeclared-dependency", "warning", "'lodash' is not declared in package.json"),
        ("undeclared-dependency", "warning", "'estree' is not declared in package.json"),
    ]  # vue: declared but not installed here, an install problem, not the code's


def test_a_fresh_checkout_without_node_modules_is_judged_by_the_manifest_only():
    fixture = """
    //- src/a.ts
    import React from 'react';
    import _ from 'lodash-es';
    """
    env = Environment(manifests=dict([npm(declared={"react"})]))
    assert Tree(fixture, env).verdicts("src/a.ts") == [
        ("undeclared-dependency", "warning", "'lodash-es' is not declared in package.json and is not installed "
                                             "(no node_modules): it may be a hallucinated package name")]
    # and with no manifest at all (a loose script): nothing to judge against
    assert Tree(fixture, Environment()).verdicts("src/a.ts") == []


def test_monorepo_packages_see_their_own_and_the_roots_node_modules_and_manifests():
    fixture = """
    //- package.json
    {"name": "mono", "private": true, "devDependencies": {"vitest": "^2"}}
    //- packages/ui/package.json
    {"name": "@acme/ui", "dependencies": {"react": "^18"}}
    //- packages/ui/src/index.ts
    export const Button = 1;
    //- packages/web/package.json
    {"name": "@acme/web", "dependencies": {"@acme/ui": "*"}}
    //- packages/web/src/a.ts
    import { Button } from '@acme/ui';
    import { describe } from 'vitest';
    import React from 'react';
    """
    env = Environment(
        node_modules={"": frozenset({"vitest", "react"}), "packages/ui": frozenset({"react"})},
        manifests=dict([npm(declared={"vitest"}, name="mono"), npm("packages/ui", {"react"}, "@acme/ui"),
                        npm("packages/web", {"@acme/ui"}, "@acme/web")]))
    tree = Tree(fixture, env)
    assert tree.verdicts("packages/web/src/a.ts") == [
        ("undeclared-dependency", "warning", "'react' is not declared in packages/web/package.json")]


# ---------------------------------------------------------------------------- missing-export
TYPES = """
//- src/types/task.ts
export interface TaskItem { id: string }
export type TaskStatus = 'todo' | 'done';
export function formatDate(d: Date) { return d; }
//- src/types/user.ts
export * from './index';
export interface User { name: string }
//- src/types/index.ts
export * from './task';
export * from './user';
export { formatDate as dayOf } from './task';
"""


def test_a_misspelled_name_is_a_missing_export_with_a_fix_that_keeps_the_local_name():
    tree = Tree(TYPES + dedent("""
    //- src/a.ts
    import { TaskItems } from './types';
    """))
    (finding,) = tree.check("src/a.ts").findings
    assert (finding.code, finding.severity) == ("missing-export", "error")
    assert finding.message == "'TaskItems' is not exported by src/types/index.ts (did you mean 'TaskItem'?)"
    text = tree.files["src/a.ts"].encode()
    (fix,) = dict(finding.data)["fixes"]
    assert text[fix[2]:fix[3]] == b"TaskItems" and fix[4] == "TaskItem as TaskItems"


def test_names_are_followed_through_export_star_chains_with_a_cycle():
    tree = Tree(TYPES + dedent("""
    //- src/a.ts
    import { TaskItem, User, dayOf } from './types';
    import type { TaskStatus } from './types/user';
    import { Project } from './types/user';
    import * as everything from './types';
    """))
    assert tree.verdicts("src/a.ts") == [
        ("missing-export", "error", "'Project' is not exported by src/types/user.ts")]


def test_a_default_import_of_a_module_without_default_export():
    tree = Tree(TYPES + dedent("""
    //- src/a.ts
    import formatDate from './types/task';
    //- src/b.ts
    import TaskList from './types/task';
    """))
    (finding,) = tree.check("src/a.ts").findings
    assert finding.message == "src/types/task.ts has no default export (did you mean '{ formatDate }'?)"
    (fix,) = dict(finding.data)["fixes"]
    assert fix[4] == "{ formatDate }"
    assert tree.verdicts("src/b.ts") == [("missing-export", "error", "src/types/task.ts has no default export")]


def test_a_re_export_of_a_missing_name_or_module_is_judged_in_the_file_that_writes_it():
    tree = Tree(TYPES + dedent("""
    //- src/types/more.ts
    export { formatWeek } from './task';
    export * from './colors';
    """))
    assert tree.codes("src/types/more.ts") == [("missing-export", "./task"), ("phantom-import", "./colors")]


def test_modules_whose_exports_cannot_be_known_are_trusted():
    fixture = """
    //- src/legacy.js
    module.exports = makeApi();
    //- src/cjs.ts
    export = makeApi;
    //- src/pkg.ts
    export * from 'some-package';
    //- src/Card.vue
    <script setup lang="ts">
    const x = 1;
    </script>
    //- src/a.ts
    import { get } from './legacy';
    import api, { post } from './cjs';
    import { anything } from './pkg';
    import Card from './Card.vue';
    import { helper } from './open';
    //- src/open.ts
    export const other = 1;
    """
    overrides = {  # as extraction is documented to give them (CommonJS, `export =`, __getattr__-like)
        "src/legacy.js": FileFacts("src/legacy.js", "javascript", open_exports=True),
        "src/cjs.ts": FileFacts("src/cjs.ts", "typescript", exports=(Export("=", "makeApi", Span(0, 6)),)),
        "src/open.ts": replace(extract("src/open.ts", "export const other = 1;\n"), open_exports=True),
    }
    tree = Tree(fixture, **overrides)
    assert tree.verdicts("src/a.ts") == []


# ---------------------------------------------------------------------------- Python
PY = """
//- app/__init__.py
from .models import Task
__all__ = ["Task", "make_task"]
from .factory import make_task
//- app/models.py
class Task: ...
class User: ...
_private = 1
//- app/factory.py
from app.models import Task
def make_task(): return Task()
//- app/shortcuts.py
from app.models import *
//- app/limited.py
__all__ = ["Task"]
from app.models import Task, User
//- app/short2.py
from app.limited import *
//- app/services/__init__.py
//- app/services/billing.py
def total(): return 0
//- scripts/helpers.py
def run(): ...
"""


def test_python_missing_modules_and_names():
    tree = Tree(PY + dedent("""
    //- app/services/tasks.py
    import os
    from __future__ import annotations
    import app.helpers
    from app import Task, make_task, models
    from app.models import User, Usr
    from . import billing, reports
    from ..models import Task as T
    from .storage import save
    from app.shortcuts import User as U2, _private
    from app.short2 import Task as T2, User as U3
    """), **{"app/limited.py": replace(extract("app/limited.py", 'from app.models import Task, User\n'),
                                      all_names=("Task",))})
    assert tree.verdicts("app/services/tasks.py") == [
        ("phantom-import", "error", "cannot find module 'app.helpers' (tried app/helpers.py, app/helpers/__init__.py, "
                                    "src/app/helpers.py, src/app/helpers/__init__.py, app/services/app/helpers.py, "
                                    "app/services/app/helpers/__init__.py, ...)"),
        ("missing-export", "error", "'Usr' is not defined in app/models.py (did you mean 'User'?)"),
        ("missing-export", "error", "'reports' is neither defined in app/services/__init__.py nor a module of app/services"),
        ("phantom-import", "error", "cannot find module '.storage' (tried app/services/storage.py, "
                                    "app/services/storage/__init__.py)"),
        ("missing-export", "error", "'_private' is not defined in app/shortcuts.py"),
        ("missing-export", "error", "'User' is not defined in app/short2.py"),
    ]


def test_python_namespace_packages_and_submodules():
    tree = Tree("""
    //- tools/gen.py
    //- tools/lint.py
    from . import gen
    from . import nothing_here
    from tools import gen as g2
    """)
    assert tree.verdicts("tools/lint.py") == [
        ("missing-export", "error", "'nothing_here' is not a module of tools")]


def test_python_open_modules_are_trusted_and_guarded_imports_are_warnings():
    lazy = replace(extract("app/lazy.py", "def __getattr__(name): ...\n"), open_exports=True)
    text = "try:\n    from .speedups import fast\nexcept ImportError:\n    fast = None\nfrom app.lazy import anything\n"
    facts = extract("app/use.py", text)
    facts = replace(facts, imports=tuple(replace(i, guarded=i.module == ".speedups") for i in facts.imports))
    tree = Tree(f"//- app/__init__.py\n//- app/lazy.py\n//- app/use.py\n{text}",
                **{"app/lazy.py": lazy, "app/use.py": facts})
    assert [(c, s) for c, s, _ in tree.verdicts("app/use.py")] == [("phantom-import", "warning")]


def test_python_packages_against_the_environment_and_the_manifest():
    fixture = """
    //- pyproject.toml
    //- app/main.py
    import yaml
    import requests
    import numpy as np
    import turbo_tasks
    from google.protobuf import message
    import json
    import ldap
    """
    manifest = {"pyproject.toml": Manifest("python", "", frozenset({"pyyaml", "requests", "protobuf"}),
                                           "pyproject.toml", "app")}
    env = Environment(python_modules=frozenset({"yaml", "requests", "numpy", "google", "ldap"}), manifests=manifest,
                      python_distributions={"google": frozenset({"protobuf"})},
                      import_names={"ldap": "python-ldap"})
    assert Tree(fixture, env).verdicts("app/main.py") == [
        ("undeclared-dependency", "warning", "'numpy' (distribution numpy) is not declared in pyproject.toml"),
        ("phantom-import", "error", "cannot find module 'turbo_tasks': it is not installed in the project's Python "
                                    "environment and not declared in pyproject.toml: it may be a hallucinated package name"),
        ("undeclared-dependency", "warning", "'ldap' (distribution python-ldap) is not declared in pyproject.toml"),
    ]
    # no environment found: judged by the manifest only
    bare = Environment(manifests=manifest)
    assert [c for c, _, _ in Tree(fixture, bare).verdicts("app/main.py")] == ["undeclared-dependency"] * 3
    assert "no Python environment found" in Tree(fixture, bare).verdicts("app/main.py")[1][2]


def test_python_fix_suggests_the_nearest_module():
    tree = Tree("""
    //- app/__init__.py
    //- app/storage.py
    //- app/main.py
    from .storag import save
    """)
    (finding,) = tree.check("app/main.py", spans=True).findings
    (fix,) = dict(finding.data)["fixes"]
    assert fix[4] == ".storage"
    assert tree.files["app/main.py"].encode()[fix[2]:fix[3]] == b".storag"


def test_distribution_names_are_normalized():
    assert normalize_distribution("Python_Dateutil") == "python-dateutil"
    assert normalize_distribution("zope.interface") == "zope-interface"


def test_python_namespace_package_folders_are_workspace_modules():
    fixture = """
    //- pyproject.toml
    //- scripts/seed.py
    //- app/main.py
    import scripts
    import scripts.seed
    import scripts.nothing
    """
    env = Environment(python_modules=frozenset(), manifests={
        "pyproject.toml": Manifest("python", "", frozenset(), "pyproject.toml")})
    assert Tree(fixture, env).codes("app/main.py") == [("phantom-import", "scripts.nothing")]


def test_python_packages_of_a_file_no_manifest_governs_are_not_judged():
    fixture = """
    //- backend/pyproject.toml
    //- scripts/tool.py
    import fastapi
    //- backend/api.py
    import fastapi
    """
    env = Environment(python_modules=frozenset({"requests"}), manifests={
        "backend/pyproject.toml": Manifest("python", "backend", frozenset(), "backend/pyproject.toml")})
    tree = Tree(fixture, env)
    assert tree.codes("scripts/tool.py") == []
    assert tree.codes("backend/api.py") == [("phantom-import", "fastapi")]


def test_python_standard_library_names_beat_a_sibling_module_and_stubs_count():
    """As pyright reads them: `from abc import ABC` in a package that has its own abc.py is
    the standard library's; a stub standing alone is the module; a stub beside a module
    declares names too."""
    tree = Tree(PY + dedent("""
    //- lib/richish/abc.py
    class RichRenderable: ...
    //- lib/richish/console.py
    from abc import ABC, abstractmethod
    from ._compat import Literal_
    from ._typed import Alias, real, neither
    //- lib/richish/_compat.pyi
    Literal_ = object
    //- lib/richish/_typed.py
    def real(): ...
    //- lib/richish/_typed.pyi
    Alias = int
    def real() -> None: ...
    """))
    assert tree.verdicts("lib/richish/console.py") == [
        ("missing-export", "error", "'neither' is not defined in lib/richish/_typed.py"),
    ]


GLOB_APP = """
//- src/router.ts
export const views = import.meta.glob('./views/*.vue');
export const nested = import.meta.glob('./views/**/*.{vue,tsx}', { eager: true });
export const typo = import.meta.glob('./view/*.vue');
export const wrongKind = import.meta.glob(['./views/*.tsx', '!./views/_*.tsx']);
export const locales = import.meta.glob('../locales/*.json', { import: 'default' });
export const above = import.meta.glob('../../outside/*.md');
export const rooted = import.meta.glob('/src/nothing/*.ts');
export const aliased = import.meta.glob('@/nothing/*.ts');
//- src/views/Home.vue
<template><main /></template>
//- src/views/admin/Users.tsx
export default function Users() { return null; }
//- locales/en.json
{"hello": "Hello"}
"""


def test_an_import_meta_glob_pattern_that_matches_no_file_is_a_phantom_import_warning():
    tree = Tree(GLOB_APP)
    found = [(dict(f.data)["module"], f.severity, f.message) for f in tree.check("src/router.ts").findings]
    assert found == [
        ("./view/*.vue", "warning", "import.meta.glob('./view/*.vue') matches no file (no file is below src/view)"),
        ("./views/*.tsx", "warning",
         "import.meta.glob('./views/*.tsx') matches no file (src/views has 2 file(s): Home.vue, admin/Users.tsx)"),
    ]  # `**` reaches Users.tsx, `../` the root's locales; a negation, a root-absolute pattern,
    # an alias and a pattern above the workspace are not judged


def test_an_import_meta_glob_depends_on_its_folder_and_trusts_what_the_walk_left_out():
    tree = Tree(GLOB_APP)
    assert {"dir:src/view", "dir:src/views", "dir:locales"} <= tree.check("src/router.ts").deps
    facts = tree.facts["src/router.ts"]
    resolver = Resolver(tree.config, lambda p: p in tree.files)
    ignored = check_imports(facts, resolver, tree.lookup, tree.env, files=list(tree.files),
                            unlisted_below=lambda folder: folder == "src/view")  # an ignored folder
    assert [dict(f.data)["module"] for f in ignored.findings] == ["./views/*.tsx"]


def test_a_misspelled_generated_types_module_suggests_it():
    """`./$types` beside a SvelteKit route is generated (never a listed file): a misspelling
    of it is a phantom whose fix names it, not the nearest listed file."""
    tree = Tree("""
    //- package.json
    {"name": "site", "dependencies": {"@sveltejs/kit": "^2"}}
    //- svelte.config.js
    export default {};
    //- src/routes/notes/+page.server.ts
    export const load = () => ({});
    //- src/routes/notes/+page.ts
    import type { PageLoad } from './$typess';
    import { short } from './sharp';
    //- src/routes/notes/short.ts
    export const short = 1;
    """, Environment(node_modules={"": frozenset({"@sveltejs/kit"})}, manifests=dict([npm(declared={"@sveltejs/kit"})])))
    got = [(f.code, dict(f.data)["module"], f.message, dict(f.data).get("fixes"))
           for f in tree.check("src/routes/notes/+page.ts", spans=True).findings]
    assert [(code, module) for code, module, _, _ in got] == [("phantom-import", "./$typess"), ("phantom-import", "./sharp")]
    assert "did you mean './$types'?" in got[0][2] and got[0][3][0][4] == "./$types"
    assert "did you mean './short'?" in got[1][2]
