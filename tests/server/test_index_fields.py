"""The field checks in the index: findings follow edits (a move above a call moves them, a
key typed changes them), a contract edit judges the fields again, a route's request model
edited in another file changes the schema."""

from __future__ import annotations

from pathlib import Path

from specward.server.engine.index import WorkspaceIndex

from test_lsp_fields import BACKEND, CONTRACT, NOTES

FIELD_CODES = {"unknown-field", "missing-field", "unknown-parameter", "missing-parameter", "unknown-response-field"}


def fields_of(idx: WorkspaceIndex, rel: str, text: str) -> list[tuple[str, str]]:
    data = text.encode()
    return sorted((f.code, data[f.span.start:f.span.end].decode()) for f in idx.findings(rel) if f.code in FIELD_CODES)


def workspace(root: Path) -> Path:
    (root / "web/src").mkdir(parents=True)
    (root / "contracts").mkdir()
    (root / "contracts/openapi.yaml").write_text(CONTRACT)
    (root / "web/src/notes.ts").write_text(NOTES)
    return root


def test_findings_move_with_an_edit_above_and_change_with_a_key(tmp_path: Path):
    idx = WorkspaceIndex(workspace(tmp_path))
    idx.build()
    rel = "web/src/notes.ts"
    want = [("missing-field", "{"), ("unknown-field", "bdoy"), ("unknown-response-field", "totl")]
    assert fields_of(idx, rel, NOTES) == want
    moved = idx.stats.get("moved_links", 0)
    text = "// notes, as the editor sees them\n" + NOTES
    idx.prepare_edits(rel, NOTES)  # the state incremental edits start from (an open document)
    idx.update(rel, text, incremental=True)
    assert idx.stats.get("moved_links", 0) == moved + 1  # the fast path: nothing linked again
    assert fields_of(idx, rel, text) == want
    text = text.replace("bdoy", "body")
    idx.update(rel, text, incremental=True)
    assert fields_of(idx, rel, text) == [("missing-field", "{"), ("unknown-response-field", "totl")]


def test_a_contract_edit_judges_the_fields_again(tmp_path: Path):
    idx = WorkspaceIndex(workspace(tmp_path))
    idx.build()
    rel = "web/src/notes.ts"
    contract = CONTRACT.replace("        body: {type: string}\n", "        bdoy: {type: string}\n        body: {type: string}\n")
    idx.update("contracts/openapi.yaml", contract)
    assert ("unknown-field", "bdoy") not in fields_of(idx, rel, NOTES)
    assert ("missing-field", "{") in fields_of(idx, rel, NOTES)


def test_a_route_model_edited_in_its_own_file_changes_the_schema(tmp_path: Path):
    for rel, text in BACKEND.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    idx = WorkspaceIndex(tmp_path)
    idx.build()
    rel = "web/src/api.ts"
    assert fields_of(idx, rel, BACKEND[rel]) == [("unknown-field", "tags")]
    # an edit that only moves the model changes nothing; one that adds the field does
    idx.update("api/schemas.py", "\n\n" + BACKEND["api/schemas.py"])
    assert fields_of(idx, rel, BACKEND[rel]) == [("unknown-field", "tags")]
    idx.update("api/schemas.py", BACKEND["api/schemas.py"] + "    tags: list[str] = []\n")
    assert fields_of(idx, rel, BACKEND[rel]) == []
    # a required field the call does not send
    idx.update("api/schemas.py", BACKEND["api/schemas.py"] + "    tags: list[str] = []\n    folder: str\n")
    assert fields_of(idx, rel, BACKEND[rel]) == [("missing-field", "{")]


NEST = {
    "api/src/main.ts": (
        "import { NestFactory } from '@nestjs/core';\n"
        "import { AppModule } from './app.module';\n\n"
        "async function bootstrap() {\n"
        "  const app = await NestFactory.create(AppModule);\n"
        "  app.setGlobalPrefix('api');\n"
        "  await app.listen(3000);\n"
        "}\n"
        "bootstrap();\n"
    ),
    "api/src/app.module.ts": (
        "import { Module } from '@nestjs/common';\n"
        "import { NotesController } from './notes.controller';\n\n"
        "@Module({ controllers: [NotesController] })\n"
        "export class AppModule {}\n"
    ),
    "api/src/create-note.dto.ts": (
        "export class CreateNoteDto {\n"
        "  title!: string;\n"
        "  body?: string;\n"
        "}\n"
    ),
    "api/src/notes.controller.ts": (
        "import { Body, Controller, Get, Post } from '@nestjs/common';\n"
        "import { CreateNoteDto } from './create-note.dto';\n\n"
        "@Controller('notes')\n"
        "export class NotesController {\n"
        "  @Get()\n"
        "  list() {\n"
        "    return [];\n"
        "  }\n\n"
        "  @Post()\n"
        "  create(@Body() dto: CreateNoteDto) {\n"
        "    return dto;\n"
        "  }\n"
        "}\n"
    ),
    "web/src/api.ts": (
        "import axios from 'axios';\n\n"
        "export const listNotes = () => axios.get('/api/notes');\n"
        "export const addNote = (text: string) => axios.post('/api/notes', { body: text, colour: 'red' });\n"
    ),
}


def test_a_nest_dto_is_the_request_schema_of_its_route(tmp_path: Path):
    for rel, text in NEST.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    idx = WorkspaceIndex(tmp_path)
    idx.build()
    rel = "web/src/api.ts"
    assert fields_of(idx, rel, NEST[rel]) == [("missing-field", "{"), ("unknown-field", "colour")], [
        f.message for f in idx.findings(rel)]
