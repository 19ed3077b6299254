# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the mpich_*.sh runners: what they share. A runner sets ME (its name, for messages)
# and USAGE (the last line of its header comment), sources this file, defines runner_opt for the options of its
# own, calls mlib_options "$@", mlib_select, then builds with mlib_util / mlib_build, runs
# with mlib_launch and judges with mlib_check. The variables it may read afterwards: SRC
# PREFIX MPI WORK SOFTIB (1 or empty) T ONLY ENVS MAXNP CC RUN.
set -u
SRC= PREFIX= MPI=ibex WORK= SOFTIB= T=120 ONLY=. ENVS= MAXNP= SHIFT=1

mlib_usage() {
    sed -n "3,${USAGE}p" "$0" | sed 's/^# \{0,1\}//'
    exit 2
}

# runner_opt OPTION [VALUE]: the runner's own options. Sets SHIFT (1 or 2) and returns 0 when
# it knows OPTION; a runner redefines it after sourcing this file.
runner_opt() { return 1; }

# mlib_options "$@": the options every runner takes, then runner_opt for the rest.
mlib_options() {
    while [ $# -gt 0 ]; do
        SHIFT=1
        case $1 in
        --src) SRC=$2; SHIFT=2 ;;
        --prefix) PREFIX=$2; SHIFT=2 ;;
        --work) WORK=$2; SHIFT=2 ;;
        --mpi) MPI=$2; SHIFT=2 ;;
        --softib) SOFTIB=1 ;;
        --timeout) T=$2; SHIFT=2 ;;
        --only) ONLY=$2; SHIFT=2 ;;
        -h | --help) mlib_usage ;;
        *) runner_opt "$@" || { echo "$ME: unknown option $1" >&2; mlib_usage; } ;;
        esac
        shift "$SHIFT"
    done
}

# mlib_need FILE...: each must exist below --src, else a usage error.
mlib_need() {
    for _f in "$@"; do
        [ -n "$SRC" ] && [ -e "$SRC/$_f" ] ||
            { echo "$ME: --src DIR must hold $* (MPICH's test/mpi, with a mpitestconf.h)" >&2; mlib_usage; }
    done
}

# mlib_select: the compiler and launcher of --mpi, and the work directories.
mlib_select() {
    case $MPI in
    ibex)
        if [ -n "$PREFIX" ]; then
            CC=$PREFIX/bin/ibexcc RUN=$PREFIX/bin/ibexrun
        else
            CC=$(command -v ibexcc) RUN=$(command -v ibexrun)
        fi ;;
    mpich) CC=$(command -v mpicc.mpich) RUN=$(command -v mpiexec.mpich) ;;
    openmpi) CC=$(command -v mpicc.openmpi) RUN=$(command -v mpirun.openmpi) ;;
    *) echo "$ME: --mpi ibex|mpich|openmpi" >&2; exit 2 ;;
    esac
    [ -x "${CC:-}" ] && [ -x "${RUN:-}" ] || { echo "$ME: no compiler / launcher for $MPI (--prefix)" >&2; exit 2; }
    [ -n "$WORK" ] || WORK=$(mktemp -d "${TMPDIR:-/tmp}/$ME.XXXXXX")
    mkdir -p "$WORK/bin" "$WORK/logs" || exit 2
    WORK=$(cd "$WORK" && pwd)
}

# mlib_util NAME CFLAGS FILE...: the test support library $WORK/NAME.a from FILEs (below
# --src unless absolute), once; prints its path.
mlib_util() {
    _lib=$WORK/$1.a _flags=$2
    shift 2
    [ -f "$_lib" ] && { echo "$_lib"; return 0; }
    _objs=
    for _f in "$@"; do
        case $_f in /*) ;; *) _f=$SRC/$_f ;; esac
        _o=$WORK/bin/${_lib##*/}_$(basename "$_f" .c).o
        # shellcheck disable=SC2086
        $CC $_flags -c "$_f" -o "$_o" >>"$WORK/logs/${_lib##*/}.log" 2>&1 ||
            { echo "$ME: building $_f failed ($WORK/logs/${_lib##*/}.log)" >&2; return 1; }
        _objs="$_objs $_o"
    done
    # shellcheck disable=SC2086
    ar rcs "$_lib" $_objs && echo "$_lib"
}

# mlib_build EXE LOG CFLAGS FILE... [LIBS]: compiles $WORK/bin/EXE once (its log LOG); 1 when
# it does not build (remembered).
mlib_build() {
    _exe=$WORK/bin/$1 _blog=$2 _flags=$3
    shift 3
    [ -x "$_exe" ] && return 0
    [ -f "$_exe.failed" ] && return 1
    # shellcheck disable=SC2086
    $CC $_flags -o "$_exe" "$@" -lm >"$_blog" 2>&1 && return 0
    : >"$_exe.failed"
    return 1
}

# mlib_launch NP TL PROGRAM ARGS...: one run in $WORK/bin under the chosen library with a time
# limit of TL seconds (ibexrun's own, which writes a hang report, and an outer one), the
# --env settings in the environment, in $RUNDIR when the runner sets it.
mlib_launch() {
    _np=$1 _tl=$2
    shift 2
    case $MPI in
    ibex)
        if [ -n "$SOFTIB" ]; then
            set -- env IBEX_TRANSPORTS=verbs timeout -k 10 "$((_tl + 30))" "$RUN" --softib -n "$_np" --timeout "$_tl" "$@"
        else
            set -- timeout -k 10 "$((_tl + 30))" "$RUN" -n "$_np" --timeout "$_tl" "$@"
        fi ;;
    mpich) set -- timeout -k 10 "$_tl" "$RUN" -n "$_np" "$@" ;;
    openmpi) set -- timeout -k 10 "$_tl" "$RUN" --oversubscribe --allow-run-as-root -n "$_np" "$@" ;;
    esac
    # shellcheck disable=SC2086
    (cd "${RUNDIR:-$WORK/bin}" && env $ENVS MPIEXEC_TIMEOUT="$_tl" "$@") </dev/null
}

# mlib_check RC LOG [EXPECT]: 0 when the run is a pass. EXPECT: ok (the default: exit 0 and
# MPICH's " No Errors"), exit (exit 0), status / fatal (a non-zero exit, as MPICH's TestStatus
# and TestErrFatal).
mlib_check() {
    case ${3:-ok} in
    ok) [ "$1" = 0 ] && grep -Eq '^ *No [Ee]rrors *$' "$2" ;;
    exit) [ "$1" = 0 ] ;;
    status | fatal) [ "$1" != 0 ] ;;
    esac
}

# mlib_why LOG [WIDTH]: the first line of LOG that says something (not " No Errors").
mlib_why() {
    grep -Ev '^ *$|^ *No [Ee]rrors *$' "$1" | head -n 1 | cut -c1-"${2:-100}"
}

# mlib_count FILE WORD: how many lines of FILE start with WORD (0 when none or no file).
mlib_count() {
    _n=$(grep -c "^$2" "$1" 2>/dev/null)
    echo "${_n:-0}"
}

# mlib_verdict RC LOG EXPECT WIDTH LABEL NP FILE FAILWORD: judges a run (mlib_check), prints
# the table line "LABEL NP pass" or "LABEL NP FAIL (exit RC) why" and appends pass or
# FAILWORD to FILE.
mlib_verdict() {
    if mlib_check "$1" "$2" "$3"; then
        printf "%-${4}s %-3s %s\n" "$5" "$6" pass
        echo pass >>"$7"
    else
        printf "%-${4}s %-3s %s\n" "$5" "$6" "FAIL (exit $1) $(mlib_why "$2")"
        echo "$8" >>"$7"
    fi
}

# mlib_build_failed WIDTH LABEL NP BUILDLOG FILE WORD: the table line of a program that did not
# build (its first error line) and WORD appended to FILE.
mlib_build_failed() {
    printf "%-${1}s %-3s %s\n" "$2" "$3" "BUILD FAILED: $(grep -m1 -i -E 'error|undefined' "$4" | cut -c1-90)"
    echo "$6" >>"$5"
}

# mlib_summary FILE PASS FAIL BUILD WHAT: the closing line "$ME (WHAT): N passed, N failed, N did
# not build" from the words counted in FILE; 0 when nothing failed or went unbuilt.
mlib_summary() {
    _p=$(mlib_count "$1" "$2") _f=$(mlib_count "$1" "$3") _b=$(mlib_count "$1" "$4")
    echo "$ME ($5): $_p passed, $_f failed, $_b did not build; logs in $WORK/logs"
    [ "$_f" = 0 ] && [ "$_b" = 0 ]
}
