"""``arena league serve``: a league its participants use from a browser, and a JSON API for scripts.

The server is a view over the league's library (docs/serve.md): the store, the submit pipeline,
the standings and the report's replay viewer. It owns two things of its own: the queue of uploaded
bots (``arena.serve.build_queue``, each built and checked by the submit pipeline in a child process)
and the child process that plays the league (``arena.serve.supervisor``: ``arena league run``).
"""
