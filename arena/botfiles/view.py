"""What a sandbox shows a program, found before anything runs: the bot's directory, the allowed
installations, the program as the sandbox runs it and the PATH inside (``layout_of``); a program
outside that view is refused (``check_visible``), with one line saying what to do.

``arena.bots.sandbox`` mounts exactly this view when it runs bubblewrap; plans, check-bot and
builds check a command against it first, so a refusal comes before any build or game.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from arena.botfiles.installations import allowed_installations, path_inside, program_inside
from arena.errors import ConfigError
from arena.values.sandbox_settings import Sandbox


@dataclass(frozen=True)
class Layout:
    """What a bot's sandbox shows of the host: the bot's directory and the allowed installations
    (absolute paths), the argv to run inside (the program resolved) and the PATH inside."""

    bot_dir: str
    installations: tuple[str, ...]
    argv: tuple[str, ...]
    path: str


def layout_of(sandbox: Sandbox, argv: Sequence[str], cwd: str | os.PathLike[str] | None,
              bot_dir: str | None = None) -> Layout:
    """What ``argv`` started in ``cwd`` sees in ``sandbox``; ConfigError when its program is
    outside that view (``program_inside``). ``bot_dir`` overrides the bot directory (a build
    command's argv names the compiler, not the bot); else the sandbox's ``bot_dir``; else the
    one found from ``argv``."""
    here = os.path.abspath(cwd if cwd is not None else os.getcwd())
    chosen = bot_dir if bot_dir is not None else sandbox.bot_dir
    directory = (bot_directory(argv, here) if chosen is None
                 else os.path.abspath(os.path.join(here, chosen)))
    present = tuple(root for root in allowed_installations(sandbox.interpreters)
                    if os.path.isdir(root))
    program = program_inside(argv, here, directory, present)
    path = path_inside(os.environ.get("PATH", "/usr/bin:/bin"), present)
    return Layout(directory, present, (program, *argv[1:]), path)


def check_visible(sandbox: Sandbox, argv: Sequence[str], cwd: str | os.PathLike[str] | None,
                  where: str, bot_dir: str | None = None) -> None:
    """ConfigError ``WHERE: names ...`` when ``argv``'s program is outside ``sandbox``'s view."""
    try:
        layout_of(sandbox, argv, cwd, bot_dir)
    except ConfigError as error:
        raise ConfigError(f"{where}: {error}") from None


def bot_directory(argv: Sequence[str], here: str) -> str:
    """The directory of the bot ``argv`` runs in the directory ``here`` (absolute).

    That of the first argument naming an existing file (the script: ``python3 bots/x/bot.py`` ->
    ``bots/x``), else that of the program when it is given as a path (``./random_bot``), else
    ``here``.
    """
    for word in argv[1:]:
        if not word.startswith("-") and os.path.isfile(os.path.join(here, word)):
            return os.path.dirname(os.path.abspath(os.path.join(here, word)))
    if "/" in argv[0]:
        return os.path.dirname(os.path.abspath(os.path.join(here, argv[0])))
    return here
