/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_T events (MPI 4.0), which MPI makes optional: Ibex offers none. There are no event
 * sources and no event types (MPI_T_source_get_num and MPI_T_event_get_num, in mpit.c, answer
 * 0; every category has 0 events), so no registration and no event instance can ever exist.
 * Every other event call therefore fails as MPI says for what it is given:
 *  - a source or event index: MPI_T_ERR_INVALID_INDEX (none is valid);
 *  - an event name: MPI_T_ERR_INVALID_NAME;
 *  - a registration or an event instance: MPI_T_ERR_INVALID_HANDLE;
 *  - before MPI_T_init_thread / after the last MPI_T_finalize: MPI_T_ERR_NOT_INITIALIZED.
 */
#include "ibex_entry.h"
#include "mpit_internal.h"

int PMPI_T_source_get_info(int source_index, char *name, int *name_len, char *desc, int *desc_len,
                           MPI_T_source_order *ordering, MPI_Count *ticks_per_second,
                           MPI_Count *max_ticks, MPI_Info *info)
{
    IBEX_ENTER_ANYTIME(T_source_get_info);
    IBEX_MPIT_READY();
    (void)source_index, (void)name, (void)name_len, (void)desc, (void)desc_len;
    (void)ordering, (void)ticks_per_second, (void)max_ticks, (void)info;
    return MPI_T_ERR_INVALID_INDEX;
}

int PMPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp)
{
    IBEX_ENTER_ANYTIME(T_source_get_timestamp);
    IBEX_MPIT_READY();
    (void)source_index, (void)timestamp;
    return MPI_T_ERR_INVALID_INDEX;
}

int PMPI_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                          MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                          int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                          int *desc_len, int *bind)
{
    IBEX_ENTER_ANYTIME(T_event_get_info);
    IBEX_MPIT_READY();
    (void)event_index, (void)name, (void)name_len, (void)verbosity, (void)array_of_datatypes;
    (void)array_of_displacements, (void)num_elements, (void)enumtype, (void)info, (void)desc;
    (void)desc_len, (void)bind;
    return MPI_T_ERR_INVALID_INDEX;
}

int PMPI_T_event_get_index(const char *name, int *event_index)
{
    IBEX_ENTER_ANYTIME(T_event_get_index);
    IBEX_MPIT_READY();
    if (!name || !event_index)
        return MPI_T_ERR_INVALID;
    return MPI_T_ERR_INVALID_NAME;
}

int PMPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                              MPI_T_event_registration *event_registration)
{
    IBEX_ENTER_ANYTIME(T_event_handle_alloc);
    IBEX_MPIT_READY();
    (void)event_index, (void)obj_handle, (void)info, (void)event_registration;
    return MPI_T_ERR_INVALID_INDEX;
}

int PMPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info)
{
    IBEX_ENTER_ANYTIME(T_event_handle_set_info);
    IBEX_MPIT_READY();
    (void)event_registration, (void)info;
    return MPI_T_ERR_INVALID_HANDLE;
}

int PMPI_T_event_handle_get_info(MPI_T_event_registration event_registration, MPI_Info *info_used)
{
    IBEX_ENTER_ANYTIME(T_event_handle_get_info);
    IBEX_MPIT_READY();
    (void)event_registration, (void)info_used;
    return MPI_T_ERR_INVALID_HANDLE;
}

int PMPI_T_event_register_callback(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,
                                   MPI_T_event_cb_function *event_cb_function)
{
    IBEX_ENTER_ANYTIME(T_event_register_callback);
    IBEX_MPIT_READY();
    (void)event_registration, (void)cb_safety, (void)info, (void)user_data;
    (void)event_cb_function;
    return MPI_T_ERR_INVALID_HANDLE;
}

int PMPI_T_event_callback_set_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info)
{
    IBEX_ENTER_ANYTIME(T_event_callback_set_info);
    IBEX_MPIT_READY();
    (void)event_registration, (void)cb_safety, (void)info;
    return MPI_T_ERR_INVALID_HANDLE;
}

int PMPI_T_event_callback_get_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info *info_used)
{
    IBEX_ENTER_ANYTIME(T_event_callback_get_info);
    IBEX_MPIT_READY();
    (void)event_registration, (void)cb_safety, (void)info_used;
    return MPI_T_ERR_INVALID_HANDLE;
}

int PMPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                             MPI_T_event_free_cb_function *free_cb_function)
{
    IBEX_ENTER_ANYTIME(T_event_handle_free);
    IBEX_MPIT_READY();
    (void)event_registration, (void)user_data, (void)free_cb_function;
    return MPI_T_ERR_INVALID_HANDLE;
}

int PMPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                     MPI_T_event_dropped_cb_function *dropped_cb_function)
{
    IBEX_ENTER_ANYTIME(T_event_set_dropped_handler);
    IBEX_MPIT_READY();
    (void)event_registration, (void)dropped_cb_function;
    return MPI_T_ERR_INVALID_HANDLE;
}

/* Event instances exist only inside an event callback, which Ibex never calls. */
int PMPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer)
{
    IBEX_ENTER_ANYTIME(T_event_read);
    IBEX_MPIT_READY();
    (void)event_instance, (void)element_index, (void)buffer;
    return MPI_T_ERR_INVALID_HANDLE;
}

int PMPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer)
{
    IBEX_ENTER_ANYTIME(T_event_copy);
    IBEX_MPIT_READY();
    (void)event_instance, (void)buffer;
    return MPI_T_ERR_INVALID_HANDLE;
}

int PMPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp)
{
    IBEX_ENTER_ANYTIME(T_event_get_timestamp);
    IBEX_MPIT_READY();
    (void)event_instance, (void)event_timestamp;
    return MPI_T_ERR_INVALID_HANDLE;
}

int PMPI_T_event_get_source(MPI_T_event_instance event_instance, int *source_index)
{
    IBEX_ENTER_ANYTIME(T_event_get_source);
    IBEX_MPIT_READY();
    (void)event_instance, (void)source_index;
    return MPI_T_ERR_INVALID_HANDLE;
}

/* Categories exist (mpit.c); none holds events. */
int PMPI_T_category_get_num_events(int cat_index, int *num_events)
{
    IBEX_ENTER_ANYTIME(T_category_get_num_events);
    IBEX_MPIT_READY();
    if (cat_index < 0 || cat_index >= ibex_mpit_category_count())
        return MPI_T_ERR_INVALID_INDEX;
    if (!num_events)
        return MPI_T_ERR_INVALID;
    *num_events = 0;
    return MPI_SUCCESS;
}

int PMPI_T_category_get_events(int cat_index, int len, int indices[])
{
    IBEX_ENTER_ANYTIME(T_category_get_events);
    IBEX_MPIT_READY();
    (void)indices; /* nothing to write */
    if (cat_index < 0 || cat_index >= ibex_mpit_category_count())
        return MPI_T_ERR_INVALID_INDEX;
    return len < 0 ? MPI_T_ERR_INVALID : MPI_SUCCESS;
}

IBEX_MPI_ALIASES(mpit_event)
