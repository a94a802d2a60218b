"""Connects to 127.0.0.1 on the port given as its argument and sends a line: the attack succeeds
if the connection is made (the test's server also checks that the line arrived)."""

import socket
import sys

from _hostile import report, serve

port = int(sys.argv[1])
try:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as connection:
        connection.sendall(b"hello from connects.py\n")
    report(True, f"connected to 127.0.0.1:{port}")
except OSError as error:
    report(False, f"127.0.0.1:{port}: {error.strerror or error}")
serve()
