"""The values the layers pass to each other, below every one of them: a bot's faults, the work
items plans produce and executors consume, and a sandbox's settings. Frozen values and the few
functions that make them; nothing here reads a file or starts a process."""
