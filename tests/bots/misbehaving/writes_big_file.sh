#!/bin/sh
# Answers hello, then on its first request becomes `head` writing 8 MiB into $TMPDIR: past a file
# size limit below that, the kernel kills it with SIGXFSZ. A shell bot, because Python ignores
# SIGXFSZ (a write past the limit fails with EFBIG there instead of killing the process).
read -r hello
echo '{"id":0,"name":"writes_big_file","protocol":1}'
read -r request
exec head -c 8388608 /dev/zero > "${TMPDIR:-/tmp}/writes_big_file.$$"
