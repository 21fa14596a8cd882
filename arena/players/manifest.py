"""Bot manifests (``bot.yaml``) and bot identity.

A bot is identified by its name *and* a digest of its folder's files, so a
result can always be traced to the exact code that produced it, and a
changed bot is a new entry even if its author forgot to bump the version.
"""

from __future__ import annotations

import atexit
import difflib
import errno
import hashlib
import importlib.util
import shutil
import tempfile
from collections.abc import Sequence
import os
import re
import stat
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .._json import JsonObject
from ..engine import profile_names
from ..sandbox import Limits
from ..sandbox.files import FolderRefused, copy_listing, read_chunks, walk_folder
from .yamlerrors import describe, load_yaml, yaml_problem

MANIFEST_NAME = "bot.yaml"
#: Largest bot.yaml read: checked on the open file before a byte is read (a manifest is a few lines).
MAX_MANIFEST_BYTES = 64 * 1024
#: Harness libraries a bot may ask for, by the package it imports. Both ship
#: with the installed harness (the SDK as the ``cinch_bot`` package), so
#: nothing is read from a source checkout.
LIBRARY_PACKAGES = {"sdk": "cinch_bot", "engine": "arena.engine"}
LIBRARIES = tuple(LIBRARY_PACKAGES)
#: Overrides of a library's folder (tests point one at a changed copy).
LIBRARY_PATHS: dict[str, Path] = {}
_PROFILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


class Manifest(BaseModel):
    """What a bot author writes in ``bot.yaml``."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")
    version: str = Field("0", max_length=64)
    command: list[str] = Field(min_length=1, description="argv, run in the bot folder; {python} is the harness's interpreter")
    libraries: list[Literal["sdk", "engine"]] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict, description="extra environment variables")
    programs: list[str] = Field(
        default_factory=list, max_length=16,
        description="programs on the sandbox's PATH the bot runs besides its command (a launcher script's "
                    "`java`): at sandbox level gvisor, whose view holds only the runtimes a bot needs, theirs join it")
    limits: Limits | None = None
    profiles: list[str] | None = Field(
        None, description="rule profiles the bot plays (by name); omitted: every profile")
    description: str = ""

    @field_validator("programs")
    @classmethod
    def _program_names(cls, v: list[str]) -> list[str]:
        for name in v:
            if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.+-]*", name):
                raise ValueError(f"{name!r}: a program is named as on PATH (letters, digits, '.', '_', '+', '-'), not by a path")
        return v

    @field_validator("profiles")
    @classmethod
    def _profile_names(cls, v: list[str] | None) -> list[str] | None:
        if v is not None:
            if not v:
                raise ValueError("an empty list would refuse every game: list at least one profile, or omit the field")
            if len(set(v)) != len(v):
                raise ValueError("each profile name once")
            if any(not _PROFILE_NAME.fullmatch(n) for n in v):
                raise ValueError("profile names are letters, digits, '.', '_' and '-'")
        return v

    def plays(self, profile: str) -> bool:
        """Whether the author says the bot plays the rule profile named ``profile``."""
        return self.profiles is None or profile in self.profiles

    @field_validator("command")
    @classmethod
    def _no_empty(cls, v: list[str]) -> list[str]:
        if any(not a for a in v):
            raise ValueError("command arguments must be non-empty strings")
        if len(v) > 256 or sum(len(a) for a in v) > 64 * 1024:
            raise ValueError("command is too long (at most 256 arguments, 64 KiB)")
        return v

    @field_validator("env")
    @classmethod
    def _small_env(cls, v: dict[str, str]) -> dict[str, str]:
        if len(v) > 64 or sum(len(k) + len(x) for k, x in v.items()) > 64 * 1024:
            raise ValueError("env is too large (at most 64 variables, 64 KiB)")
        if any(not k or "=" in k or "\0" in k + x for k, x in v.items()):
            raise ValueError("env names must be non-empty, without '=' or NUL")
        return v

    @field_validator("limits")
    @classmethod
    def _only_lower(cls, v: Limits | None) -> Limits | None:
        """A manifest may lower limits, never remove one (the ceiling is checked per competition)."""
        if v is not None:
            for name in sorted(v.model_fields_set):
                if getattr(v, name) is None:
                    raise ValueError(f"limits.{name}: null (no limit) is not allowed; a bot may only ask for less")
        return v


class BotEntry(BaseModel):
    """A manifest bound to a folder and its digest: one tournament entrant."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    manifest: Manifest
    dir: str
    digest: str = Field(description="identity: the folder's files and the libraries the bot uses")
    files_digest: str = Field("", description="the folder's files alone (what is shipped to workers)")
    refused: str | None = Field(None, description="why the harness refuses to read the folder (a link, a FIFO, "
                                "over a cap): the bot faults at every launch with this message")

    @property
    def name(self) -> str:
        return self.manifest.name

    @property
    def folder_digest(self) -> str:
        return self.files_digest or self.digest

    @property
    def ident(self) -> str:
        """Stable identity used to key pairings: name plus short digest."""
        return f"{self.manifest.name}@{self.digest[:12]}"


def library_path(lib: str) -> Path:
    """The installed folder of a harness library (its package directory)."""
    if lib in LIBRARY_PATHS:
        return LIBRARY_PATHS[lib]
    spec = importlib.util.find_spec(LIBRARY_PACKAGES[lib])
    if spec is None or not spec.submodule_search_locations:
        raise ManifestError(f"library {lib!r} ({LIBRARY_PACKAGES[lib]}) is not installed with this harness")
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def library_root(lib: str) -> Path:
    """The folder to put on a bot's import path so ``import <package>`` finds the library."""
    return library_path(lib).parents[LIBRARY_PACKAGES[lib].count(".")]


def folder_digest(folder: str | os.PathLike[str], built: bool = True) -> str:
    """SHA-256 over every file's relative path and bytes, in sorted order.

    The folder is walked as hostile input (`arena.sandbox.files.walk_folder`:
    no links, no special files, capped); caches (`__pycache__`, `*.pyc`,
    `.git`) are left out, and the sandbox hides them from the bot, so the
    digest covers every byte the bot can read. FolderRefused if refused.
    ``built`` False (a harness library): an extension module built from a C
    source beside it is covered by that source (``built_from_source``), so a
    library's digest is the same on every machine that builds it.
    """
    h = hashlib.sha256()
    listing = walk_folder(folder)
    names = {rel for rel, _, _ in listing.files}
    for rel, path, size in listing.files:
        if not built and built_from_source(rel, names):
            continue
        h.update(os.fsencode(rel) + b"\0" + str(size).encode() + b"\0")
        for chunk in read_chunks(path, size):
            h.update(chunk)
    for rel in listing.empty_dirs:  # a folder with no file: its name is all it holds
        h.update(os.fsencode(rel) + b"/\0folder\0")
    for rel, text in listing.links:  # a link is its target's text (folders without links: as before)
        h.update(os.fsencode(rel) + b"\0link\0" + os.fsencode(text) + b"\0")
    return h.hexdigest()


def file_digests(folder: str | os.PathLike[str]) -> dict[str, str]:
    """SHA-256 of each file, by relative path: what tells a person which files of a bot changed
    (none for a refused folder: its identity is the refusal)."""
    out: dict[str, str] = {}
    try:
        files = walk_folder(folder).files
    except FolderRefused:
        return out
    for rel, path, size in files:
        h = hashlib.sha256()
        for chunk in read_chunks(path, size):
            h.update(chunk)
        out[rel] = h.hexdigest()
    return out


def refused_digest(refusal: FolderRefused) -> str:
    """The identity of a refused folder: its refusal (it never runs, so no file is read)."""
    return hashlib.sha256(f"refused\0{refusal.reason}".encode()).hexdigest()


class ManifestError(ValueError):
    """A manifest that cannot be used; the message names the file and field."""


class ProfileRefused(ManifestError):
    """A bot whose manifest lists rule profiles, asked to play another one."""


def require_profile(entry: BotEntry, profile: str) -> None:
    """Refuse ``entry`` (before any game) unless its manifest admits ``profile``.

    The message names the bot, the profile asked for and the ones it lists
    (with the closest registered name for a listed one this harness does
    not know, which is most likely a typo).
    """
    listed = entry.manifest.profiles
    if listed is None or profile in listed:
        return
    known = profile_names()
    hints = []
    for name in listed:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            hints.append(f"{name!r} is not a profile of this harness" + (f" (did you mean {close[0]!r}?)" if close else ""))
    extra = f"; {'; '.join(hints)}" if hints else ""
    raise ProfileRefused(
        f"bot {entry.name!r} ({entry.dir}/{MANIFEST_NAME}) plays only the rule profiles {', '.join(listed)} "
        f"(its field profiles), not {profile!r}{extra}")


def load_entry(path: str | os.PathLike[str]) -> BotEntry:
    """Load a bot from its folder or its ``bot.yaml``."""
    p = Path(path)
    manifest_path = p / MANIFEST_NAME if p.is_dir() else p
    text, data = read_manifest(manifest_path)
    try:
        manifest = Manifest.model_validate(data)
    except ValidationError as e:  # every problem at once, with its line and the field a typo meant
        raise ManifestError("\n".join(describe(e, Manifest, str(manifest_path), text, data))) from None
    folder = manifest_path.parent.resolve()
    refused = None
    try:
        files = folder_digest(folder)
    except FolderRefused as e:  # the bot's own fault: it loads, and faults at every launch
        files, refused = refused_digest(e), str(e)
    return BotEntry(manifest=manifest, dir=str(folder), digest=identity_digest(files, manifest.libraries),
                    files_digest=files, refused=refused)


def read_manifest(manifest_path: Path) -> tuple[str, JsonObject]:
    """The text of a ``bot.yaml`` and its data, read as hostile input: a regular file (never through a
    link, never a FIFO), at most ``MAX_MANIFEST_BYTES`` (checked before reading), UTF-8, and YAML
    without aliases and at most ``strict_yaml.MAX_DEPTH`` deep. Any failure is a ManifestError naming
    the file: that entry's refusal, never the harness's crash."""
    try:
        fd = os.open(manifest_path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise ManifestError(f"{manifest_path}: no bot manifest (expected a folder with {MANIFEST_NAME})") from None
    except OSError as e:
        why = "a symbolic link" if e.errno == errno.ELOOP else e.strerror
        raise ManifestError(f"{manifest_path}: cannot be read ({why}); it must be a plain file") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ManifestError(f"{manifest_path}: no bot manifest (not a plain file; expected a folder with"
                                f" {MANIFEST_NAME})")
        if st.st_size > MAX_MANIFEST_BYTES:
            raise ManifestError(f"{manifest_path}: {st.st_size} bytes, over the limit of {MAX_MANIFEST_BYTES} for a"
                                " manifest")
        raw = os.read(fd, MAX_MANIFEST_BYTES + 1)
    finally:
        os.close(fd)
    if len(raw) > MAX_MANIFEST_BYTES:  # it grew since fstat
        raise ManifestError(f"{manifest_path}: over the limit of {MAX_MANIFEST_BYTES} bytes for a manifest")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ManifestError(f"{manifest_path}: not UTF-8 text (byte {e.start})") from None
    try:
        data: Any = load_yaml(text)
    except Exception as e:  # noqa: BLE001 - yaml errors, but also ValueError of an int over 4300 digits, a bad date
        raise ManifestError(f"{manifest_path}: not valid YAML: {yaml_problem(e)}") from None
    if not isinstance(data, dict):
        raise ManifestError(f"{manifest_path}: (top level): expected a mapping of fields (name, command, ...)")
    return text, data


def identity_digest(files: str, libraries: Sequence[str]) -> str:
    """A bot's identity: its files plus the library code it runs with.

    The libraries (the SDK, the engine) are mounted from the harness, so a
    change there changes the bot's play just as a change to its own files
    would. A bot that uses none keeps its folder digest.
    """
    if not libraries:
        return files
    h = hashlib.sha256(files.encode())
    for lib in sorted(set(libraries)):
        h.update(f"|{lib}:{folder_digest(library_path(lib), built=False)}".encode())
    return h.hexdigest()


#: A compiled extension module (``name.cpython-311-x86_64-linux-gnu.so``, ``name.abi3.so``).
_EXTENSION = re.compile(r"(?P<stem>(?:.*/)?[A-Za-z_][A-Za-z0-9_]*)\.(?:cpython-[^/]+|abi3)\.so")


def built_from_source(rel: str, names: set[str]) -> bool:
    """Whether ``rel`` is an extension module built from a C source beside it (``names``: the
    folder's relative paths): the SDK's solver core, which loads only when its compiled-in
    SHA-256 is its source's (cinch_bot.solver), so the source stands for it in an identity."""
    m = _EXTENSION.fullmatch(rel)
    return m is not None and f"{m.group('stem')}.c" in names


def command_entry(argv: list[str], name: str = "cli-bot", cwd: str | None = None) -> BotEntry:
    """An ad-hoc entry for ``arena check-bot -- COMMAND``.

    The bot sees only what its command names: every argument that is a file
    or folder (relative to ``cwd``) is copied into a private folder of its
    own and the argument rewritten to the copy, which becomes the bot's
    folder. The working folder itself (a checkout with its ``runs/``) is
    never bound. The digest covers the command and the copied files.
    """
    folder = Path(cwd or os.getcwd()).resolve()
    stage = Path(tempfile.mkdtemp(prefix="cinch-check-bot-"))
    stage.chmod(0o755)
    atexit.register(shutil.rmtree, stage, True)
    h = hashlib.sha256("\0".join(argv).encode())
    out: list[str] = []
    for i, arg in enumerate(argv):
        src = (folder / arg).resolve()
        inside = src != folder and folder in src.parents  # never the folder itself or outside it
        if os.path.isabs(arg) or (i == 0 and "/" not in arg) or not inside or not (src.is_file() or src.is_dir()):
            out.append(arg)
            continue
        dst = stage / str(i) / src.name
        dst.parent.mkdir(mode=0o755)
        try:
            if src.is_dir():
                copy_listing(walk_folder(src), dst)  # as hostile as a bot folder: no links, no FIFOs
            else:
                shutil.copy2(src, dst)
                dst.chmod(dst.stat().st_mode | 0o444)
        except FolderRefused as e:
            return BotEntry(manifest=Manifest(name=name, command=out + list(argv[i:])), dir=str(stage),
                            digest=refused_digest(e), files_digest=refused_digest(e), refused=str(e))
        h.update(folder_digest(dst.parent).encode())
        out.append(str(dst))
    return BotEntry(manifest=Manifest(name=name, command=out), dir=str(stage), digest=h.hexdigest())
