"""How to play, not what is allowed: strategy over the rules engine, shared by the search bot and
``arena analyse``.

``sampling`` deals a seat's unseen cards as its view allows and plays a deal out greedily;
``bidding`` is the greedy starter bot's bidding, the samplers' model of how the other seats bid.
It depends on the engine alone and is held to the engine's discipline: no I/O, no clock,
randomness only from a ``random.Random`` it is handed (tests/test_purity.py). The search
bot imports it through the copy ``make bots`` puts next to it, beside the engine's
(bots/README.md).
"""
