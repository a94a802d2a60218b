#!/bin/sh
echo "sleeping"
exec sleep 600
