"""File-based routes (analyzers/routes_files.py) through ``routes.compose`` with the real
extractor: a Next.js app (App Router route handlers, a Pages Router API file, groups, slots,
private folders, catch-alls, ``basePath``), a SvelteKit app (``+server`` files, matchers,
optional and rest parameters, ``kit.files.routes``), a Nuxt server (method suffixes,
``index`` files, ``server/routes``), and projects that are none of these."""

from __future__ import annotations

from specward.analyzers.extract import extract
from specward.analyzers.languages import language_of
from specward.analyzers.routes import compose
from specward.analyzers.routes_files import file_apps

from fixtures import split


def composed(fixture: str):
    files = split(fixture)
    facts = {p: extract(p, t) for p, t in files.items() if language_of(p)}
    apps = file_apps(files, files.get)
    # the index gives compose only the files with routes or mounts: file routes come from the apps
    with_routes = [p for p, f in facts.items() if f.routes or f.mounts]
    return compose(with_routes, facts.get, lambda *a: None, file_apps=apps)


def table(fixture: str) -> list[tuple]:
    return [(c.method, c.path, c.file, c.route.handler, c.unresolved) for c in composed(fixture)]


NEXT = """
//- package.json
{ "name": "notes-web", "dependencies": { "next": "14.2.3", "react": "18.3.1" } }
//- next.config.mjs
/** @type {import('next').NextConfig} */
const nextConfig = {
  basePath: '/notes',
  images: { remotePatterns: [] },
};
export default nextConfig;
//- app/page.tsx
export default function Home() { return null; }
//- app/api/notes/route.ts
import { NextResponse } from 'next/server';
export async function GET() { return NextResponse.json([]); }
export async function POST(request: Request) { return NextResponse.json(await request.json(), { status: 201 }); }
//- app/api/notes/[noteId]/route.ts
async function update(request: Request) { return new Response(null); }
export const GET = async () => new Response('{}');
export { update as PUT, update as PATCH };
export function helper() {}
//- app/(marketing)/api/newsletter/route.js
export async function POST() { return new Response(null, { status: 204 }); }
//- app/api/files/[...path]/route.ts
export async function GET() { return new Response(null); }
//- app/docs/[[...slug]]/route.ts
export async function GET() { return new Response(null); }
//- app/@modal/api/peek/route.ts
export async function GET() { return new Response(null); }
//- app/_lib/route.ts
export async function GET() { return new Response(null); }
//- app/%5Fhealth/route.ts
export function HEAD() { return new Response(null); }
//- app/api/notes/route.test.ts
export async function GET() {}
//- pages/api/legacy/[id].ts
import type { NextApiRequest, NextApiResponse } from 'next';
export default function handler(req: NextApiRequest, res: NextApiResponse) { res.status(200).json({}); }
//- pages/api/index.js
export default (req, res) => res.end();
//- pages/api/no-default.ts
export const config = { api: { bodyParser: false } };
"""


def test_next_app_router_and_pages_router_with_a_base_path():
    assert table(NEXT) == [
        ("HEAD", "/notes/_health", "app/%5Fhealth/route.ts", "HEAD", None),
        ("ANY", "/notes/api", "pages/api/index.js", None, None),
        ("GET", "/notes/api/files/{...path}", "app/api/files/[...path]/route.ts", "GET", None),
        ("ANY", "/notes/api/legacy/{id}", "pages/api/legacy/[id].ts", "handler", None),
        ("POST", "/notes/api/newsletter", "app/(marketing)/api/newsletter/route.js", "POST", None),
        ("GET", "/notes/api/notes", "app/api/notes/route.ts", "GET", None),
        ("POST", "/notes/api/notes", "app/api/notes/route.ts", "POST", None),
        ("GET", "/notes/api/notes/{noteId}", "app/api/notes/[noteId]/route.ts", "GET", None),
        ("PATCH", "/notes/api/notes/{noteId}", "app/api/notes/[noteId]/route.ts", "update", None),
        ("PUT", "/notes/api/notes/{noteId}", "app/api/notes/[noteId]/route.ts", "update", None),
        ("GET", "/notes/api/peek", "app/@modal/api/peek/route.ts", "GET", None),
        # an optional catch-all: the folder's path, and with the rest
        ("GET", "/notes/docs", "app/docs/[[...slug]]/route.ts", "GET", None),
        ("GET", "/notes/docs/{...slug}", "app/docs/[[...slug]]/route.ts", "GET", None),
    ]


def test_route_spans_handlers_and_the_base_path_step():
    files = split(NEXT)
    got = composed(NEXT)
    put = next(c for c in got if c.method == "PUT")
    src = files[put.file].encode()
    assert src[put.route.handler_span.start:put.route.handler_span.end] == b"update"
    assert [(s.text, s.file, s.kind) for s in put.steps] == [
        ("/notes", "next.config.mjs", "mount"), ("/api/notes/{noteId}", put.file, "route")]
    base = put.steps[0].span
    assert files["next.config.mjs"].encode()[base.start:base.end] == b"'/notes'"


def test_src_app_a_base_path_that_is_not_a_literal_and_no_package_json():
    fixture = """
//- web/next.config.js
module.exports = { basePath: process.env.BASE_PATH, reactStrictMode: true };
//- web/src/app/api/ping/route.ts
export const GET = () => new Response('pong');
"""
    assert table(fixture) == [
        ("GET", "/api/ping", "web/src/app/api/ping/route.ts", "GET", "basePath in web/next.config.js is not a literal"),
    ]


def test_route_files_of_a_project_that_is_not_next_give_nothing():
    fixture = """
//- package.json
{ "name": "tools", "dependencies": { "express": "^4.19.0" } }
//- app/api/users/route.ts
export async function GET() {}
//- pages/api/x.ts
export default function handler() {}
//- src/routes/api/+server.ts
export function GET() {}
//- server/api/users.get.ts
export default defineEventHandler(() => []);
"""
    assert table(fixture) == []


KIT = """
//- package.json
{ "name": "board", "devDependencies": { "@sveltejs/kit": "^2.5.0", "@sveltejs/adapter-node": "^5.0.0" } }
//- svelte.config.js
import adapter from '@sveltejs/adapter-node';
const config = { kit: { adapter: adapter(), files: { routes: 'src/pages' } } };
export default config;
//- src/pages/api/cards/+server.ts
import { json } from '@sveltejs/kit';
export async function GET() { return json([]); }
export const POST = async ({ request }) => json(await request.json());
//- src/pages/api/cards/[cardId=integer]/+server.ts
export function DELETE() { return new Response(null, { status: 204 }); }
export function fallback() { return new Response(null, { status: 405 }); }
//- src/pages/(app)/api/[[lang]]/hello/+server.js
export function GET() { return new Response('hi'); }
//- src/pages/files/[...rest]/+server.ts
export function GET() { return new Response(null); }
//- src/pages/api/+page.server.ts
export function load() { return {}; }
//- src/routes/api/old/+server.ts
export function GET() {}
"""


def test_sveltekit_server_files_under_kit_files_routes():
    assert table(KIT) == [
        ("GET", "/api/cards", "src/pages/api/cards/+server.ts", "GET", None),
        ("POST", "/api/cards", "src/pages/api/cards/+server.ts", "POST", None),
        ("ANY", "/api/cards/{cardId}", "src/pages/api/cards/[cardId=integer]/+server.ts", "fallback", None),
        ("DELETE", "/api/cards/{cardId}", "src/pages/api/cards/[cardId=integer]/+server.ts", "DELETE", None),
        ("GET", "/api/hello", "src/pages/(app)/api/[[lang]]/hello/+server.js", "GET", None),
        ("GET", "/api/{lang}/hello", "src/pages/(app)/api/[[lang]]/hello/+server.js", "GET", None),
        # a rest parameter may be empty
        ("GET", "/files", "src/pages/files/[...rest]/+server.ts", "GET", None),
        ("GET", "/files/{...rest}", "src/pages/files/[...rest]/+server.ts", "GET", None),
    ]


def test_a_svelte_config_without_sveltekit_gives_no_routes():
    fixture = """
//- svelte.config.js
import { vitePreprocess } from '@sveltejs/vite-plugin-svelte';
export default { preprocess: vitePreprocess() };
//- src/routes/api/+server.ts
export function GET() {}
"""
    assert table(fixture) == []


NUXT = """
//- package.json
{ "name": "shop", "private": true, "devDependencies": { "nuxt": "^3.11.0" } }
//- nuxt.config.ts
export default defineNuxtConfig({
  devtools: { enabled: true },
  app: { baseURL: '/shop/' },
});
//- server/api/products/index.get.ts
export default defineEventHandler(async () => []);
//- server/api/products/index.post.ts
export default defineEventHandler(async (event) => readBody(event));
//- server/api/products/[slug].get.ts
export default defineEventHandler((event) => getRouterParam(event, 'slug'));
//- server/api/cart.ts
export default defineEventHandler(() => ({}));
//- server/api/proxy/[...path].ts
export default defineEventHandler(() => null);
//- server/routes/sitemap.xml.get.ts
export default defineEventHandler(() => '<urlset/>');
//- server/utils/db.ts
export const db = {};
//- server/api/helpers.ts
export function notAHandler() {}
"""


def test_nuxt_server_api_and_routes_under_the_app_base_url():
    assert table(NUXT) == [
        ("ANY", "/shop/api/cart", "server/api/cart.ts", None, None),
        ("GET", "/shop/api/products", "server/api/products/index.get.ts", None, None),
        ("POST", "/shop/api/products", "server/api/products/index.post.ts", None, None),
        ("GET", "/shop/api/products/{slug}", "server/api/products/[slug].get.ts", None, None),
        ("ANY", "/shop/api/proxy/{...path}", "server/api/proxy/[...path].ts", None, None),
        ("GET", "/shop/sitemap.xml", "server/routes/sitemap.xml.get.ts", None, None),
    ]


def test_nuxt_src_dir_picks_the_server_folder_that_has_files():
    fixture = """
//- nuxt.config.ts
export default defineNuxtConfig({ srcDir: 'client/' });
//- client/server/api/me.get.ts
export default defineEventHandler(() => ({}));
"""
    assert table(fixture) == [("GET", "/api/me", "client/server/api/me.get.ts", None, None)]
    both = fixture + "//- server/api/other.get.ts\nexport default defineEventHandler(() => 1);\n"
    assert table(both) == []  # which folder is served is not known: no route
    apps = file_apps(split(both), split(both).get)
    assert apps[0].unresolved.startswith("both client/server/ and server/ have server routes")


def test_a_next_app_known_only_from_package_json():
    fixture = """
//- site/package.json
{ "name": "site", "dependencies": { "next": "15.0.0" } }
//- site/app/api/hello/route.ts
export function GET() { return Response.json({ hello: 'world' }); }
"""
    assert table(fixture) == [("GET", "/api/hello", "site/app/api/hello/route.ts", "GET", None)]


def test_which_changes_make_the_file_routes_composed_again():
    from specward.analyzers.routes_files import is_input

    files = split(NEXT)
    apps = file_apps(files, files.get)
    assert is_input("app/api/new/route.ts", apps) and is_input("pages/api/legacy/[id].ts", apps)
    assert is_input("next.config.mjs", apps) and is_input("package.json", apps)
    assert not is_input("components/Button.tsx", apps) and not is_input("lib/db.ts", apps)


def test_sveltekit_form_actions_are_a_post_on_the_page_url():
    fixture = """
//- package.json
{ "name": "quiz", "devDependencies": { "@sveltejs/kit": "^2.5.0" } }
//- src/routes/play/[round]/+page.server.ts
import type { Actions, PageServerLoad } from './$types';
export const load: PageServerLoad = async () => ({ score: 0 });
export const actions: Actions = {
  guess: async ({ request }) => ({ ok: true }),
  skip: async () => ({ ok: true }),
};
//- src/routes/(shop)/cart/+page.server.js
const checkout = async () => ({});
export const actions = { default: checkout };
//- src/routes/about/+page.server.ts
export const load = () => ({ title: 'About' });
//- src/routes/about/+page.ts
export const actions = {};
"""
    assert table(fixture) == [
        ("POST", "/cart", "src/routes/(shop)/cart/+page.server.js", "actions", None),
        ("POST", "/play/{round}", "src/routes/play/[round]/+page.server.ts", "actions", None),
    ]
