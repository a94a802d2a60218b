#!/bin/sh
# A hard link to a file outside the bot: stored, it would be that file.
ln "$1" stolen
