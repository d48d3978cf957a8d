"""The opt-in registry check: does a package name exist on the npm registry or PyPI at all?

Asked only for imports that are neither declared nor installed (``analyzers.registry_rule``
chooses the names), only when the user turned the check on (a user or editor setting, or
``--registry-check``: never a workspace file, never an untrusted workspace; the caller
decides). See ``docs/registry-check.md``.

What is sent: one ``GET`` per name, carrying the name and nothing else (no cookies, no
credentials, a ``specward/<version>`` User-Agent); proxies from the environment are used
as ``urllib`` does. The answers:

- 404: the name does not exist (``False``), cached;
- 200: it exists (``True``), cached; a redirect is followed only on the same host (PyPI
  sends a name spelt otherwise than the project's to its own spelling);
- anything else (another status, a timeout, a refused connection, a proxy error): unknown
  (``None``), never cached, never a finding. After a failure to reach a registry it is not
  asked again for ``retry_after`` seconds (offline: one timeout, then quiet).

The cache is ``<workspace>/.specward/registry.json``: entries with the time they were
checked and when they expire (``ttl_days``), written atomically (a temporary file, then
``os.replace``). A corrupt file is a log line and an empty cache. Nothing is written (or
read) through a ``.specward`` or a ``registry.json`` that is a link, or anywhere outside
the workspace.
"""

from __future__ import annotations

import http.client
import json
import logging
import os
import secrets
import stat
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from specward.analyzers.registry_rule import ECOSYSTEMS, is_registry_name
from specward.server.engine.reading import is_within, real_root

log = logging.getLogger(__name__)

NPM_REGISTRY_ENV = "SPECWARD_NPM_REGISTRY"  # user-level overrides of the registries' URLs
PYPI_URL_ENV = "SPECWARD_PYPI_URL"
CACHE_NAME = "registry.json"
CACHE_VERSION = 1
MAX_CACHE_BYTES = 4 << 20  # a bigger file is not read (and is replaced on the next write)
MAX_ENTRIES = 20_000  # the oldest entries go first beyond this
CLOCK_SKEW_S = 300.0  # an entry checked further in the future than this is not trusted


def _version() -> str:
    try:
        from importlib.metadata import version
        return version("specward")
    except Exception:  # not installed as a distribution (a checkout on sys.path)
        return "0"


USER_AGENT = f"specward/{_version()}"


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urllib.parse.urlsplit(url)
    return parts.scheme, (parts.hostname or "").lower(), parts.port


class _SameOriginRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is followed only to the same scheme, host and port (PyPI answers a name
    that is not the project's own spelling with a 301 to it: ``/pypi/django/json`` goes to
    ``/pypi/Django/json``). Another host was not chosen by the user: that 3xx is "unknown"."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        if _origin(newurl) != _origin(req.full_url):
            return None
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _opener() -> urllib.request.OpenerDirector:
    # build_opener's defaults: the environment's proxies (ProxyHandler), HTTP(S); no cookie
    # processor and no authentication handler are ever added
    return urllib.request.build_opener(_SameOriginRedirect())


def _base_url(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"registry URL must be http(s)://host[/path]: {url!r}")
    if parts.username is not None or parts.password is not None or parts.query or parts.fragment:
        raise ValueError(f"registry URL must carry no credentials, query or fragment: {url!r}")
    return url.rstrip("/")


class RegistryCheck:
    """Asks the npm registry and PyPI whether names exist, and remembers the answers.

    ``known`` answers from the cache only (never the network: it is cheap enough for every
    analysis of a file); ``ask_many`` asks the registries for the names not in the cache,
    at most ``max_names`` per call and ``concurrency`` at a time, each request bounded by
    ``timeout`` seconds. ``persist=False`` keeps the cache in memory (``--no-cache``).
    Thread-safe."""

    def __init__(self, root: Path, npm_url: str = "https://registry.npmjs.org", pypi_url: str = "https://pypi.org",
                 timeout: float = 5.0, ttl_days: float = 7, *, concurrency: int = 4, max_names: int = 64,
                 retry_after: float = 60.0, persist: bool = True) -> None:
        self.root = Path(root)
        self.urls = {"npm": _base_url(npm_url), "pypi": _base_url(pypi_url)}
        self.timeout = timeout
        self.ttl = ttl_days * 86400.0
        self.concurrency = max(1, concurrency)
        self.max_names = max(0, max_names)
        self.retry_after = retry_after
        self.persist = persist
        self.path = self.root / ".specward" / CACHE_NAME
        self._lock = threading.RLock()
        self._entries: dict[str, dict] | None = None  # loaded on first use
        self._down_until: dict[str, float] = {}  # ecosystem -> monotonic time to ask again
        self._opener = _opener()
        self.requests = 0  # requests sent (for logs and tests)

    @classmethod
    def from_environment(cls, root: Path, environ: Mapping[str, str] | None = None, **kwargs) -> RegistryCheck:
        """A check whose registries may be replaced by the user's environment (a company
        mirror, a test's local server): ``SPECWARD_NPM_REGISTRY`` and ``SPECWARD_PYPI_URL``.
        Never from a workspace file."""
        env = os.environ if environ is None else environ
        for var, arg in ((NPM_REGISTRY_ENV, "npm_url"), (PYPI_URL_ENV, "pypi_url")):
            if env.get(var):
                kwargs.setdefault(arg, env[var])
        return cls(root, **kwargs)

    # ------------------------------------------------------------------ answers
    def known(self, ecosystem: str, name: str) -> bool | None:
        """What the cache says about ``name`` (as ``registry_name`` gives it): True (exists),
        False (the registry answered that it does not), None (not known yet)."""
        if ecosystem not in ECOSYSTEMS:
            return None
        with self._lock:
            entry = self._load().get(_key(ecosystem, name))
            if entry is None or not self._fresh(entry, time.time()):
                return None
            return entry["exists"]

    def ask(self, ecosystem: str, name: str) -> bool | None:
        return self.ask_many([(ecosystem, name)]).get((ecosystem, name))

    def ask_many(self, pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], bool | None]:
        """The answer for each (ecosystem, name): from the cache when fresh, else asked (at
        most ``max_names`` names a call; the others stay None until a later call). A name
        that is not valid for its registry is None and never asked."""
        answers: dict[tuple[str, str], bool | None] = {}
        todo: list[tuple[str, str]] = []
        for ecosystem, name in pairs:
            if (ecosystem, name) in answers:
                continue
            cached = self.known(ecosystem, name)
            answers[(ecosystem, name)] = cached
            if cached is None and is_registry_name(ecosystem, name):
                todo.append((ecosystem, name))
        if len(todo) > self.max_names:
            log.info("registry check: %d names to ask, asking %d now", len(todo), self.max_names)
            todo = todo[:self.max_names]
        if not todo:
            return answers
        if len(todo) == 1:
            results = [self._ask_one(*todo[0])]
        else:
            with ThreadPoolExecutor(max_workers=min(self.concurrency, len(todo)),
                                    thread_name_prefix="specward-registry") as pool:
                results = list(pool.map(lambda pair: self._ask_one(*pair), todo))
        now = time.time()
        fresh: dict[str, dict] = {}
        for (ecosystem, name), exists in zip(todo, results):
            answers[(ecosystem, name)] = exists
            if exists is not None:
                fresh[_key(ecosystem, name)] = {"exists": exists, "checked": now, "expires": now + self.ttl}
        if fresh:
            self._store(fresh)
        return answers

    # ------------------------------------------------------------------ HTTP
    def url_for(self, ecosystem: str, name: str) -> str:
        """The URL asked for ``name``: npm's ``{registry}/{name}`` with a scope's slash
        encoded (``@scope%2fname``, as the registry expects); PyPI's JSON API under the
        normalized name."""
        if ecosystem == "npm":
            return f"{self.urls['npm']}/{urllib.parse.quote(name, safe='@').replace('%2F', '%2f')}"
        return f"{self.urls['pypi']}/pypi/{urllib.parse.quote(name, safe='')}/json"

    def _ask_one(self, ecosystem: str, name: str) -> bool | None:
        with self._lock:
            if time.monotonic() < self._down_until.get(ecosystem, 0.0):
                return None
            self.requests += 1
        headers = {"User-Agent": USER_AGENT}
        headers["Accept"] = "application/vnd.npm.install-v1+json" if ecosystem == "npm" else "application/json"
        request = urllib.request.Request(self.url_for(ecosystem, name), headers=headers, method="GET")
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                status = response.status  # the body is not needed (nor read)
        except urllib.error.HTTPError as exc:
            status = exc.code
            exc.close()
        except (OSError, ValueError, http.client.HTTPException) as exc:  # URLError, timeouts, refused, bad proxy
            with self._lock:
                self._down_until[ecosystem] = time.monotonic() + self.retry_after
            log.info("registry check: %s unreachable (%s): %s unknown; not asked again for %.0f s",
                     self.urls[ecosystem], getattr(exc, "reason", exc), name, self.retry_after)
            return None
        except Exception as exc:  # noqa: BLE001 - an answer urllib cannot read is unknown, never a crash
            log.info("registry check: %s gave no usable answer for %s (%r): unknown", self.urls[ecosystem], name, exc)
            return None
        if status == 200:
            return True
        if status == 404:
            return False
        if status == 429:  # asked to slow down: not asked again for a while
            with self._lock:
                self._down_until[ecosystem] = time.monotonic() + self.retry_after
        log.info("registry check: %s answered %s for %s: unknown", self.urls[ecosystem], status, name)
        return None

    # ------------------------------------------------------------------ cache
    def _fresh(self, entry: dict, now: float) -> bool:
        checked = entry["checked"]
        if checked > now + CLOCK_SKEW_S:
            return False
        return now < min(entry["expires"], checked + self.ttl)

    def _load(self) -> dict[str, dict]:
        if self._entries is None:
            self._entries = self._read() if self.persist else {}
        return self._entries

    def _open_dir(self, create: bool) -> int | None:
        """A descriptor of ``.specward`` when it is a real folder of the workspace (created
        when asked), opened without following a link; None otherwise. Every read and write
        of the cache goes through it, so a ``.specward`` swapped for a link afterwards is
        not followed either."""
        folder = self.path.parent
        if create and not os.path.lexists(folder):
            try:
                folder.mkdir()
            except FileExistsError:
                pass
            except OSError as exc:
                log.warning("registry cache %s cannot be created (%s): answers kept in memory", folder, exc)
                return None
        if not os.path.lexists(folder):
            return None
        root = real_root(str(self.root))
        real = os.path.realpath(folder)
        if folder.is_symlink() or real != os.path.join(root, folder.name) or not is_within(real, root):
            log.warning("registry cache not used: %s is a link (to %s)", folder, real)
            return None
        try:
            return os.open(folder, os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW)
        except OSError as exc:  # not a folder, or a link put there meanwhile
            log.warning("registry cache not used: %s cannot be opened as a folder (%s)", folder, exc)
            return None

    def _read(self) -> dict[str, dict]:
        folder = self._open_dir(create=False)
        if folder is None:
            return {}
        try:
            return self._read_in(folder)
        finally:
            os.close(folder)

    def _read_in(self, folder: int) -> dict[str, dict]:
        try:
            fd = os.open(CACHE_NAME, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0), dir_fd=folder)
        except FileNotFoundError:
            return {}
        except OSError as exc:  # a link (ELOOP), no permission
            log.warning("registry cache %s not read (%s): starting empty", self.path, exc)
            return {}
        try:
            with os.fdopen(fd, "rb") as f:
                if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                    log.warning("registry cache %s is not a regular file: starting empty", self.path)
                    return {}
                data = f.read(MAX_CACHE_BYTES + 1)
        except OSError as exc:
            log.warning("registry cache %s not read (%s): starting empty", self.path, exc)
            return {}
        if len(data) > MAX_CACHE_BYTES:
            log.warning("registry cache %s is larger than %d bytes: starting empty", self.path, MAX_CACHE_BYTES)
            return {}
        try:
            doc = json.loads(data.decode("utf-8"))
            if not isinstance(doc, dict) or doc.get("version") != CACHE_VERSION or not isinstance(doc.get("entries"), dict):
                raise ValueError("not a specward registry cache")
        except (ValueError, UnicodeDecodeError) as exc:
            log.warning("registry cache %s is corrupt (%s): starting empty", self.path, exc)
            return {}
        return {k: e for k, e in doc["entries"].items() if _valid_entry(k, e)}

    def _store(self, fresh: dict[str, dict]) -> None:
        with self._lock:
            entries = self._load()
            entries.update(fresh)
            if not self.persist:
                return
            folder = self._open_dir(create=True)
            if folder is None:
                return
            try:
                # another process may have written since this one read: its answers are kept
                now = time.time()
                merged = {k: e for k, e in self._read_in(folder).items() if self._fresh(e, now)}
                merged.update({k: e for k, e in entries.items() if self._fresh(e, now)})
                if len(merged) > MAX_ENTRIES:
                    merged = dict(sorted(merged.items(), key=lambda kv: kv[1]["checked"])[-MAX_ENTRIES:])
                self._entries = merged
                _write_ignore(folder)
                self._write(folder, json.dumps({"version": CACHE_VERSION, "entries": merged}, sort_keys=True,
                                               indent=0))
            finally:
                os.close(folder)

    def _write(self, folder: int, text: str) -> None:
        tmp = f".{CACHE_NAME}.{os.getpid()}.{secrets.token_hex(6)}.tmp"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644, dir_fd=folder)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    f.write(text)
                # os.replace puts the file in place of a link too: it never writes through one
                os.replace(tmp, CACHE_NAME, src_dir_fd=folder, dst_dir_fd=folder)
            except BaseException:
                _unlink(tmp, folder)
                raise
        except OSError as exc:
            log.warning("registry cache %s cannot be written (%s): answers kept in memory", self.path, exc)


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _write_ignore(folder: int) -> None:
    """``.specward/.gitignore`` (``*``), as the facts cache writes it, when it is missing."""
    try:
        fd = os.open(".gitignore", os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644, dir_fd=folder)
    except OSError:  # there already (or a link: left alone), or not writable
        return
    with os.fdopen(fd, "w") as f:
        f.write("*\n")


def _key(ecosystem: str, name: str) -> str:
    return f"{ecosystem}:{name}"


def _valid_entry(key: object, entry: object) -> bool:
    if not isinstance(key, str) or key.split(":", 1)[0] not in ECOSYSTEMS or not isinstance(entry, dict):
        return False
    return (isinstance(entry.get("exists"), bool)
            and all(isinstance(entry.get(f), (int, float)) and not isinstance(entry.get(f), bool)
                    for f in ("checked", "expires")))


def _unlink(name: str, folder: int) -> None:
    try:
        os.unlink(name, dir_fd=folder)
    except OSError:
        pass
