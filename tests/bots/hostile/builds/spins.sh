#!/bin/sh
while :; do :; done
