"""A handler's signature and documentation for the route card (analyzers/handler_doc.py)."""

from __future__ import annotations

from specward.analyzers.handler_doc import handler_doc, route_card

PY = '''from fastapi import APIRouter

router = APIRouter()


@router.get("/{note_id}")
async def read_note(
    note_id: int,
    verbose: bool = False,
) -> dict:
    """One note, by its id.

    Archived notes are returned too.
    """
    return {}


@router.delete("/{note_id}")
def delete_note(note_id: int):
    return None
'''

TS = '''import { Controller, Get, Param } from '@nestjs/common';

@Controller('notes')
export class NotesController {
  /**
   * One note, by its id.
   * Archived notes too.
   */
  @Get(':id')
  async findOne(@Param('id') id: string): Promise<Note> {
    return this.notes.get(id);
  }
}

/** Lists the notes. */
export async function GET(request: Request) {
  return Response.json([]);
}

export const POST = async (req: Request) => new Response(null, { status: 201 });
'''


def test_python_signature_and_docstring():
    doc = handler_doc("api/notes.py", PY, PY.index("read_note"))
    assert doc.signature == "async def read_note( note_id: int, verbose: bool = False, ) -> dict"
    assert doc.doc == "One note, by its id.\n\nArchived notes are returned too."
    bare = handler_doc("api/notes.py", PY, PY.index("delete_note"))
    assert bare.signature == "def delete_note(note_id: int)" and bare.doc is None
    assert handler_doc("api/notes.py", PY, PY.index("APIRouter()")) is None  # not in a function


def test_typescript_methods_functions_and_arrows_with_jsdoc():
    method = handler_doc("src/notes.controller.ts", TS, TS.index("findOne"))
    assert method.signature == "async findOne(@Param('id') id: string): Promise<Note>"
    assert method.doc == "One note, by its id.\nArchived notes too."
    fn = handler_doc("app/api/notes/route.ts", TS, TS.index("GET"))
    assert fn.signature == "async function GET(request: Request)" and fn.doc == "Lists the notes."
    arrow = handler_doc("app/api/notes/route.ts", TS, TS.index("async (req"))
    assert arrow.signature == "async (req: Request) =>" and arrow.doc is None
    assert handler_doc("notes.md", "x", 0) is None


def test_route_card_shows_signature_doc_and_place():
    doc = handler_doc("api/notes.py", PY, PY.index("read_note"))
    card = route_card("GET", "/api/notes/{note_id}", "read_note", "api/notes.py:7", doc, "fastapi")
    assert card.startswith("**GET /api/notes/{note_id}** — handled by `read_note` (fastapi)")
    assert "```python\nasync def read_note(" in card and "One note, by its id." in card
    assert card.endswith("Route of the backend: `api/notes.py:7`")
