#!/bin/sh
# A set-uid copy of the system's python: run by any host user, it would have the build's rights.
cp "$(command -v python3)" py && chmod 4755 py
