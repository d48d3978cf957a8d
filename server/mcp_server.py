"""``specward mcp``: a Model Context Protocol server over stdio on the same engine as
``specward serve`` and ``specward check`` (issue 15, "For coding agents"; ``docs/agents.md``).

A coding agent asks it, before it writes a file, what specward would say about the file.
The tools themselves are ``agent_tools.Tools``, plain Python over the index (read-only,
every path confined to the workspace), tested without the SDK; this module only serves
them. The MCP SDK (the ``mcp`` extra, docs/install.md) is imported only by :func:`serve`.
"""

from __future__ import annotations

from pathlib import Path

from .agent_tools import ToolError, Tools, workspace_root

SERVER_NAME = "specward"
INSTRUCTIONS = (
    "specward checks code against the project's API contracts, imports and fix history. "
    "Before writing a file, call check_text with its path and the full proposed content and "
    "fix what it reports; use endpoints for the API, resolve_import before adding an import, "
    "ledger_prompt for the imports that were hallucinated before, project_map to learn where "
    "things live. The tools never write to the workspace."
)

# ====================================================================== the MCP side
def build_server(tools: Tools):
    """The FastMCP server whose tools call ``tools`` (off the event loop)."""
    import anyio
    from mcp.server.fastmcp import FastMCP

    server = FastMCP(SERVER_NAME, instructions=INSTRUCTIONS)

    async def run(fn, *args):
        try:
            return await anyio.to_thread.run_sync(fn, *args)
        except ToolError as exc:
            raise ValueError(str(exc)) from None  # FastMCP answers it as the tool's error

    @server.tool()
    async def check_text(path: str, content: str) -> dict:
        """Check a file's proposed content before writing it: the findings specward would
        report for `path` (workspace-relative) if it held `content` (phantom API calls,
        phantom imports, missing exports, undeclared dependencies, ledger repeats, field
        checks, architecture rules), each with code, severity, message, 1-based line and
        column, and fixes where specward has them. Nothing is written."""
        return await run(tools.check_text, path, content)

    @server.tool()
    async def endpoints(prefix: str | None = None, tag: str | None = None) -> dict:
        """The API's endpoints from the project's contracts (method, full path, contract
        file, summary, tags); `prefix` keeps the paths starting with it, `tag` those with
        that tag."""
        return await run(tools.endpoints, prefix, tag)

    @server.tool()
    async def resolve_import(from_path: str, module: str, name: str | None = None) -> dict:
        """Whether `module` (and `name` from it; "default" for a default export) can be
        imported from the file `from_path`, as specward's import checks judge it, and the
        nearest existing modules or names when it cannot."""
        return await run(tools.resolve_import, from_path, module, name)

    @server.tool()
    async def ledger_prompt(limit: int | None = None) -> dict:
        """The "DO NOT REPEAT" section of the project's fix-history ledger: imports code
        generation hallucinated before and what replaced them. Empty when there is none."""
        return await run(tools.ledger_prompt, limit)

    @server.tool()
    async def project_map() -> dict:
        """Where things live: contracts, files declaring backend routes, data models, HTTP
        client instances, files making API calls, configuration files, and the conventions
        they follow (languages per folder, route frameworks, client libraries)."""
        return await run(tools.project_map)

    @server.tool()
    async def context_capture(paths: list[str], depth: int | None = None, includes: list[str] | None = None,
                              task: str = "") -> dict:
        """The context manifest of a task on the files `paths`: the files they import (up
        to `depth` hops), the configuration governing them and `includes`, with hashes, and
        what the task still lacks. Returned as JSON text, not written."""
        return await run(tools.context_capture, paths, depth, includes, task)

    @server.tool()
    async def context_check(manifest: str) -> dict:
        """What a context manifest lacks or has that went stale: `manifest` is its JSON text
        or the workspace path of a manifest file (.specward/context/*.json)."""
        return await run(tools.context_check, manifest)

    return server


def serve(workspace: str | None = None, use_cache: bool = True) -> int:
    """Run the MCP server over stdio until the client closes it; the exit status."""
    import sys

    try:
        import mcp  # noqa: F401
    except ImportError:
        print("specward: error: `specward mcp` needs the MCP SDK: install specward with its mcp extra "
              "(pip install \"specward[mcp] @ git+https://github.com/specward/specward\"; docs/install.md)",
              file=sys.stderr)
        return 2
    if workspace is not None:
        start = Path(workspace)
        if not start.is_dir():
            print(f"specward: error: --workspace {workspace}: no such folder", file=sys.stderr)
            return 2
        root = start.resolve()
    else:
        root = workspace_root(Path.cwd())
    tools = Tools(root, use_cache=use_cache)
    tools.start()
    server = build_server(tools)
    try:
        server.run("stdio")
    finally:
        tools.close()
    return 0


def add_subparser(subparsers) -> None:
    c = subparsers.add_parser("mcp", help="run a Model Context Protocol server over stdio for coding agents "
                                          "(read-only; needs specward[mcp])")
    c.add_argument("--workspace", metavar="DIR",
                   help="the workspace root (default: the project of the current folder)")
    c.add_argument("--no-cache", action="store_true", help="do not read or write .specward/cache.sqlite")


def run(args) -> int:
    return serve(args.workspace, use_cache=not args.no_cache)
