"""Stubs in generated code: each rule, and no false alarms on legitimate constructs."""

from __future__ import annotations

import pytest

from specward.analyzers.stages.stubs import find_stubs


def found(path: str, text: str, language: str | None = None) -> list[tuple[str, str]]:
    """(kind, the text at the span) of each stub."""
    data = text.encode()
    return [(s.kind, data[s.span.start:s.span.end].decode()) for s in find_stubs(path, text, language)]


ECMA = ("services/notes.ts", "components/NoteList.tsx", "routes/notes.js")


# ----------------------------------------------------------------------------- comments
@pytest.mark.parametrize("path", ECMA)
def test_todo_fixme_xxx_comments(path):
    text = ("// TODO: paginate\nconst limit = 20; /* FIXME wrong default */\n"
            "// XXX remove before release\n// a todo list, sorted\n")
    assert [k for k, _ in found(path, text)] == ["todo-comment"] * 3


def test_python_todo_comment_but_not_in_a_todo_app():
    text = "# TODO: validate the title\nTODOS = []  # the todo items\n\ndef add(item):\n    TODOS.append(item)\n"
    assert found("app/todos.py", text) == [("todo-comment", "# TODO: validate the title")]


# ----------------------------------------------------------------------------- bodies, TS/JS
@pytest.mark.parametrize("path", ECMA)
def test_ecma_empty_and_placeholder_bodies(path):
    text = """export function saveNote(note) {}
export const deleteNote = async (id) => {};
function loadNotes() { return null; }
function loadTags() { return undefined; }
function settings() { return {}; }
function recent() { return []; }
function archive() { throw new Error('Not implemented yet'); }
class NotesStore {
  refresh() {}
  count() { return null; }
}
const api = { update(id) {} };
"""
    assert found(path, text) == [
        ("empty-body", "saveNote"), ("empty-body", "deleteNote"), ("empty-return", "loadNotes"),
        ("empty-return", "loadTags"), ("empty-return", "settings"), ("empty-return", "recent"),
        ("not-implemented", "archive"), ("empty-body", "refresh"), ("empty-return", "count"),
        ("empty-body", "update")]


@pytest.mark.parametrize("path", ECMA)
def test_placeholder_logs(path):
    text = ("export function share(note) {\n  console.log('TODO: share', note);\n}\n"
            "export function pin(note) {\n  logger.warn(`not implemented: pin ${note.id}`);\n}\n"
            "export function done(note) {\n  console.log('todo marked done', note.id);\n  return note;\n}\n")
    assert [k for k, _ in found(path, text)] == ["placeholder-log", "placeholder-log"]


# ----------------------------------------------------------------------------- bodies, Python
def test_python_placeholder_bodies():
    text = '''def create_note(payload):
    """Create a note."""
    pass


def list_notes(): ...


async def delete_note(note_id: int):
    raise NotImplementedError("delete")


def share(note):
    raise NotImplementedError


def tags():
    return None


def settings():
    return {}


def recent():
    return []


class NoteService:
    def refresh(self):
        pass
'''
    assert found("app/notes.py", text) == [
        ("pass-body", "create_note"), ("ellipsis-body", "list_notes"), ("not-implemented", "delete_note"),
        ("not-implemented", "share"), ("empty-return", "tags"), ("empty-return", "settings"),
        ("empty-return", "recent"), ("pass-body", "refresh")]


def test_python_placeholder_logs():
    text = ('import logging\nlog = logging.getLogger(__name__)\n\n'
            'def export(notes):\n    print("not implemented")\n    return notes\n\n'
            'def sync(notes):\n    log.info("implement me: sync")\n    return notes\n\n'
            'def tidy(notes):\n    print("todo list tidied")\n    return notes\n')
    assert [k for k, _ in found("app/export.py", text)] == ["placeholder-log", "placeholder-log"]


def test_language_may_be_given():
    assert found("snippet", "def f():\n    pass\n", "python") == [("pass-body", "f")]
    assert found("notes.md", "TODO: write\n") == []


# ----------------------------------------------------------------------------- no false alarms
ANGULAR = """import { Component, Injectable, OnInit } from '@angular/core';
import { HttpClient } from '@angular/common/http';

@Injectable({ providedIn: 'root' })
export class NotesApi {
  constructor(private readonly http: HttpClient) {}
  list() { return this.http.get('/api/notes'); }
}

@Component({ selector: 'app-notes', template: '<ul></ul>' })
export class NotesComponent implements OnInit {
  constructor(private api: NotesApi) {}
  ngOnInit(): void {}
  ngOnDestroy(): void {}
}

export interface NoteRepository {
  find(id: string): Promise<unknown>;
  save(note: unknown): void;
}

export abstract class Store {
  abstract load(): Promise<void>;
}

export function parse(v: string): number;
export function parse(v: number): number;
export function parse(v: string | number): number { return Number(v); }
"""


def test_no_false_alarms_on_angular_and_typescript_declarations():
    assert found("src/app/notes.ts", ANGULAR) == []


REACT = """import { useEffect, useState } from 'react';

export const noop = () => {};

export function NoteList({ onSelect = () => {} }: { onSelect?: (id: string) => void }) {
  const [notes, setNotes] = useState<string[]>([]);
  useEffect(() => {
    const controller = new AbortController();
    fetch('/api/notes', { signal: controller.signal }).then(r => r.json()).then(setNotes).catch(() => {});
    return () => {};
  }, []);
  const ignore = () => {};
  return <ul onClick={() => {}}>{notes.map(n => <li key={n} onClick={() => onSelect(n)}>{n}</li>)}</ul>;
}

export class Form {
  handle = () => {};
  render() { return { kind: 'form' }; }
}

function emptyWithReason() {
  // deliberately nothing: the browser handles it
}
"""


def test_no_false_alarms_on_react_callbacks_and_noops():
    assert found("src/NoteList.tsx", REACT) == []


def test_declaration_files_are_not_judged_for_bodies():
    assert found("src/types.d.ts", "declare function load(): void;\nexport declare class A { m(): void; }\n") == []


PYTHON_OK = '''from abc import ABC, ABCMeta, abstractmethod
from typing import Protocol, overload


class Repository(Protocol):
    def get(self, note_id: int) -> "Note": ...

    def add(self, note: "Note") -> None:
        pass


class Exporter(ABC):
    @abstractmethod
    def export(self, notes):
        """Write the notes somewhere."""

    @abstractmethod
    def name(self) -> str:
        raise NotImplementedError

    def close(self):
        raise NotImplementedError


class BaseHandler:
    def handle(self, event):
        raise NotImplementedError


class Meta(metaclass=ABCMeta):
    def run(self): ...


@overload
def parse(v: str) -> int: ...
@overload
def parse(v: bytes) -> int: ...
def parse(v):
    return int(v)


def load(path):
    try:
        return open(path).read()
    except FileNotFoundError:
        pass
    except:
        pass
    return None if path is None else ""


class NoteMissing(Exception):
    pass
'''


def test_no_false_alarms_on_protocols_abstract_methods_overloads_and_except_pass():
    assert found("app/repository.py", PYTHON_OK) == []


def test_typing_stub_files_and_init_files_are_fine():
    assert found("app/notes.pyi", "def load(path: str) -> str: ...\nclass A:\n    def m(self) -> None: ...\n") == []
    assert found("app/__init__.py", "") == []
    assert found("app/__init__.py", '"""The notes app."""\nfrom .models import Note\n\n__all__ = ["Note"]\n') == []
