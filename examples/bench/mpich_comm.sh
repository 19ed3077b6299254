#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Builds and runs a list of MPICH's communicator / attribute / info / group / session / error
# handler / init test programs against an MPI library and prints a pass / fail table. The test
# sources are not part of Ibex: give the directory laid out as MPICH's test/mpi (include/,
# util/mtest.c, util/mtest_common.c, util/dtypes.c, comm/, attr/, info/, group/, errhan/,
# init/, session/, with an include/mpitestconf.h written for the machine). Nothing is written
# into it.
#
#   examples/bench/mpich_comm.sh --src ~/mpich-tests --prefix /opt/ibex
#   examples/bench/mpich_comm.sh --src DIR --prefix DIR --softib       # verbs on softib, 3 ranks
#   examples/bench/mpich_comm.sh --src DIR --mpi mpich                 # the same with MPICH
#
# Options:
#   --src DIR        the assembled MPICH test sources (required)
#   --prefix DIR     Ibex installation (bin/ibexcc, bin/ibexrun); default: the one in PATH
#   --mpi NAME       ibex (default), mpich (mpicc.mpich, mpiexec.mpich) or openmpi
#                    (mpicc.openmpi, mpirun.openmpi --oversubscribe)
#   --work DIR       where to build and keep the logs (default: a new directory in $TMPDIR)
#   --softib         Ibex over verbs on softib with shared memory off (IBEX_TRANSPORTS=verbs),
#                    rank counts capped at 3
#   --nodes N        Ibex with faked nodes of N ranks (IBEX_COLL_NODE_SIZE=N)
#   --max-np N       cap every rank count at N (programs adapt to the size they get)
#   --timeout S      time limit of one run (default 120)
#   --only REGEX     run only the programs whose dir/name matches
# A run passes when it exits 0 and prints "No Errors"; the programs marked status / fatal must
# instead exit non-zero (status: with no output, as MPICH's TestStatus; fatal: anything, as
# TestErrFatal). Exit status: 0 when nothing failed, 1 otherwise, 2 on usage.
ME=mpich_comm USAGE=28 NODES=
. "$(dirname "$0")/mpich_lib.sh"
runner_opt() {
    case $1 in
    --nodes) NODES=$2; SHIFT=2 ;;
    --max-np) MAXNP=$2; SHIFT=2 ;;
    *) return 1 ;;
    esac
}
mlib_options "$@"
mlib_need util/mtest.c include/mpitestconf.h
mlib_select
[ "$MPI" = ibex ] && [ -n "$SOFTIB" ] && [ -z "$MAXNP" ] && MAXNP=3
[ "$MPI" = ibex ] && [ -n "$NODES" ] && export IBEX_COLL_NODE_SIZE=$NODES

# Left out: comm/ic2 (33 ranks), session/session_4x4 (16), attr/fkeyvaltype (MPICH's dtpools),
# errhan/commcall_oldapi (MPI_Errhandler_create and the other calls MPI 3.0 removed), the
# Fortran, C++, spawn and MPIX programs of these folders.
# The list: directory, program, ranks, then optional words: status / fatal (the expected
# result, see above), tl=S (a time limit of its own), and arguments to the program.
LIST='
comm dup 2
comm dupic 4
comm commcreate1 8
comm commname 4
comm ic1 4
comm icgroup 8
comm icm 8
comm icsplit 8
comm iccreate 8
comm ctxalloc 2 tl=300
comm ctxsplit 4 tl=300
comm cmfree 4
comm cmfree2 2
comm cmsplit 4
comm cmsplit2 12
comm probe_intercomm 2
comm cmsplit_type 4 .
comm comm_create_group 4
comm comm_create_group 8
comm comm_group_half 4
comm comm_group_rand 4
comm comm_idup 4
comm comm_idup_mul 2
comm comm_idup_overlap 2
comm comm_idup_iallreduce 6
comm comm_idup_nb 6
comm comm_idup_isend 6
comm comm_idup_comm 6
comm comm_idup_comm2 6
comm dup_with_info 4
comm idup_with_info 4
comm comm_info 6
comm comm_info2 1
comm comm_create_group_idup 4
comm inactive_reqs 2
attr attrt 2
attr attric 4
attr attrerr 1
attr attrend 1
attr attrend 4
attr attrend2 1
attr attrend2 5
attr attrerrcomm 1
attr attrerrtype 1
attr attrdeleteget 1
attr attr2type 1
attr attrorder 1
attr attrordercomm 1
attr attrordertype 1
attr baseattr2 1
attr baseattrcomm 1
attr fkeyval 1
attr fkeyvalcomm 1
attr keyval_double_free 1
attr keyval_double_free_comm 1
attr keyval_double_free_type 1
attr keyval_double_free_win 1
info infodup 1
info infodel 1
info infovallen 1
info infoorder 1
info infomany 1
info infomany2 1
info infotest 1
info infoget 1
info infogetstring 1
info infoenv 1
info info_no_init 1
info infocreateenv 1
group groupcreate 4
group grouptest 8
group grouptest2 4
group groupnullincl 4
group gtranks 8
session session 4
session session_psets 1
session session_self 1
session session_inter 5
errhan adderr 1
errhan commcall 2
errhan errfatal 1 fatal
errhan predef_eh 1
errhan predef_eh 2
errhan errstring2 1
errhan dynamic_errcode_predefined_errclass 1
init exitst1 2 status
init exitst2 4 status
init initstat 1
init timeout 2 fatal tl=10
init version 1
init finalized 1
init attrself 1
init library_version 1
'

LIB=$(mlib_util libmtest "-I$SRC/include" util/mtest.c util/mtest_common.c util/mtest_single.c \
    util/dtypes.c) || exit 1

rm -f "$WORK/counts"
printf '%-44s %-3s %s\n' program np result
echo "$LIST" | while read -r dir prog np rest; do
    [ -n "$dir" ] || continue
    echo "$dir/$prog" | grep -Eq -- "$ONLY" || continue
    expect=ok tl=$T args=
    for w in $rest; do
        case $w in
        status | fatal) expect=$w ;;
        tl=*) tl=${w#tl=} ;;
        *) args="$args $w" ;;
        esac
    done
    [ -n "$MAXNP" ] && [ "$np" -gt "$MAXNP" ] && np=$MAXNP
    name="$dir/$prog"
    log="$WORK/logs/$dir.$prog.$np"
    if ! mlib_build "$dir.$prog" "$log.build" "-I$SRC/include" "$SRC/$dir/$prog.c" "$LIB"; then
        mlib_build_failed 44 "$name" "$np" "$log.build" "$WORK/counts" build
        continue
    fi
    # shellcheck disable=SC2086
    mlib_launch "$np" "$tl" "./$dir.$prog" $args >"$log" 2>&1
    mlib_verdict $? "$log" "$expect" 44 "$name" "$np" "$WORK/counts" fail
done
mlib_summary "$WORK/counts" pass fail build "$MPI"
