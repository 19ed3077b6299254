#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Builds MPICH's datatype and point-to-point test programs (test/mpi/datatype, test/mpi/pt2pt of
# an MPICH source tree, 4.0.x; not part of Ibex) with an MPI compiler and runs each at the rank
# counts and with the arguments of MPICH's own testlist, one line per run and a pass/fail table.
# A run passes when it exits 0 and prints " No Errors". Nothing is written into the sources.
#
#   examples/bench/mpich_dt.sh --src ~/mpich/test/mpi --prefix /opt/ibex
#   examples/bench/mpich_dt.sh --src DIR --prefix DIR --softib      # verbs on softib, no shm
#   examples/bench/mpich_dt.sh --src DIR --impl mpich               # mpicc.mpich + mpiexec.mpich
#
# Options:
#   --src DIR        MPICH's test/mpi (datatype/, pt2pt/, util/, include/ with an mpitestconf.h)
#   --prefix DIR     Ibex installation (bin/ibexcc, bin/ibexrun); default: the one in PATH
#   --impl NAME      ibex (default), mpich or openmpi (mpicc.NAME, mpiexec.mpich / mpirun.openmpi)
#   --work DIR       where to build and keep the logs (default: a new directory in $TMPDIR)
#   --softib         Ibex over verbs on softib with shared memory off (ibexrun --softib)
#   --large          also the programs that need 4-7 GiB of memory
#   --max-ranks N    skip runs of more than N ranks (default 12)
#   --timeout S      time limit of one run (default 120)
#   --only REGEX     run only the programs whose name matches
# Left out: programs needing dtpools (pt2pt/pingping, sendrecv1, sendself), the removed MPI-1
# calls and MPI_LB / MPI_UB (*_oldapi, struct_no_real_types), C++ types (cxx_types), the 9.8 GiB
# large_vec. Exit status: 0 when nothing failed, 1 otherwise, 2 on usage.
ME=mpich_dt USAGE=24 LARGE=0 MAXN=12
. "$(dirname "$0")/mpich_lib.sh"
runner_opt() {
    case $1 in
    --impl) MPI=$2; SHIFT=2 ;;
    --large) LARGE=1 ;;
    --max-ranks) MAXN=$2; SHIFT=2 ;;
    *) return 1 ;;
    esac
}
mlib_options "$@"
mlib_need datatype util include/mpitestconf.h
mlib_select

# The programs: area, name, ranks, arguments (MPICH's testlist.in); "L" marks the large ones.
# irecv_any is recv_any.c built with -DTEST_NB.
list() {
    cat <<'EOF'
datatype contents 1
datatype gaddress 1
datatype lbub 1
datatype localpack 1
datatype pack_external 1
datatype simple_pack 1
datatype simple_pack_external 1
datatype simple_pack_external2 1
datatype transpose_pack 1
datatype slice_pack 1
datatype slice_pack_external 1
datatype struct_pack 1
datatype structpack2 1
datatype typecommit 1
datatype typename 1
datatype typefree 1
datatype zeroparms 1
datatype concurrent_irecv 3
datatype getpartelm 2
datatype tresized 2
datatype tresized2 2
datatype sendrecvt2 2
datatype sendrecvt4 2
datatype tmatchsize 1
datatype tfree 2
datatype typelb 1
datatype contigstruct 1
datatype struct_zero_count 1
datatype blockindexed_zero_count 1
datatype blockindexed_misc 1
datatype indexed_misc 1
datatype subarray_pack 1
datatype subarray 2
datatype darray_pack 1
datatype darray_pack 9
datatype darray_cyclic 12
datatype pairtype_size_extent 1
datatype pairtype_pack 1
datatype simple_commit 1
datatype simple_size_extent 1
datatype struct_empty_el 1
datatype contig_zero_count 1
datatype simple_resized 1
datatype unusual_noncontigs 1
datatype hindexed_zeros 1
datatype lots_of_types 1
datatype get_elements_pairtype 1
datatype unpack 1
datatype struct_ezhov 1
datatype zeroblks 1
datatype struct_derived_zeros 1
datatype struct_verydeep 1
datatype get_elements 1
datatype hindexed_block 1
datatype hindexed_block_contents 1
datatype vecblklen 1
datatype hvecblklen 1
datatype longdouble 1
datatype dataalign 2
datatype dataalign2 1
datatype type_large 1
datatype large_count 1
datatype large_type 1
datatype triangular_pack 1
datatype sizedtypes 1
L datatype large_type_sendrec 2 31
pt2pt sendrecv2 2
pt2pt sendrecv3 2
pt2pt sendrecv3 2 -isendrecv
pt2pt sendflood 8
pt2pt sendall 4
pt2pt anyall 2
pt2pt eagerdt 2
pt2pt bottom 2
pt2pt bsend1 1
pt2pt bsend2 1
pt2pt bsend3 1
pt2pt bsend4 1
pt2pt bsend5 4
pt2pt bsendalign 2
pt2pt bsendpending 2
pt2pt bsendfrag 2
pt2pt isendself 1
pt2pt issendselfcancel 1
pt2pt isendirecv 10
pt2pt isendrecv 4
pt2pt isendrecv_replace 4
pt2pt icsend 4
pt2pt icsend 4 -randomize=1
pt2pt icprobe 4
pt2pt rqstatus 2
pt2pt rqfreeb 4
pt2pt greq1 1
pt2pt probe_unexp 4
pt2pt probenull 1
pt2pt scancel 2
pt2pt scancel2 2
pt2pt pscancel 2
pt2pt rcancel 2
pt2pt cancelrecv 2
pt2pt scancel_unmatch 2
pt2pt cancelanysrc 2
pt2pt isendselfprobe 1
pt2pt inactivereq 1
pt2pt waittestnull 1
pt2pt waitany_null 1
pt2pt mprobe 2
pt2pt big_count_status 1
pt2pt many_isend 3
pt2pt manylmt 2
pt2pt huge_underflow 2
pt2pt huge_anysrc 2
pt2pt huge_dupcomm 2
pt2pt huge_ssend 2
pt2pt multi_psend_derived 2
pt2pt dtype_send 2
pt2pt recv_any 2
pt2pt irecv_any 2
pt2pt large_tag 2
pt2pt precv_anysrc 2
pt2pt precv_anysrc_exp 2
pt2pt pt2pt_large 2
L pt2pt large_message 3
EOF
}

I="-I$SRC/include"
LIB=$(mlib_util libmtest "$I" util/mtest.c util/mtest_common.c util/mtest_single.c util/dtypes.c) ||
    exit 1

# build AREA NAME: once per program; 0 when the binary is there.
build() {
    src=$SRC/$1/$2.c def=
    [ "$2" = irecv_any ] && src=$SRC/$1/recv_any.c def=-DTEST_NB
    mlib_build "$2" "$WORK/logs/build_$2.log" "$I $def" "$src" "$LIB"
}

tab=$(printf '\t')
list | while read -r first rest; do
    large=0
    if [ "$first" = L ]; then large=1; set -- $rest; else set -- $first $rest; fi
    area=$1 name=$2 n=$3
    shift 3
    args="$*"
    echo "$name" | grep -Eq -- "$ONLY" || continue
    tag="$area/$name -n $n${args:+ $args}"
    if [ "$large" = 1 ] && [ "$LARGE" = 0 ] || [ "$n" -gt "$MAXN" ]; then
        echo "skip$tab$tag"
        continue
    fi
    if ! build "$area" "$name"; then
        echo "BUILD$tab$tag$tab$(grep -m1 -i error "$WORK/logs/build_$name.log")"
        continue
    fi
    log=$WORK/logs/run_${name}_$n$(echo "$args" | tr -c 'A-Za-z0-9=\n' _).log
    # shellcheck disable=SC2086
    mlib_launch "$n" "$T" ./"$name" $args >"$log" 2>&1
    rc=$?
    if mlib_check "$rc" "$log"; then
        echo "pass$tab$tag"
    else
        echo "FAIL$tab$tag${tab}rc=$rc $(mlib_why "$log")"
    fi
done | tee "$WORK/results"
np=$(mlib_count "$WORK/results" pass) nf=$(mlib_count "$WORK/results" FAIL)
nb=$(mlib_count "$WORK/results" BUILD) ns=$(mlib_count "$WORK/results" skip)
echo "mpich_dt ($MPI${SOFTIB:+ softib}): $np passed, $nf failed, $nb did not build, $ns skipped; logs in $WORK"
[ "$nf$nb" = 00 ]
