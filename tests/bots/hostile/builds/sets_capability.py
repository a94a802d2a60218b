"""Copies the python running it to the file named by its argument and gives the copy a file
capability (CAP_NET_RAW, effective and permitted), as root can: the kernel grants it to whoever
runs the copy."""

import os
import shutil
import struct
import sys

CAP_NET_RAW = 13
VFS_CAP_REVISION_2 = 0x02000000
VFS_CAP_FLAGS_EFFECTIVE = 0x000001
shutil.copy(os.path.realpath(sys.executable), sys.argv[1])
data = struct.pack("<5I", VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE, 1 << CAP_NET_RAW, 0, 0, 0)
os.setxattr(sys.argv[1], "security.capability", data)
