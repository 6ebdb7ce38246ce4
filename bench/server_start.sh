#!/bin/sh
# One cold start of the termic server and its first answer: a throwaway
# HOME and data dir, `termic run --detach -- true` (the client starts the
# server and waits for its answer), then `termic server stop`. Time it from
# outside, A against B in one run, e.g. with the tool library's farm-bench:
#   farm-bench -n 20 -- bench/server_start.sh NEW_BIN --vs 'bench/server_start.sh OLD_BIN'
# usage: bench/server_start.sh BIN
set -eu
BIN=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export HOME="$TMP/home" TERMIC_DATA_DIR="$TMP/data" TERMIC_CONFIG_DIR="$TMP/config"
mkdir -p "$HOME" "$TERMIC_DATA_DIR" "$TERMIC_CONFIG_DIR"
"$BIN" run --detach -- true > /dev/null
"$BIN" server stop > /dev/null
