"""Results lines (``games.jsonl``, docs/records.md): their one owner, low in the arena's layers.

- ``schema``: every field of a line, its type, the format since which every line has it and what
  it means, declared once as data; ``FORMAT``, the format written now.
- ``result``: the ``result`` object the ratings read: made (``result_of``) and checked.
- ``writer``: the record the referee returns, the line a worker sends, serialised once, and
  the runner's view of it (``finished_of``).
- ``upgrade``: every line of an older format in the current one (every "from before X existed"
  rule for records is there).
- ``check``: what a line must hold, after its upgrade.
- ``reader``: the one reader of results files: parse, upgrade, check.
- ``visible``: what of a record a viewer may see (a bot's stderr: its owner's and the organiser's).

It imports only the engine and the arena's shared values (``arena.settings``, ``arena.errors``,
``arena.values``: the faults a line records, the game ids it names, the finished game it
makes), so the referee, executors, runs, ratings, report and league all use it.
"""
