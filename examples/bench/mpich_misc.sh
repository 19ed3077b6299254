#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Builds MPICH's topology, partitioned, MPI_T, multi-threaded, error-handling and basic test
# programs (test/mpi/topo, part, mpi_t, threads/*, errors/*, basic of MPICH 4.0.x; not part of
# Ibex) with an MPI compiler and runs each at the rank counts and with the arguments and
# compile flags of MPICH's testlist and Makefile.am, one line per run and a summary. Nothing is
# written into the sources.
#
#   examples/bench/mpich_misc.sh --src ~/mpich/test/mpi --prefix /opt/ibex
#   examples/bench/mpich_misc.sh --src DIR --prefix DIR --area topo,part --softib
#   examples/bench/mpich_misc.sh --src DIR --mpi openmpi --area threads
#
# Options:
#   --src DIR        MPICH's test/mpi (util/, include/ with a mpitestconf.h, the folders)
#   --prefix DIR     Ibex installation (bin/ibexcc, bin/ibexrun); default: the one in PATH
#   --mpi NAME       ibex (default), mpich (mpicc.mpich, mpiexec.mpich) or openmpi
#                    (mpicc.openmpi, mpirun.openmpi --oversubscribe)
#   --area LIST      comma-separated: topo, part, mpi_t, threads, errors, basic (default all)
#   --work DIR       where to build and keep the logs (default: a new directory in $TMPDIR)
#   --softib         Ibex over verbs on softib with shared memory off, at most 3 ranks
#   --max-np N       run a program at min(its rank count, N) ranks
#   --env VAR=VALUE  set in the runs' environment (repeatable)
#   --timeout S      time limit of one run (default 120; longer where MPICH's testlist says)
#   --only REGEX     run only the lines whose "dir/name np args" matches (grep -E)
# A run passes when it exits 0 and prints " No Errors"; the programs of basic/ print nothing
# of the kind and pass when they exit 0; MPICH's TestStatus programs (the aborts of
# errors/comm) pass when they exit non-zero. Exit status: 0 when every run passed, 1
# otherwise, 2 on usage.
ME=mpich_misc USAGE=28 AREAS=topo,part,mpi_t,threads,errors,basic
. "$(dirname "$0")/mpich_lib.sh"
runner_opt() {
    case $1 in
    --area) AREAS=$2; SHIFT=2 ;;
    --max-np) MAXNP=$2; SHIFT=2 ;;
    --env) ENVS="$ENVS $2"; SHIFT=2 ;;
    *) return 1 ;;
    esac
}
mlib_options "$@"
mlib_need util/mtest.c util/mtest_thread.c include/mpitestconf.h
mlib_select
[ -n "$SOFTIB" ] && [ -z "$MAXNP" ] && MAXNP=3

# The list: folder, program, ranks, then words: src=A.c+B.c (the sources when not NAME.c),
# -DNAME (a define of the Makefile.am), tl=S (MPICH's timeLimit), status / exit (the expected
# result, see above), anything else an argument. Left out: threads/spawn and errors/spawn
# (spawn), mpi_t/qmpi_test (MPICH's QMPI tool interface), errors/basic (to be run by hand, its
# README says), basic/netpipe and adapt (benchmarks without a verdict), the Fortran, C++, I/O
# and fault-tolerance folders, threads/perf (commented out of MPICH's list).
LIST='
topo cartmap1 4
topo cartzero 4
topo cartshift1 4
topo cartsuball 4
topo cartcreates 4
topo dims0 1
topo dims1 4
topo dims2 1
topo dims3 1
topo dims4 1
topo dims5 1
topo graphmap1 4
topo topotest 4
topo topodup 4
topo graphcr 4
topo graphcr2 4
topo distgraph1 4
topo dgraph_unwgt 4
part start_pready 2 -spart=1 -rpart=1 -tot_count=64 -range=1 -iteration=5
part start_pready 2 -spart=8 -rpart=8 -tot_count=64 -range=2 -iteration=5
part start_pready 2 -spart=64 -rpart=64 -tot_count=64 -range=4 -iteration=5
part start_pready 2 -spart=512 -rpart=512 -tot_count=4194304 -range=64 -iteration=5
part start_pready 2 -spart=1 -rpart=16 -tot_count=64 -range=1 -iteration=5
part start_pready 2 -spart=16 -rpart=32 -tot_count=64 -range=2 -iteration=5
part start_pready 2 -spart=8192 -rpart=512 -tot_count=4194304 -range=64 -iteration=5
part start_pready_wait 2 src=start_pready.c -DTEST_WAIT -spart=1 -rpart=1 -tot_count=64 -range=1 -iteration=5
part start_pready_wait 2 src=start_pready.c -DTEST_WAIT -spart=8 -rpart=8 -tot_count=64 -range=2 -iteration=5
part start_pready_wait 2 src=start_pready.c -DTEST_WAIT -spart=64 -rpart=64 -tot_count=64 -range=4 -iteration=5
part start_pready_wait 2 src=start_pready.c -DTEST_WAIT -spart=512 -rpart=512 -tot_count=4194304 -range=64 -iteration=5
part start_pready_wait 2 src=start_pready.c -DTEST_WAIT -spart=1 -rpart=16 -tot_count=64 -range=1 -iteration=5
part start_pready_wait 2 src=start_pready.c -DTEST_WAIT -spart=16 -rpart=32 -tot_count=64 -range=2 -iteration=5
part start_pready_wait 2 src=start_pready.c -DTEST_WAIT -spart=8192 -rpart=512 -tot_count=4194304 -range=64 -iteration=5
part start_pready_range 2 src=start_pready.c -DTEST_PREADY_RANGE -spart=16 -rpart=32 -tot_count=512 -range=2 -iteration=5
part start_pready_list 2 src=start_pready.c -DTEST_PREADY_LIST -spart=16 -rpart=32 -tot_count=512 -range=2 -iteration=5
part start_pready_list_non_consecutive 2 src=start_pready.c -DTEST_WAIT -DTEST_PREADY_LIST_NON_CONSECUTIVE -spart=16 -rpart=32 -tot_count=512 -range=2 -iteration=5
part parrived 2 -spart=1 -rpart=1 -tot_count=64 -iteration=5
part parrived 2 -spart=8 -rpart=8 -tot_count=64 -iteration=5
part parrived 2 -spart=64 -rpart=64 -tot_count=64 -iteration=5
part parrived 2 -spart=512 -rpart=512 -tot_count=4194304 -iteration=5
part parrived 2 -spart=1 -rpart=16 -tot_count=64 -iteration=5
part parrived 2 -spart=16 -rpart=32 -tot_count=64 -iteration=5
part parrived 2 -spart=8192 -rpart=512 -tot_count=4194304 -iteration=5
part parrived_wait 2 src=parrived.c -DTEST_WAIT -spart=1 -rpart=1 -tot_count=64 -iteration=5
part parrived_wait 2 src=parrived.c -DTEST_WAIT -spart=8 -rpart=8 -tot_count=64 -iteration=5
part parrived_wait 2 src=parrived.c -DTEST_WAIT -spart=64 -rpart=64 -tot_count=64 -iteration=5
part parrived_wait 2 src=parrived.c -DTEST_WAIT -spart=512 -rpart=512 -tot_count=4194304 -iteration=5
part parrived_wait 2 src=parrived.c -DTEST_WAIT -spart=1 -rpart=16 -tot_count=64 -iteration=5
part parrived_wait 2 src=parrived.c -DTEST_WAIT -spart=16 -rpart=32 -tot_count=64 -iteration=5
part parrived_wait 2 src=parrived.c -DTEST_WAIT -spart=8192 -rpart=512 -tot_count=4194304 -iteration=5
part parrived_pready_out_of_order 2 src=parrived.c -DTEST_PREADY_OUT_OF_ORDER -spart=16 -rpart=32 -tot_count=512 -iteration=5
part multipart 2
part nonblocking_pready 2
part no_start 2
mpi_t mpi_t_str 1
mpi_t mpit_isendirecv 2 0 0
mpi_t mpit_isendirecv 2 0 1
mpi_t mpit_isendirecv 2 1 0
mpi_t mpit_isendirecv 2 1 1
mpi_t mpit_vars 1
mpi_t cvarwrite 1
mpi_t getindex 1
threads/pt2pt threads 2 tl=600
threads/pt2pt threaded_sr 2
threads/pt2pt alltoall 4
threads/pt2pt sendselfth 1
threads/pt2pt multisend 2
threads/pt2pt multisend2 5
threads/pt2pt multisend3 5
threads/pt2pt multisend4 5
threads/pt2pt multisend4 5 -mode=1
threads/pt2pt greq_wait 1
threads/pt2pt greq_test 1
threads/pt2pt ibsend 2
threads/pt2pt mt_sendrecv 2 src=mt_pt2pt_common.c+mt_sendrecv_impl.c -DSEND -iter=1024 -count=1
threads/pt2pt mt_bsendrecv 2 src=mt_pt2pt_common.c+mt_sendrecv_impl.c -DBSEND -iter=1024 -count=1
threads/pt2pt mt_ssendrecv 2 src=mt_pt2pt_common.c+mt_sendrecv_impl.c -DSSEND -iter=1024 -count=1
threads/pt2pt mt_isendirecv 2 src=mt_pt2pt_common.c+mt_sendrecv_impl.c -DNONBLOCKING -DISEND -iter=1024 -count=1
threads/pt2pt mt_ibsendirecv 2 src=mt_pt2pt_common.c+mt_sendrecv_impl.c -DNONBLOCKING -DIBSEND -iter=1024 -count=1
threads/pt2pt mt_issendirecv 2 src=mt_pt2pt_common.c+mt_sendrecv_impl.c -DNONBLOCKING -DISSEND -iter=1024 -count=1
threads/pt2pt mt_sendrecv_huge 2 src=mt_pt2pt_common.c+mt_sendrecv_impl.c -DHUGE_COUNT -DSEND -iter=64 -count=4096
threads/pt2pt mt_bsendrecv_huge 2 src=mt_pt2pt_common.c+mt_sendrecv_impl.c -DHUGE_COUNT -DBSEND -iter=8 -count=4096
threads/pt2pt mt_ssendrecv_huge 2 src=mt_pt2pt_common.c+mt_sendrecv_impl.c -DHUGE_COUNT -DSSEND -iter=64 -count=4096
threads/pt2pt mt_isendirecv_huge 2 src=mt_pt2pt_common.c+mt_sendrecv_impl.c -DHUGE_COUNT -DNONBLOCKING -DISEND -iter=64 -count=4096
threads/pt2pt mt_ibsendirecv_huge 2 src=mt_pt2pt_common.c+mt_sendrecv_impl.c -DHUGE_COUNT -DNONBLOCKING -DIBSEND -iter=8 -count=4096
threads/pt2pt mt_issendirecv_huge 2 src=mt_pt2pt_common.c+mt_sendrecv_impl.c -DHUGE_COUNT -DNONBLOCKING -DISSEND -iter=64 -count=4096
threads/pt2pt mt_sendrecv_huge 2 src=mt_pt2pt_common.c+mt_sendrecv_impl.c -DHUGE_COUNT -DSEND -iter=64 -count=4194304
threads/pt2pt mt_bsendrecv_huge 2 src=mt_pt2pt_common.c+mt_sendrecv_impl.c -DHUGE_COUNT -DBSEND -iter=8 -count=4194304
threads/pt2pt mt_ssendrecv_huge 2 src=mt_pt2pt_common.c+mt_sendrecv_impl.c -DHUGE_COUNT -DSSEND -iter=64 -count=4194304
threads/pt2pt mt_isendirecv_huge 2 src=mt_pt2pt_common.c+mt_sendrecv_impl.c -DHUGE_COUNT -DNONBLOCKING -DISEND -iter=64 -count=4194304
threads/pt2pt mt_ibsendirecv_huge 2 src=mt_pt2pt_common.c+mt_sendrecv_impl.c -DHUGE_COUNT -DNONBLOCKING -DIBSEND -iter=8 -count=4194304
threads/pt2pt mt_issendirecv_huge 2 src=mt_pt2pt_common.c+mt_sendrecv_impl.c -DHUGE_COUNT -DNONBLOCKING -DISSEND -iter=64 -count=4194304
threads/pt2pt mt_probe_isendrecv 2 src=mt_pt2pt_common.c+mt_probe_impl.c -DPROBE -DNBLOCKINGSEND -DISEND -DBLOCKINGRECV -iter=1024 -count=1
threads/pt2pt mt_probe_sendrecv 2 src=mt_pt2pt_common.c+mt_probe_impl.c -DPROBE -DBLOCKINGSEND -DSEND -DBLOCKINGRECV -iter=1024 -count=1
threads/pt2pt mt_iprobe_isendrecv 2 src=mt_pt2pt_common.c+mt_probe_impl.c -DIPROBE -DNBLOCKINGSEND -DISEND -DBLOCKINGRECV -iter=1024 -count=1
threads/pt2pt mt_iprobe_sendrecv 2 src=mt_pt2pt_common.c+mt_probe_impl.c -DIPROBE -DBLOCKINGSEND -DSEND -DBLOCKINGRECV -iter=1024 -count=1
threads/pt2pt mt_mprobe_isendrecv 2 src=mt_pt2pt_common.c+mt_probe_impl.c -DMPROBE -DNBLOCKINGSEND -DISEND -DBLOCKINGRECV -iter=1024 -count=1
threads/pt2pt mt_mprobe_sendrecv 2 src=mt_pt2pt_common.c+mt_probe_impl.c -DMPROBE -DBLOCKINGSEND -DSEND -DBLOCKINGRECV -iter=1024 -count=1
threads/pt2pt mt_mprobe_sendirecv 2 src=mt_pt2pt_common.c+mt_probe_impl.c -DMPROBE -DBLOCKINGSEND -DSEND -DNBLOCKINGRECV -iter=1024 -count=1
threads/pt2pt mt_improbe_isendrecv 2 src=mt_pt2pt_common.c+mt_probe_impl.c -DIMPROBE -DNBLOCKINGSEND -DISEND -DBLOCKINGRECV -iter=1024 -count=1
threads/pt2pt mt_improbe_sendrecv 2 src=mt_pt2pt_common.c+mt_probe_impl.c -DIMPROBE -DBLOCKINGSEND -DSEND -DBLOCKINGRECV -iter=1024 -count=1
threads/pt2pt mt_probe_sendrecv_huge 2 src=mt_pt2pt_common.c+mt_probe_impl.c -DHUGE_COUNT -DPROBE -DBLOCKINGSEND -DSEND -DBLOCKINGRECV -iter=64 -count=4096
threads/pt2pt mt_iprobe_sendrecv_huge 2 src=mt_pt2pt_common.c+mt_probe_impl.c -DHUGE_COUNT -DIPROBE -DBLOCKINGSEND -DSEND -DBLOCKINGRECV -iter=64 -count=4096
threads/pt2pt mt_mprobe_sendrecv_huge 2 src=mt_pt2pt_common.c+mt_probe_impl.c -DHUGE_COUNT -DMPROBE -DBLOCKINGSEND -DSEND -DBLOCKINGRECV -iter=64 -count=4096
threads/pt2pt mt_improbe_sendrecv_huge 2 src=mt_pt2pt_common.c+mt_probe_impl.c -DHUGE_COUNT -DIMPROBE -DBLOCKINGSEND -DSEND -DBLOCKINGRECV -iter=64 -count=4096
threads/pt2pt mt_probe_sendrecv_huge 2 src=mt_pt2pt_common.c+mt_probe_impl.c -DHUGE_COUNT -DPROBE -DBLOCKINGSEND -DSEND -DBLOCKINGRECV -iter=64 -count=4194304
threads/pt2pt mt_iprobe_sendrecv_huge 2 src=mt_pt2pt_common.c+mt_probe_impl.c -DHUGE_COUNT -DIPROBE -DBLOCKINGSEND -DSEND -DBLOCKINGRECV -iter=64 -count=4194304
threads/pt2pt mt_mprobe_sendrecv_huge 2 src=mt_pt2pt_common.c+mt_probe_impl.c -DHUGE_COUNT -DMPROBE -DBLOCKINGSEND -DSEND -DBLOCKINGRECV -iter=64 -count=4194304
threads/pt2pt mt_improbe_sendrecv_huge 2 src=mt_pt2pt_common.c+mt_probe_impl.c -DHUGE_COUNT -DIMPROBE -DBLOCKINGSEND -DSEND -DBLOCKINGRECV -iter=64 -count=4194304
threads/pt2pt mt_sendrecv_pers_huge 2 src=mt_pt2pt_common.c+mt_pers_sendrecv_impl.c -DHUGE_COUNT -DSEND -iter=64 -count=4096
threads/pt2pt mt_bsendrecv_pers_huge 2 src=mt_pt2pt_common.c+mt_pers_sendrecv_impl.c -DHUGE_COUNT -DBSEND -iter=8 -count=4096
threads/pt2pt mt_ssendrecv_pers_huge 2 src=mt_pt2pt_common.c+mt_pers_sendrecv_impl.c -DHUGE_COUNT -DSSEND -iter=64 -count=4096
threads/pt2pt mt_sendrecv_pers_huge 2 src=mt_pt2pt_common.c+mt_pers_sendrecv_impl.c -DHUGE_COUNT -DSEND -iter=64 -count=4194304
threads/pt2pt mt_bsendrecv_pers_huge 2 src=mt_pt2pt_common.c+mt_pers_sendrecv_impl.c -DHUGE_COUNT -DBSEND -iter=8 -count=4194304
threads/pt2pt mt_ssendrecv_pers_huge 2 src=mt_pt2pt_common.c+mt_pers_sendrecv_impl.c -DHUGE_COUNT -DSSEND -iter=64 -count=4194304
threads/pt2pt mt_mpicancel 2
threads/comm ctxdup 4
threads/comm dup_leak_test 2 -iter=12345
threads/comm dup_leak_test 2 -iter=1234
threads/comm comm_dup_deadlock 4
threads/comm comm_create_threads 4
threads/comm comm_create_group_threads 4
threads/comm comm_create_group_threads2 4
threads/comm idup_deadlock 4
threads/comm comm_idup 4
threads/comm ctxidup 4
threads/comm idup_nb 4
threads/comm idup_comm_gen 4
threads/coll allred 2
threads/coll iallred 2
threads/rma multirma 2
threads/rma multiget 2
threads/rma multifence 3
threads/init initth 1
threads/init initth 2
threads/init mult_session 4
threads/mpi_t mpit_threading 1
threads/part parrived_wait 2 -spart=8 -rpart=8 -tot_count=64 -iteration=5
threads/part parrived_wait 2 -spart=16 -rpart=32 -tot_count=64 -iteration=5
errors/coll noalias 2
errors/coll nb_noalias 2 src=noalias.c -DUSE_MTEST_NBC
errors/coll noalias2 4
errors/coll noalias3 4
errors/coll rerr 2
errors/coll nb_rerr 2 src=rerr.c -DUSE_MTEST_NBC
errors/coll reduce_local 1
errors/coll bcastlength 4
errors/coll ibcastlength 4 src=bcastlength.c -DUSE_MTEST_NBC
errors/coll reducelength 4
errors/coll ireducelength 4 src=reducelength.c -DUSE_MTEST_NBC
errors/coll allreducelength 4
errors/coll iallreducelength 4 src=allreducelength.c -DUSE_MTEST_NBC
errors/coll reduceop 4
errors/coll ireduceop 4 src=reduceop.c -DUSE_MTEST_NBC
errors/coll gatherlength 4
errors/coll igatherlength 4 src=gatherlength.c -DUSE_MTEST_NBC
errors/coll scatterlength 4
errors/coll iscatterlength 4 src=scatterlength.c -DUSE_MTEST_NBC
errors/coll allgatherlength 4
errors/coll iallgatherlength 4 src=allgatherlength.c -DUSE_MTEST_NBC
errors/coll alltoalllength 4 -DUSE_MTEST_NBC
errors/comm cfree 4
errors/comm ccreate1 8
errors/comm userdup 4
errors/comm manysplit 4
errors/comm too_many_comms 4
errors/comm too_many_icomms 4
errors/comm too_many_comms2 4
errors/comm too_many_comms3 4
errors/comm too_many_icomms2 4
errors/comm comm_create_nullarg 1
errors/comm comm_create_group_nullarg 1
errors/comm comm_get_info_nullarg 1
errors/comm comm_group_nullarg 1
errors/comm comm_size_nullarg 1
errors/comm comm_split_nullarg 1
errors/comm comm_split_type_nullarg 1
errors/comm intercomm_create_nullarg 1
errors/comm subcomm_abort 4 status
errors/comm subcomm_abort2 6 status
errors/comm intercomm_abort 6 status
errors/datatype getcnterr 1
errors/datatype type_contiguous_nullarg 1
errors/datatype type_extent_nullarg 1
errors/datatype type_get_extent_nullarg 1
errors/datatype type_get_true_extent_nullarg 1
errors/datatype type_get_true_extent_x_nullarg 1
errors/datatype type_lb_nullarg 1
errors/datatype type_ub_nullarg 1
errors/datatype type_size_x_nullarg 1
errors/datatype type_vector_nullarg 1
errors/group gerr 1
errors/group group_difference_nullarg 1
errors/group group_intersection_nullarg 1
errors/group group_range_excl_nullarg 1
errors/group group_range_incl_nullarg 1
errors/group group_rank_nullarg 1
errors/group group_size_nullarg 1
errors/group group_translate_ranks_nullarg 1
errors/group group_union_nullarg 1
errors/pt2pt proberank 1
errors/pt2pt truncmsg1 2
errors/pt2pt truncmsg2 2
errors/pt2pt truncmsg_mrecv 2
errors/pt2pt errinstatts 2
errors/pt2pt errinstatta 2
errors/pt2pt errinstatws 2
errors/pt2pt errinstatwa 2
errors/rma winerr 2
errors/rma winerr2 2
errors/rma cas_type_check 2
errors/rma win_sync_unlock 2
errors/rma win_sync_free_pt 2
errors/rma win_sync_free_at 2
errors/rma win_sync_complete 2
errors/rma win_sync_lock_at 2
errors/rma win_sync_lock_pt 2
errors/rma win_sync_lock_fence 2
errors/rma win_sync_nested 2
errors/rma win_sync_op 2
errors/topo cartsmall 4
errors/attr keyvalmis 1
basic self 1 exit
basic simple 2 exit
basic sendrecv 2 exit
basic srtest 2 exit
basic wtime 1 exit
basic patterns 2 exit
'

I="-I$SRC/include"
SINGLE=$(mlib_util libmtest "$I" util/mtest.c util/mtest_common.c util/mtest_single.c util/dtypes.c) ||
    exit 1
THREAD=$(mlib_util libmtest_thread "$I -DMTEST_USE_THREAD" util/mtest.c util/mtest_common.c \
    util/mtest_thread.c util/dtypes.c) || exit 1

# in_areas DIR: 0 when DIR's area (its first component) was asked for.
in_areas() {
    case ",$AREAS," in *",${1%%/*},"*) return 0 ;; esac
    return 1
}

rm -f "$WORK/results"
printf '%-60s %-3s %s\n' program np result
echo "$LIST" | while read -r dir prog np rest; do
    [ -n "$dir" ] && in_areas "$dir" || continue
    expect=ok tl=$T args= defs= srcs=$prog.c
    for w in $rest; do
        case $w in
        status | exit) expect=$w ;;
        tl=*) tl=${w#tl=} ;;
        src=*) srcs=$(echo "${w#src=}" | tr '+' ' ') ;;
        -D*) defs="$defs $w" ;;
        *) args="$args $w" ;;
        esac
    done
    [ "$tl" -lt "$T" ] && tl=$T
    label="$dir/$prog$args"
    echo "$label" | grep -Eq -- "$ONLY" || continue
    [ -n "$MAXNP" ] && [ "$np" -gt "$MAXNP" ] && np=$MAXNP
    exe=$(echo "$dir" | tr / _)_$prog lib=$SINGLE flags="$I$defs" files=
    case $dir in threads/*) lib="$THREAD -lpthread" flags="$flags -DMTEST_USE_THREAD" ;; esac
    for s in $srcs; do files="$files $SRC/$dir/$s"; done
    log=$WORK/logs/$exe.$np$(echo "$args" | tr -d ' =' | tr -c 'A-Za-z0-9_.\n' _)
    # shellcheck disable=SC2086
    if ! mlib_build "$exe" "$WORK/logs/$exe.build" "$flags" $files $lib; then
        mlib_build_failed 60 "$label" "$np" "$WORK/logs/$exe.build" "$WORK/results" BUILD
        continue
    fi
    # shellcheck disable=SC2086
    mlib_launch "$np" "$tl" "./$exe" $args >"$log" 2>&1
    mlib_verdict $? "$log" "$expect" 60 "$label" "$np" "$WORK/results" FAIL
done
mlib_summary "$WORK/results" pass FAIL BUILD "$MPI${SOFTIB:+, verbs on softib}; $AREAS"
