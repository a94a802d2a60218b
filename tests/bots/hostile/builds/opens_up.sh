#!/bin/sh
# What a stored bot must not keep: a directory and a file everyone may write, a set-gid directory.
mkdir -p open && echo data > open/file && chmod 2777 open && chmod 666 open/file
