#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Builds a subset of MPICH's one-sided tests (test/mpi/rma) against an MPI and runs each at the
# rank count of MPICH's testlist, printing one line per run (pass / FAIL / BUILD) and a summary.
# The MPICH sources are not part of Ibex: give the test/mpi directory of an MPICH source tree
# (4.0.x: the one holding rma/, util/, include/ and dtpools/). Nothing is written into it.
#
#   examples/bench/mpich_rma.sh --src ~/mpich-4.0.2/test/mpi --prefix /opt/ibex
#   examples/bench/mpich_rma.sh --src DIR --prefix DIR --softib     # verbs on softib, no shm
#   examples/bench/mpich_rma.sh --src DIR --mpi mpich               # the same with MPICH
#
# Options:
#   --src DIR        MPICH's test/mpi directory
#   --prefix DIR     Ibex installation (bin/ibexcc, bin/ibexrun); default: the one in PATH
#   --mpi NAME       ibex (default), mpich (mpicc.mpich, mpiexec.mpich) or openmpi
#                    (mpicc.openmpi, mpirun.openmpi --oversubscribe)
#   --work DIR       where to build and keep the logs (default: a new directory in $TMPDIR)
#   --softib         Ibex over verbs on softib with shared memory off (IBEX_TRANSPORTS=verbs
#                    under ibexrun --softib), at most --max-np ranks (default then 3)
#   --max-np N       run a program at min(its rank count, N) ranks (its minimum respected)
#   --env VAR=VALUE  set in the runs' environment (repeatable), e.g. IBEX_WIN_DIRECT=0
#                    IBEX_WIN_RDMA=0 (Ibex's active-message path) or IBEX_COLL_NODE_SIZE=2
#   --timeout S      time limit of one run (default 120; longer where MPICH's testlist says)
#   --only REGEX     run only the lines whose name matches (grep -E)
# A run passes when it exits 0 and prints " No Errors" (MPICH's convention). Exit status: 0
# when every run passed, 1 otherwise, 2 on usage.
ME=mpich_rma USAGE=26
. "$(dirname "$0")/mpich_lib.sh"
runner_opt() {
    case $1 in
    --max-np) MAXNP=$2; SHIFT=2 ;;
    --env) ENVS="$ENVS $2"; SHIFT=2 ;;
    *) return 1 ;;
    esac
}
mlib_options "$@"
mlib_need rma/test1.c util/mtest.c
SRC=$(cd "$SRC" && pwd)
mlib_select
[ -n "$SOFTIB" ] && [ -z "$MAXNP" ] && MAXNP=3
mkdir -p "$WORK/inc" || exit 2

# The configuration header MPICH's configure would write, for Linux / gcc / an MPI 4.x library.
cat >"$WORK/inc/mpitestconf.h" <<'EOF'
#define HAVE_GETRUSAGE 1
#define HAVE_INTTYPES_H 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_LONG_LONG 1
#define HAVE_MPI_WIN_CREATE 1
#define HAVE_MPI_INIT_THREAD 1
#define HAVE_PTHREAD_H 1
#define HAVE_STDARG_H 1
#define HAVE_STDINT_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRDUP 1
#define HAVE_STRING_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_UNISTD_H 1
#define HAVE_USLEEP 1
#define HAVE__BOOL 1
#define HAVE_FLOAT__COMPLEX 1
#define HAVE_DOUBLE__COMPLEX 1
#define HAVE_LONG_DOUBLE__COMPLEX 1
#define POINTERINT_t long
#define SIZEOF_INT 4
#define SIZEOF_LONG 8
#define SIZEOF_LONG_LONG 8
#define SIZEOF_MPI_OFFSET 8
#define SIZEOF_SHORT 2
#define SIZEOF_VOID_P 8
#define STDC_HEADERS 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
#define USE_STRICT_MPI 1
EOF
cat >"$WORK/inc/dtpoolsconf.h" <<'EOF'
#define HAVE_INTTYPES_H 1
#define HAVE_STDINT_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define STDC_HEADERS 1
EOF
# dtpools_internal.h includes "../dtpoolsconf.h": give it one beside a copy of its headers.
mkdir -p "$WORK/dtp/include" && cp "$SRC"/dtpools/include/*.h "$WORK/dtp/include/" &&
    cp "$WORK/inc/dtpoolsconf.h" "$WORK/dtp/dtpoolsconf.h" || exit 2
INC="-I$WORK/inc -I$SRC/include -I$WORK/dtp/include"

# The test library (mtest, mtest_common, dtpools), once. dtpools calls MPI_Type_hvector /
# hindexed, which MPI 3.0 removed (MPICH keeps them; Ibex and Open MPI 4's mpi.h do not): else
# their MPI-2 successors, which take the same arguments.
old=
if [ "$MPI" != mpich ]; then
    printf '%s\n' '#include <mpi.h>' '#undef MPI_Type_hvector' '#undef MPI_Type_hindexed' \
        '#define MPI_Type_hvector MPI_Type_create_hvector' \
        '#define MPI_Type_hindexed MPI_Type_create_hindexed' >"$WORK/inc/mpi1_removed.h"
    old="-include $WORK/inc/mpi1_removed.h"
fi
# shellcheck disable=SC2046
LIB=$(mlib_util libmtest "-O1 -g $INC $old" util/mtest.c util/mtest_common.c util/mtest_single.c \
    $(cd "$SRC" && echo dtpools/src/*.c)) || exit 1

# name  ranks  source  defines  arguments: MPICH's testlist.in and Makefile.am of 4.0.2 (the
# dtpools programs with two of the argument sets its dtp-test-config.txt generates). Left out:
# the GPU memory variants, the *_am / *_hwacc / *_accop / *_collattach duplicates of programs
# listed, lockcontention2 / 3 at 8 ranks (run at 4), and aint_collattach (an MPICH info key).
LIST='
winname 2 winname.c - -
allocmem 2 allocmem.c - -
putfidx 4 putfidx.c - -
adlb_mimic1 3 adlb_mimic1.c - -
accfence2 4 accfence2.c - -
accfence2_am 4 accfence2_am.c - -
getgroup 4 getgroup.c - -
transpose1 2 transpose1.c - -
transpose2 2 transpose2.c - -
transpose3 2 transpose3.c - -
transpose3_shm 2 transpose3.c -DUSE_WIN_ALLOCATE -
transpose4 2 transpose4.c - -
transpose5 2 transpose5.c - -
transpose6 1 transpose6.c - -
transpose7 2 transpose7.c - -
test1 2 test1.c - -
test2 2 test2.c - -
test2_shm 2 test2.c -DUSE_WIN_ALLOCATE -
test3 2 test3.c - -
test3_shm 2 test3.c -DUSE_WIN_ALLOCATE -
test4 2 test4.c - -
test5 2 test5.c - -
test1_am 2 test1_am.c - -
test1_dt 2 test1_dt.c - -
lockcontention 3 lockcontention.c - -
lockcontention2 4 lockcontention2.c - -
lockcontention3 4 lockcontention3.c - -
lockopts 2 lockopts.c - -
fetchandadd 7 fetchandadd.c - -
fetchandadd_tree 7 fetchandadd_tree.c - -
fetchandadd_am 7 fetchandadd_am.c - -
wintest 2 wintest.c - -
wintest_shm 2 wintest.c -DUSE_WIN_ALLOCATE -
contig_displ 1 contig_displ.c - -
nullpscw 7 nullpscw.c - -
nullpscw_shm 7 nullpscw.c -DUSE_WIN_ALLOCATE -
attrorderwin 1 attrorderwin.c - -
wincall 2 wincall.c - -
baseattrwin 1 baseattrwin.c - -
fkeyvalwin 1 fkeyvalwin.c - -
selfrma 1 selfrma.c - -
mixedsync 4 mixedsync.c - -
locknull 2 locknull.c - -
rmanull 2 rmanull.c - -
rmazero 2 rmazero.c - -
strided_acc_indexed 2 strided_acc_indexed.c - -
strided_acc_onelock 2 strided_acc_onelock.c - -
strided_acc_subarray 2 strided_acc_subarray.c - -
strided_get_indexed 2 strided_get_indexed.c - -
strided_putget_indexed 4 strided_putget_indexed.c - -
strided_putget_indexed_shared 4 strided_putget_indexed_shared.c - -
strided_getacc_indexed 4 strided_getacc_indexed.c - -
strided_getacc_indexed_shared 4 strided_getacc_indexed_shared.c - -
window_creation 2 window_creation.c - -
window_allocation 4 window_creation.c -DUSE_WIN_ALLOCATE -
window_noncontig_allocation 4 window_creation.c -DUSE_WIN_ALLOCATE_NONCONTIG -
window_attach 4 window_attach.c - -
contention_put 4 contention_put.c - -
contention_putget 4 contention_putget.c - -
put_base 2 put_base.c - -
put_bottom 2 put_bottom.c - -
win_flavors 4 win_flavors.c - -
win_flavors 3 win_flavors.c - -
manyrma2 2 manyrma2.c - -
manyrma2_shm 2 manyrma2.c -DUSE_WIN_ALLOCATE -
manyrma3 2 manyrma3.c - -
win_shared 4 win_shared.c - -
win_shared_create_allocshm 4 win_shared_create.c -DUSE_INFO_ALLOC_SHM -
win_shared_create_no_allocshm 4 win_shared_create.c - -
win_shared_noncontig 4 win_shared_noncontig.c - -
win_shared_noncontig_put 4 win_shared_noncontig_put.c - -
win_zero 4 win_zero.c - -
win_large_shm 3 win_large_shm.c - -
win_dynamic_acc 4 win_dynamic_acc.c - -
get_acc_local 1 get_acc_local.c - -
linked_list 4 linked_list.c - -
linked_list_fop 4 linked_list_fop.c - -
compare_and_swap 4 compare_and_swap.c - -
fetch_and_op_char 4 fetch_and_op.c -DFOP_TYPE_CHAR -
fetch_and_op_short 4 fetch_and_op.c -DFOP_TYPE_SHORT -
fetch_and_op_int 4 fetch_and_op.c -DFOP_TYPE_INT -
fetch_and_op_long 4 fetch_and_op.c -DFOP_TYPE_LONG -
fetch_and_op_double 4 fetch_and_op.c -DFOP_TYPE_DOUBLE -
fetch_and_op_long_double 4 fetch_and_op.c -DFOP_TYPE_LONG_DOUBLE -
fetch_and_op_long_accop_hwacc 4 fetch_and_op.c -DFOP_TYPE_LONG,-DTEST_HWACC_INFO,-DTEST_ACCOPS_INFO -
get_accumulate_double 4 get_accumulate.c -DGACC_TYPE_DOUBLE -
get_accumulate_double_derived 4 get_accumulate.c -DGACC_TYPE_DOUBLE,-DGACC_TYPE_DERIVED -
get_accumulate_int 4 get_accumulate.c -DGACC_TYPE_INT -
get_accumulate_int_derived 4 get_accumulate.c -DGACC_TYPE_INT,-DGACC_TYPE_DERIVED -
get_accumulate_long 4 get_accumulate.c -DGACC_TYPE_LONG -
get_accumulate_long_derived 4 get_accumulate.c -DGACC_TYPE_LONG,-DGACC_TYPE_DERIVED -
get_accumulate_short 4 get_accumulate.c -DGACC_TYPE_SHORT -
get_accumulate_short_derived 4 get_accumulate.c -DGACC_TYPE_SHORT,-DGACC_TYPE_DERIVED -
flush 4 flush.c - -
reqops 4 reqops.c - -
req_example 4 req_example.c - -
req_example_shm 4 req_example.c -DUSE_WIN_ALLOC_SHM -
rput_local_comp 2 rput_local_comp.c - -
racc_local_comp 2 racc_local_comp.c - -
win_info 4 win_info.c - -
linked_list_lockall 4 linked_list_lockall.c - -
pscw_ordering 4 pscw_ordering.c - -
pscw_ordering_shm 4 pscw_ordering.c -DUSE_WIN_ALLOCATE -
linked_list_bench_lock_all 4 linked_list_bench_lock_all.c - -
linked_list_bench_lock_excl 4 linked_list_bench_lock_excl.c - -
linked_list_bench_lock_shr 4 linked_list_bench_lock_shr.c - -
linked_list_bench_lock_shr_nocheck 4 linked_list_bench_lock_shr.c -DUSE_MODE_NOCHECK -
mutex_bench 4 mutex_bench.c+mcs_mutex.c - -
mutex_bench_shared 4 mutex_bench.c+mcs_mutex.c -DUSE_WIN_SHARED -
mutex_bench_shm 4 mutex_bench.c+mcs_mutex.c -DUSE_WIN_ALLOC_SHM -
mutex_bench_shm_ordered 4 mutex_bench.c+mcs_mutex.c -DUSE_WIN_ALLOC_SHM,-DUSE_CONTIGUOUS_RANK -
rma_contig 2 rma_contig.c - -iter=10
badrma 2 badrma.c - -
acc_loc 4 acc_loc.c - -
acc_ordering 2 acc_ordering.c - -
fence_shm 2 fence_shm.c - -
win_shared_zerobyte 4 win_shared_zerobyte.c - -
win_shared_put_flush_get 4 win_shared_put_flush_get.c - -
get_struct 2 get_struct.c - -
at_complete 2 at_complete.c - -
atomic_rmw_fop 3 atomic_rmw_fop.c - -
atomic_rmw_cas 3 atomic_rmw_cas.c - -
atomic_rmw_gacc 3 atomic_rmw_gacc.c - -
atomic_get_short_int 3 atomic_get.c -DTEST_SHORT_INT -
atomic_get_2int 3 atomic_get.c -DTEST_2INT -
atomic_get_long_int 3 atomic_get.c -DTEST_LONG_INT -
atomic_get_float_int 3 atomic_get.c -DTEST_FLOAT_INT -
atomic_get_double_int 3 atomic_get.c -DTEST_DOUBLE_INT -
atomic_get_long_double_int 3 atomic_get.c -DTEST_LONG_DOUBLE_INT -
aint 2 aint.c - -
acc_pairtype 2 acc_pairtype.c - -
acc_pairtype_shm 2 acc_pairtype.c -DUSE_WIN_ALLOCATE -
manyget 2 manyget.c - -
derived_acc_flush_local 3 derived_acc_flush_local.c - -
large_acc_flush_local 3 large_acc_flush_local.c - -
large_small_acc 2 large_small_acc.c - -
win_dynamic_rma_flush_get 2 win_dynamic_rma_flush_get.c - -count=4096,-op=put
win_dynamic_rma_flush_get 2 win_dynamic_rma_flush_get.c - -count=4096,-op=acc
win_dynamic_rma_flush_get 2 win_dynamic_rma_flush_get.c - -count=4096,-op=gacc
win_dynamic_rma_flush_get 2 win_dynamic_rma_flush_get.c - -count=1,-op=fop
win_dynamic_rma_flush_get 2 win_dynamic_rma_flush_get.c - -count=1,-op=cas
win_shared_put_flush_load 3 win_shared_rma_flush_load.c -DTEST_PUT -
win_shared_acc_flush_load 3 win_shared_rma_flush_load.c -DTEST_ACC -
win_shared_gacc_flush_load 3 win_shared_rma_flush_load.c -DTEST_GACC -
win_shared_fop_flush_load 3 win_shared_rma_flush_load.c -DTEST_FOP -
win_shared_cas_flush_load 3 win_shared_rma_flush_load.c -DTEST_CAS -
put_flush_get 3 wrma_flush_get.c -DTEST_PUT -
acc_flush_get 3 wrma_flush_get.c -DTEST_ACC -
gacc_flush_get 3 wrma_flush_get.c -DTEST_GACC -
fop_flush_get 3 wrma_flush_get.c -DTEST_FOP -
cas_flush_get 3 wrma_flush_get.c -DTEST_CAS -
rget_unlock 2 rget_unlock.c - -
overlap_wins_put 3 overlap_wins_rma.c -DTEST_PUT -
overlap_wins_acc 3 overlap_wins_rma.c -DTEST_ACC -
overlap_wins_gacc 3 overlap_wins_rma.c -DTEST_GACC -
overlap_wins_fop 3 overlap_wins_rma.c -DTEST_FOP -
overlap_wins_cas 3 overlap_wins_rma.c -DTEST_CAS -
lock_nested 3 lock_nested.c - -
rget_testall 2 rget_testall.c - -
get_flushlocal 4 get_flushlocal.c - -
get_flushlocal_shm 4 get_flushlocal.c -DUSE_WIN_ALLOCATE -
win_shared_query_null 4 win_shared_query_null.c - -
putfence1 2 fence.c -DUSE_PUT -type=MPI_INT,-count=17,-seed=101,-testsize=16
putfence1 2 fence.c -DUSE_PUT -type=MPI_INT:4+MPI_DOUBLE:8,-count=1018,-seed=102,-testsize=4
getfence1 2 fence.c -DUSE_GET -type=MPI_INT,-count=17,-seed=103,-testsize=16
getfence1 2 fence.c -DUSE_GET -type=MPI_INT:4+MPI_DOUBLE:8,-count=1018,-seed=104,-testsize=4
accfence1 4 accfence1.c - -type=MPI_INT,-count=17,-seed=105,-testsize=16
accfence1 4 accfence1.c - -type=MPI_INT:4+MPI_DOUBLE:8,-count=1018,-seed=106,-testsize=4
putpscw1 4 putpscw1.c - -type=MPI_INT,-count=17,-seed=107,-testsize=16
putpscw1 4 putpscw1.c - -type=MPI_INT:4+MPI_DOUBLE:8,-count=1018,-seed=108,-testsize=4
accpscw1 4 accpscw1.c - -type=MPI_INT,-count=17,-seed=109,-testsize=16
accpscw1 4 accpscw1.c - -type=MPI_INT:4+MPI_DOUBLE:8,-count=1018,-seed=110,-testsize=4
epochtest 4 epochtest.c - -type=MPI_INT,-count=17,-seed=111,-testsize=16
epochtest 4 epochtest.c - -type=MPI_INT:4+MPI_DOUBLE:8,-count=1018,-seed=112,-testsize=4
lock_dt 2 lock_x_dt.c -DSINGLE_ORIGIN,-DSINGLE_TARGET,-DUSE_FLUSH_NONE,-DUSE_FLUSH_LOCAL_NONE -type=MPI_INT,-count=17,-seed=113,-testsize=16
lock_dt 2 lock_x_dt.c -DSINGLE_ORIGIN,-DSINGLE_TARGET,-DUSE_FLUSH_NONE,-DUSE_FLUSH_LOCAL_NONE -type=MPI_INT:4+MPI_DOUBLE:8,-count=1018,-seed=114,-testsize=4
lock_dt_flush 2 lock_x_dt.c -DSINGLE_ORIGIN,-DSINGLE_TARGET,-DUSE_FLUSH,-DUSE_FLUSH_LOCAL_NONE -type=MPI_INT,-count=17,-seed=115,-testsize=16
lock_dt_flushlocal 2 lock_x_dt.c -DSINGLE_ORIGIN,-DSINGLE_TARGET,-DUSE_FLUSH_NONE,-DUSE_FLUSH_LOCAL -type=MPI_INT,-count=17,-seed=116,-testsize=16
lockall_dt 4 lock_x_dt.c -DSINGLE_ORIGIN,-DMULTI_TARGET,-DUSE_FLUSH_NONE,-DUSE_FLUSH_LOCAL_NONE -type=MPI_INT,-count=17,-seed=117,-testsize=16
lockall_dt_flush 4 lock_x_dt.c -DSINGLE_ORIGIN,-DMULTI_TARGET,-DUSE_FLUSH,-DUSE_FLUSH_LOCAL_NONE -type=MPI_INT:4+MPI_DOUBLE:8,-count=1018,-seed=118,-testsize=4
lockall_dt_flushall 4 lock_x_dt.c -DSINGLE_ORIGIN,-DMULTI_TARGET,-DUSE_FLUSH_ALL,-DUSE_FLUSH_LOCAL_NONE -type=MPI_INT,-count=17,-seed=119,-testsize=16
lockall_dt_flushlocal 4 lock_x_dt.c -DSINGLE_ORIGIN,-DMULTI_TARGET,-DUSE_FLUSH_NONE,-DUSE_FLUSH_LOCAL -type=MPI_INT,-count=17,-seed=120,-testsize=16
lockall_dt_flushlocalall 4 lock_x_dt.c -DSINGLE_ORIGIN,-DMULTI_TARGET,-DUSE_FLUSH_NONE,-DUSE_FLUSH_LOCAL_ALL -type=MPI_INT:4+MPI_DOUBLE:8,-count=1018,-seed=121,-testsize=4
lock_contention_dt 4 lock_x_dt.c -DMULTI_ORIGIN,-DSINGLE_TARGET,-DUSE_FLUSH_NONE,-DUSE_FLUSH_LOCAL_NONE -type=MPI_INT,-count=17,-seed=122,-testsize=16
'
# Programs that need more ranks than --max-np allows are run at their minimum.
minnp() {
    case $1 in
    accfence2* | getgroup | lockcontention2 | putfidx | strided_*indexed* | window_attach | \
        contention_put* | win_shared_noncontig* | win_zero | mixedsync) echo 2 ;;
    win_shared_put_flush_get) echo 4 ;;
    adlb_mimic1 | lockcontention | lockcontention3 | derived_acc_flush_local | \
        large_acc_flush_local | win_shared_*_flush_load | *_flush_get | overlap_wins_*) echo 3 ;;
    *) echo 1 ;;
    esac
}

# The time limits MPICH's testlist gives (timeLimit=), where longer than --timeout, and 600 s
# for large_acc_flush_local (500 windows with 37 MiB of accumulates from each origin: minutes
# on a loaded machine, for MPICH too).
tlimit() {
    case $1 in
    manyrma2*) t=500 ;;
    manyget | atomic_get_*) t=300 ;;
    large_acc_flush_local) t=600 ;;
    *) t=$T ;;
    esac
    [ "$t" -gt "$T" ] && echo "$t" || echo "$T"
}

rm -f "$WORK/results"
printf '%-36s %3s  %-6s %s\n' program np result detail
echo "$LIST" | while read -r name np src defs args; do
    [ -n "$name" ] || continue
    echo "$name" | grep -Eq -- "$ONLY" || continue
    if [ -n "$MAXNP" ] && [ "$np" -gt "$MAXNP" ]; then
        np=$MAXNP
        m=$(minnp "$name")
        [ "$np" -lt "$m" ] && np=$m
    fi
    exe=$WORK/bin/$name
    [ "$defs" = - ] && defs=
    [ "$args" = - ] && args=
    defs=$(echo "$defs" | tr ',' ' ') args=$(echo "$args" | tr ',' ' ')
    tag=$name.$np$(echo "$args" | tr -d ' =' | tr ':+' '__')
    srcs=
    for s in $(echo "$src" | tr '+' ' '); do srcs="$srcs $SRC/rma/$s"; done
    # shellcheck disable=SC2086
    if ! mlib_build "$name" "$WORK/logs/$name.build" "-O1 -g $INC $defs" $srcs "$LIB"; then
        printf '%-36s %3s  %-6s %s\n' "$name" "$np" BUILD "$(grep -m1 error "$WORK/logs/$name.build")"
        echo BUILD >>"$WORK/results"
        continue
    fi
    log=$WORK/logs/$tag.log
    tl=$(tlimit "$name")
    # shellcheck disable=SC2086
    mlib_launch "$np" "$tl" "$exe" $args >"$log" 2>&1
    rc=$?
    if mlib_check "$rc" "$log"; then
        printf '%-36s %3s  %-6s %s\n' "$name" "$np" pass "$args"
        echo pass >>"$WORK/results"
    else
        why=$(mlib_why "$log" 70)
        { [ "$rc" = 124 ] || [ "$rc" = 137 ]; } && why="timeout after $tl s"
        printf '%-36s %3s  %-6s %s\n' "$name" "$np" FAIL "rc $rc: $why ($log)"
        echo FAIL >>"$WORK/results"
    fi
done
p=$(mlib_count "$WORK/results" pass) f=$(mlib_count "$WORK/results" FAIL)
b=$(mlib_count "$WORK/results" BUILD)
echo "mpich_rma ($MPI$([ "$SOFTIB" = 1 ] && echo ', verbs on softib')${ENVS:+,$ENVS}): $p passed, $f failed, $b did not build (logs in $WORK/logs)"
rm -f "$WORK/results"
[ "$f" = 0 ] && [ "$b" = 0 ]
