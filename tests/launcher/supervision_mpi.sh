# SPDX-License-Identifier: BSD-3-Clause
# The supervision cases of supervision.sh, with the MPI program tests/launcher/progs/mpi_fail.
PROG=${top_builddir:?}/tests/launcher/progs/mpi_fail
. "${top_srcdir:-.}/tests/launcher/supervision.sh"
