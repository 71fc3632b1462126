#!/usr/bin/env bash
# README's figures timed again after the read check's two changes of 2026-12-07 (03b81b3, 27cc288): the same set and
# commands as the 2026-12-06 run, so that script is run as it is. Output: retime.txt beside this file.
exec "$(dirname "$0")/../retime-2026-12-06/retime.sh" "$@"
