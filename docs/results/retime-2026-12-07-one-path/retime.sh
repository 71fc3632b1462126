#!/usr/bin/env bash
# README's figures timed again after the writers' whole-leaf loads ahead (ea35650) and the one write path (7b99e77):
# the same runs as 2026-12-06's script (the six, tuple keys at 1 to 64 subspaces plain and settled, the golden bank capture).
exec "$(dirname "$0")/../retime-2026-12-06/retime.sh"
