/* SPDX-License-Identifier: BSD-3-Clause */
/* Communicator attributes (attr.c): the hooks MPI_Comm_dup, MPI_Comm_free and MPI_Finalize call. */
#ifndef IBEX_ATTR_H
#define IBEX_ATTR_H

struct ibex_comm;

/* Runs the copy callbacks of old's attributes, in the order they were set, onto new (just
 * created). On a failure the attributes already copied are deleted again and the callback's
 * code is returned (raised on old's handler by the caller). */
int ibex_attr_comm_copy(struct ibex_comm *old, struct ibex_comm *new_comm);
/* Runs the delete callbacks of every attribute of comm, the last set first, and drops them. On
 * a callback's failure stops there (the rest stay) and returns its code. */
int ibex_attr_comm_delete_all(struct ibex_comm *comm);

/* Datatype attributes (attr_type.c): MPI_Type_dup runs the copy callbacks of old's attributes
 * onto new, MPI_Type_free the delete callbacks (the last set first); each returns the first
 * failing callback's code. */
int ibex_attr_type_copy(int old_type, int new_type);
int ibex_attr_type_delete_all(int type);

#endif
