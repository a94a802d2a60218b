"""Why a bot lost: every decision of an entrant analysed against the reference search.

``evaluate`` values every legal action of one decision from the seat's view alone (determinized
samples of the unseen cards, greedy play-outs: ``strategy.sampling``); ``game`` replays a record with
the engine and evaluates each of a seat's decisions at the view it had; ``marks`` judges a loss;
``cache`` keeps analyses beside the results (``analysis.jsonl``); ``run`` analyses many games, in
parallel, with progress. docs/analysis.md says what the numbers mean.
"""
