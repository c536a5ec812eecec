#!/usr/bin/env bash
# run.sh - runs every libFuzzer harness (build-fuzz/fuzz/fuzz_*) for SECONDS
# each, two at a time (one per core), starting from the seed corpus in
# tests/fuzz/corpus/NAME (read, never written) and keeping what it finds in
# build-fuzz/corpus/NAME. Prints, per harness, the executions, executions
# per second, coverage (edges) and features; a crash, leak or timeout
# fails the run and leaves its input in build-fuzz/artifacts/.
# Usage: tests/fuzz/run.sh SECONDS [NAME...]
# To grow the seeds from what a run found:
#   $PWD/build-fuzz/fuzz/NAME -merge=1 $PWD/tests/fuzz/corpus/NAME $PWD/build-fuzz/corpus/NAME (absolute paths:
#   the console harness changes directory)
set -u
secs=${1:?usage: tests/fuzz/run.sh SECONDS [NAME...]}
shift
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
    for f in build-fuzz/fuzz/fuzz_*; do [[ "$f" == *.d ]] || names+=("$(basename "$f")"); done
fi
mkdir -p build-fuzz/artifacts build-fuzz/logs
one() {
    local name=$1
    mkdir -p "build-fuzz/corpus/$name" "tests/fuzz/corpus/$name"
    "$root/build-fuzz/fuzz/$name" -max_total_time="$secs" -timeout=30 -rss_limit_mb=2560 -print_final_stats=1 \
        -artifact_prefix="$root/build-fuzz/artifacts/$name-" "$root/build-fuzz/corpus/$name" "$root/tests/fuzz/corpus/$name" \
        >"build-fuzz/logs/$name.log" 2>&1
    local rc=$?
    local runs cov ft
    runs=$(grep -ao "stat::number_of_executed_units: [0-9]*" "build-fuzz/logs/$name.log" | awk '{print $2}')
    cov=$(grep -aoE "cov: [0-9]+ ft: [0-9]+" "build-fuzz/logs/$name.log" | tail -1)
    if [ "$rc" -eq 0 ]; then
        echo "ok   $name: ${runs:-0} runs in ${secs} s ($(( ${runs:-0} / secs )) execs/s), ${cov:-no coverage line}"
    else
        echo "FAIL $name (exit $rc): see build-fuzz/logs/$name.log and build-fuzz/artifacts/"
        grep -a -m 3 -E "ERROR|SUMMARY|Test unit written" "build-fuzz/logs/$name.log" | sed 's/^/     /'
    fi
    return "$rc"
}
export -f one
export secs root
printf '%s\n' "${names[@]}" | xargs -P 2 -I{} bash -c 'one {}'
rc=$?
[ "$rc" -eq 0 ] && echo "fuzz: ${#names[@]} harnesses, no crash" || echo "fuzz: a harness failed"
exit "$rc"
