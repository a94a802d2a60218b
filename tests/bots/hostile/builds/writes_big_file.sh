#!/bin/sh
# One file of $1 MB; exec: the writer is the build's own process, so a signal ends the build.
exec head -c "$1"M /dev/zero > big
