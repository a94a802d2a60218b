"""``arena languages``: the languages whose programs are here, and whether each works sandboxed."""

from typing import Annotated

import typer

from arena import spec
from arena.cli.options import option
from arena.printable import printable


def languages_command(
    language: Annotated[list[str] | None, typer.Option(
        "--language", "-l", help="Try only this language (its short name: csharp, cpp, ruby...). "
                                 "Repeatable; default: every language.",
        show_default=False)] = None,
    interpreter: Annotated[list[str] | None, option(spec.INTERPRETERS)] = None,
) -> None:
    """List the languages a contest meets, the programs of each found on PATH, and whether each
    works in the bubblewrap sandbox.

    For each language found, a tiny bot in it (the first legal action, always) is built and
    started in the sandbox, as a league builds and runs a submission, and asked hello and one
    act. Without a working bwrap nothing is tried, and each line says why. Exit status 1 when a
    language found here fails in the sandbox.

    \b
    Examples:
      arena languages
      arena languages -l csharp -l cpp
      arena languages --interpreter /opt/pypy3
    """
    from arena.botfiles.installations import check_interpreters
    from arena.checkbot.languages import check_languages, chosen_languages, language_lines
    from arena.values.sandbox_settings import Sandbox

    chosen = chosen_languages(language or [])
    sandbox = Sandbox(interpreters=check_interpreters(interpreter or [], "--interpreter"))
    checks = []
    for check in check_languages(chosen, sandbox):
        for line in language_lines(check):
            typer.echo(printable(line))  # a failure quotes a compiler's output
        checks.append(check)
    if any(check.works is False for check in checks):
        raise typer.Exit(1)
