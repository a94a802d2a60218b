"""A bot that plays a random legal action every time: the baseline the others break from."""

from _protocol import serve

serve()
