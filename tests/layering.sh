#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The house rules, checked over every #include "..." line of the product's sources:
#   base < boot < transport (transport.h, the registry) < engine < collectives < comm, win
#   < mpi < io, tools
# each layer may include only its own headers and those of the layers below it. Besides:
#   - a backend (transport/<name>/) uses only base, boot's interface, transport.h and its own
#     folder, never another backend's;
#   - collectives never include transport/;
#   - the launcher uses base only; softib uses nothing of Ibex;
#   - <infiniband/verbs.h> only in transport/verbs/ and softib/;
#   - no include climbs by a ../ path.
# A header is found by its bare name (the build puts every layer on the include path), so a
# name must be unique across the product; the test says so if it is not.
# Usage: tests/layering.sh [SRCDIR]   (prints each violation; exits 1 if there is any)
set -u
top=${1:-${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}}
cd "$top" || exit 1

# rank of a product file's folder, or "" when it is not in a layer
layer_of() {
    case "$1" in
    runtime/base/*) echo 0 ;;
    runtime/boot/*) echo 1 ;;
    transport/*) echo 2 ;;
    runtime/engine/*) echo 3 ;;
    collectives/*) echo 4 ;;
    runtime/comm/*) echo 5 ;;
    runtime/win/*) echo 5 ;; # windows: MPI objects built on collectives, beside comm
    runtime/mpi/*) echo 6 ;;
    runtime/io/*) echo 7 ;; # MPI-IO: files, on the entry points of runtime/mpi
    runtime/tools/*) echo 7 ;;
    include/*) echo 0 ;; # the public API: any layer may use mpi.h
    *) echo "" ;;
    esac
}

fail=0
checked=0
bad() {
    echo "FAIL $1"
    fail=$((fail + 1))
}

sources=$(find runtime transport collectives launcher softib include -name '*.[ch]' | sort)
# bare header name -> path, for the product's own headers
index=$(mktemp)
trap 'rm -f "$index"' EXIT INT TERM
for f in $sources; do
    case "$f" in *.h) echo "$(basename "$f") $f" ;; esac
done | sort >"$index"
dups=$(awk '{print $1}' "$index" | uniq -d)
for d in $dups; do
    bad "header name $d is not unique: $(awk -v n="$d" '$1 == n {printf "%s ", $2}' "$index")"
done

check_include() { # file, its layer, included name
    f=$1
    fl=$2
    inc=$3
    case "$inc" in
    ../* | */../*)
        bad "$f includes \"$inc\" by a ../ path"
        return
        ;;
    esac
    target=$(awk -v n="$(basename "$inc")" '$1 == n {print $2; exit}' "$index")
    [ -n "$target" ] || return 0 # generated (ibex_config_auto.h) or system
    checked=$((checked + 1))
    fdir=$(dirname "$f")
    tdir=$(dirname "$target")
    [ "$fdir" = "$tdir" ] && return 0
    case "$f" in
    launcher/*)
        case "$target" in runtime/base/* | include/* | launcher/*) return 0 ;; esac
        bad "$f includes $target: the launcher uses runtime/base only"
        return
        ;;
    softib/*)
        bad "$f includes $target: softib uses nothing of Ibex"
        return
        ;;
    transport/*/*)
        case "$target" in
        runtime/base/* | runtime/boot/ibex_boot.h | transport/transport.h | include/*) return 0 ;;
        esac
        bad "$f includes $target: a backend uses only base, boot's interface and transport.h"
        return
        ;;
    collectives/*)
        case "$target" in transport/*)
            bad "$f includes $target: collectives never include transport/"
            return
            ;;
        esac
        ;;
    esac
    case "$target" in transport/*/*)
        bad "$f includes $target: a backend's headers are its own"
        return
        ;;
    esac
    tl=$(layer_of "$target")
    [ -n "$fl" ] && [ -n "$tl" ] && [ "$tl" -gt "$fl" ] &&
        bad "$f includes $target: layer $fl may not include layer $tl (upward)"
    return 0
}

for f in $sources; do
    fl=$(layer_of "$f")
    for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
        check_include "$f" "$fl" "$inc"
    done
    if grep -q '^[[:space:]]*#[[:space:]]*include[[:space:]]*<infiniband/' "$f"; then
        case "$f" in
        transport/verbs/* | softib/*) ;;
        *) bad "$f includes <infiniband/...>: only transport/verbs/ and softib/ may" ;;
        esac
    fi
done

# The runtime never names a backend outside the transport registry.
names=$(ls -d transport/*/ | xargs -n1 basename)
for n in $names; do
    N=$(echo "$n" | tr a-z A-Z)
    # the bare word too, in code or text, except "self" (an ordinary English word)
    bare=$n
    [ "$n" = self ] && bare="\"self\""
    # (POSIX shared memory is a system interface, not the backend: the collectives' segment
    # calls shm_open() / shm_unlink() and lives in /dev/shm)
    hits=$(grep -rw --include='*.[ch]' -e "\"$n\"" -e "ibex_${n}_[a-z_]*" -e "ibex_tl_$n" \
        -e "${n}_[a-z_]*" -e "${N}_[A-Z_]*" -e "$bare" runtime collectives 2>/dev/null |
        grep -v -e 'shm_open(' -e 'shm_unlink(' -e '/dev/shm' | cut -d: -f1 | sort -u)
    for h in $hits; do
        bad "$h names the backend '$n' (only transport/ knows backends)"
    done
done

echo "layering: $checked includes checked"
echo "$((checked - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
