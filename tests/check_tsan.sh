#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check-tsan: a ThreadSanitizer build of libibex, ibexrun, softib and the threaded tests
# in its own directory (a copy of the sources, so the main build is untouched), then
# tests/mpi/threads.sh on it. A TSan report makes the reporting process exit 66, which fails
# its case. tests/tsan.supp silences races inside libpmix's own threads (the PMIx server in
# ibexrun), which are not Ibex's.
# Usage (from the build directory): tests/check_tsan.sh [DIR]   (default: ./tsan-build)
set -u
src=$(cd "${top_srcdir:-.}" && pwd)
dir=${1:-./tsan-build}
mkdir -p "$dir" && dir=$(cd "$dir" && pwd) || exit 2
if [ ! -f "$dir/Makefile" ]; then
    echo "check-tsan: copying the sources to $dir and configuring with -fsanitize=thread"
    # the sources only: git's list of them (tracked and new files), never the build's outputs
    (cd "$src" && git ls-files -co --exclude-standard | grep -v '^tsan-build/' |
        tar cf - -T -) | (cd "$dir" && tar xf -) ||
        { echo "check-tsan: needs a git checkout of the sources"; exit 2; }
    (cd "$dir" && autoreconf -fi >/dev/null 2>&1 &&
        ./configure -q CFLAGS="-fsanitize=thread -g -O1" LDFLAGS="-fsanitize=thread") ||
        { echo "check-tsan: configure failed"; exit 1; }
fi
echo "check-tsan: building (a few minutes)"
(cd "$dir" && make -j2 >build.log 2>&1 && make -j2 tests/mpi/thread_multi tests/mpi/thread_async \
    >>build.log 2>&1) || { echo "check-tsan: build failed, see $dir/build.log"; tail -20 "$dir/build.log"; exit 1; }
export TSAN_OPTIONS="suppressions=$src/tests/tsan.supp exitcode=66 report_signal_unsafe=0"
cd "$dir" && top_builddir="$dir" top_srcdir="$dir" sh "$dir/tests/mpi/threads.sh"
