/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ibex: the public MPI C API (a growing subset of MPI 4.x), usable from C and C++.
 *
 * Handles are integers: the kind of object sits in bits 26-29 and the index below, so the
 * library can check any handle a program passes without dereferencing it. Every MPI_ function
 * also exists as PMPI_ (the profiling interface); MPI_ is a weak alias of PMPI_.
 */
#ifndef IBEX_MPI_H
#define IBEX_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define IBEX_VERSION_STRING "0.1.0"
#define MPI_VERSION         4
#define MPI_SUBVERSION      1 /* the MPI 4.1 interface, a subset of it: see the README */

typedef int MPI_Comm;
typedef int MPI_Group;
typedef int MPI_Datatype;
typedef int MPI_Request;
typedef int MPI_Op;
typedef int MPI_Errhandler;
typedef int MPI_Message;
typedef int MPI_Info;
typedef intptr_t MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;
typedef long long MPI_Fint_unused;
typedef int MPI_Fint;

typedef struct MPI_Status {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int ibex_cancelled;
    MPI_Count ibex_count; /* bytes received */
} MPI_Status;

/* The Fortran forms of a status (MPI 4.1 section 19.3.5), for MPI_Status_c2f / f2c / c2f08 /
 * f082c / f082f / f2f08: an array of MPI_F_STATUS_SIZE MPI_Fint (MPI_F_SOURCE, MPI_F_TAG and
 * MPI_F_ERROR are the 0-based places of the public fields; then the cancelled flag and the
 * byte count, low and high 32 bits) and the mpi_f08 TYPE(MPI_Status) with the same fields. */
#define MPI_F_STATUS_SIZE 6
#define MPI_F_SOURCE      0
#define MPI_F_TAG         1
#define MPI_F_ERROR       2
typedef struct MPI_F08_status {
    MPI_Fint MPI_SOURCE;
    MPI_Fint MPI_TAG;
    MPI_Fint MPI_ERROR;
    MPI_Fint ibex_internal[MPI_F_STATUS_SIZE - 3];
} MPI_F08_status;
#define MPI_F_STATUS_IGNORE     ((MPI_Fint *)0)
#define MPI_F_STATUSES_IGNORE   ((MPI_Fint *)0)
#define MPI_F08_STATUS_IGNORE   ((MPI_F08_status *)0)
#define MPI_F08_STATUSES_IGNORE ((MPI_F08_status *)0)

#define IBEX_KIND_COMM           1
#define IBEX_KIND_GROUP          2
#define IBEX_KIND_DATATYPE       3
#define IBEX_KIND_REQUEST        4
#define IBEX_KIND_OP             5
#define IBEX_KIND_ERRHANDLER     6
#define IBEX_KIND_MESSAGE        7
#define IBEX_KIND_INFO           8
#define IBEX_KIND_WIN            9
#define IBEX_HANDLE(kind, index) ((int)(((kind) << 26) | (index)))

/* Communicators, groups, requests, messages, infos */
#define MPI_COMM_NULL       ((MPI_Comm)IBEX_HANDLE(IBEX_KIND_COMM, 0))
#define MPI_COMM_WORLD      ((MPI_Comm)IBEX_HANDLE(IBEX_KIND_COMM, 1))
#define MPI_COMM_SELF       ((MPI_Comm)IBEX_HANDLE(IBEX_KIND_COMM, 2))
#define MPI_GROUP_NULL      ((MPI_Group)IBEX_HANDLE(IBEX_KIND_GROUP, 0))
#define MPI_GROUP_EMPTY     ((MPI_Group)IBEX_HANDLE(IBEX_KIND_GROUP, 1))
#define MPI_REQUEST_NULL    ((MPI_Request)IBEX_HANDLE(IBEX_KIND_REQUEST, 0))
#define MPI_MESSAGE_NULL    ((MPI_Message)IBEX_HANDLE(IBEX_KIND_MESSAGE, 0))
#define MPI_MESSAGE_NO_PROC ((MPI_Message)IBEX_HANDLE(IBEX_KIND_MESSAGE, 1))
#define MPI_INFO_NULL       ((MPI_Info)IBEX_HANDLE(IBEX_KIND_INFO, 0))
#define MPI_INFO_ENV        ((MPI_Info)IBEX_HANDLE(IBEX_KIND_INFO, 1))

/* Error handlers */
#define MPI_ERRHANDLER_NULL  ((MPI_Errhandler)IBEX_HANDLE(IBEX_KIND_ERRHANDLER, 0))
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)IBEX_HANDLE(IBEX_KIND_ERRHANDLER, 1))
#define MPI_ERRORS_RETURN    ((MPI_Errhandler)IBEX_HANDLE(IBEX_KIND_ERRHANDLER, 2))
#define MPI_ERRORS_ABORT     ((MPI_Errhandler)IBEX_HANDLE(IBEX_KIND_ERRHANDLER, 3))

/* Predefined datatypes: the index is the row in runtime/engine/datatype.c's table. */
#define IBEX_DT(i)                  ((MPI_Datatype)IBEX_HANDLE(IBEX_KIND_DATATYPE, (i)))
#define MPI_DATATYPE_NULL           IBEX_DT(0)
#define MPI_CHAR                    IBEX_DT(1)
#define MPI_SIGNED_CHAR             IBEX_DT(2)
#define MPI_UNSIGNED_CHAR           IBEX_DT(3)
#define MPI_BYTE                    IBEX_DT(4)
#define MPI_WCHAR                   IBEX_DT(5)
#define MPI_SHORT                   IBEX_DT(6)
#define MPI_UNSIGNED_SHORT          IBEX_DT(7)
#define MPI_INT                     IBEX_DT(8)
#define MPI_UNSIGNED                IBEX_DT(9)
#define MPI_LONG                    IBEX_DT(10)
#define MPI_UNSIGNED_LONG           IBEX_DT(11)
#define MPI_LONG_LONG_INT           IBEX_DT(12)
#define MPI_LONG_LONG               MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG      IBEX_DT(13)
#define MPI_FLOAT                   IBEX_DT(14)
#define MPI_DOUBLE                  IBEX_DT(15)
#define MPI_LONG_DOUBLE             IBEX_DT(16)
#define MPI_INT8_T                  IBEX_DT(17)
#define MPI_INT16_T                 IBEX_DT(18)
#define MPI_INT32_T                 IBEX_DT(19)
#define MPI_INT64_T                 IBEX_DT(20)
#define MPI_UINT8_T                 IBEX_DT(21)
#define MPI_UINT16_T                IBEX_DT(22)
#define MPI_UINT32_T                IBEX_DT(23)
#define MPI_UINT64_T                IBEX_DT(24)
#define MPI_C_BOOL                  IBEX_DT(25)
#define MPI_C_FLOAT_COMPLEX         IBEX_DT(26)
#define MPI_C_COMPLEX               MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX        IBEX_DT(27)
#define MPI_C_LONG_DOUBLE_COMPLEX   IBEX_DT(28)
#define MPI_AINT                    IBEX_DT(29)
#define MPI_OFFSET                  IBEX_DT(30)
#define MPI_COUNT                   IBEX_DT(31)
#define MPI_PACKED                  IBEX_DT(32)
#define MPI_FLOAT_INT               IBEX_DT(33)
#define MPI_DOUBLE_INT              IBEX_DT(34)
#define MPI_LONG_INT                IBEX_DT(35)
#define MPI_2INT                    IBEX_DT(36)
#define MPI_SHORT_INT               IBEX_DT(37)
#define MPI_LONG_DOUBLE_INT         IBEX_DT(38)
#define MPI_CXX_BOOL                IBEX_DT(39)
#define MPI_CXX_FLOAT_COMPLEX       IBEX_DT(40)
#define MPI_CXX_DOUBLE_COMPLEX      IBEX_DT(41)
#define MPI_CXX_LONG_DOUBLE_COMPLEX IBEX_DT(42)
#define MPI_CHARACTER               IBEX_DT(43)
#define MPI_LOGICAL                 IBEX_DT(44)
#define MPI_INTEGER                 IBEX_DT(45)
#define MPI_REAL                    IBEX_DT(46)
#define MPI_DOUBLE_PRECISION        IBEX_DT(47)
#define MPI_COMPLEX                 IBEX_DT(48)
#define MPI_DOUBLE_COMPLEX          IBEX_DT(49)
#define MPI_2INTEGER                IBEX_DT(50)
#define MPI_2REAL                   IBEX_DT(51)
#define MPI_2DOUBLE_PRECISION       IBEX_DT(52)
#define MPI_INTEGER1                IBEX_DT(53)
#define MPI_INTEGER2                IBEX_DT(54)
#define MPI_INTEGER4                IBEX_DT(55)
#define MPI_INTEGER8                IBEX_DT(56)
#define MPI_REAL4                   IBEX_DT(57)
#define MPI_REAL8                   IBEX_DT(58)
#define MPI_COMPLEX8                IBEX_DT(59)
#define MPI_COMPLEX16               IBEX_DT(60)
#define IBEX_DT_PREDEFINED_COUNT    61
/* Optional Fortran sizes with no C type here: MPI_DATATYPE_NULL, as the standard allows. */
#define MPI_REAL2     MPI_DATATYPE_NULL
#define MPI_REAL16    MPI_DATATYPE_NULL
#define MPI_COMPLEX4  MPI_DATATYPE_NULL
#define MPI_COMPLEX32 MPI_DATATYPE_NULL
#define MPI_INTEGER16 MPI_DATATYPE_NULL

/* Reduction operations */
#define MPI_OP_NULL              ((MPI_Op)IBEX_HANDLE(IBEX_KIND_OP, 0))
#define MPI_MAX                  ((MPI_Op)IBEX_HANDLE(IBEX_KIND_OP, 1))
#define MPI_MIN                  ((MPI_Op)IBEX_HANDLE(IBEX_KIND_OP, 2))
#define MPI_SUM                  ((MPI_Op)IBEX_HANDLE(IBEX_KIND_OP, 3))
#define MPI_PROD                 ((MPI_Op)IBEX_HANDLE(IBEX_KIND_OP, 4))
#define MPI_LAND                 ((MPI_Op)IBEX_HANDLE(IBEX_KIND_OP, 5))
#define MPI_BAND                 ((MPI_Op)IBEX_HANDLE(IBEX_KIND_OP, 6))
#define MPI_LOR                  ((MPI_Op)IBEX_HANDLE(IBEX_KIND_OP, 7))
#define MPI_BOR                  ((MPI_Op)IBEX_HANDLE(IBEX_KIND_OP, 8))
#define MPI_LXOR                 ((MPI_Op)IBEX_HANDLE(IBEX_KIND_OP, 9))
#define MPI_BXOR                 ((MPI_Op)IBEX_HANDLE(IBEX_KIND_OP, 10))
#define MPI_MINLOC               ((MPI_Op)IBEX_HANDLE(IBEX_KIND_OP, 11))
#define MPI_MAXLOC               ((MPI_Op)IBEX_HANDLE(IBEX_KIND_OP, 12))
#define MPI_REPLACE              ((MPI_Op)IBEX_HANDLE(IBEX_KIND_OP, 13))
#define MPI_NO_OP                ((MPI_Op)IBEX_HANDLE(IBEX_KIND_OP, 14))
#define IBEX_OP_PREDEFINED_COUNT 15

/* Special values */
#define MPI_ANY_SOURCE      (-2)
#define MPI_PROC_NULL       (-1)
#define MPI_ROOT            (-3)
#define MPI_ANY_TAG         (-1)
#define MPI_UNDEFINED       (-32766)
#define MPI_KEYVAL_INVALID  0x24000000
#define MPI_BOTTOM          ((void *)0)
#define MPI_IN_PLACE        ((void *)-1)
#define MPI_STATUS_IGNORE   ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_ERRCODES_IGNORE ((int *)0)
#define MPI_BSEND_OVERHEAD  128

#define MPI_MAX_PROCESSOR_NAME         256
#define MPI_MAX_ERROR_STRING           512
#define MPI_MAX_OBJECT_NAME            128
#define MPI_MAX_LIBRARY_VERSION_STRING 8192
#define MPI_MAX_INFO_KEY               255
#define MPI_MAX_INFO_VAL               1024

/* Dynamic processes (MPI 4.1 chapter 11): declared so that programs build; Ibex runs a fixed
 * set of processes, so spawning is MPI_ERR_SPAWN and ports / names are
 * MPI_ERR_UNSUPPORTED_OPERATION (runtime/mpi/dynamic.c). */
#define MPI_ARGV_NULL     ((char **)0)
#define MPI_ARGVS_NULL    ((char ***)0)
#define MPI_MAX_PORT_NAME 256

/* Thread levels */
#define MPI_THREAD_SINGLE     0
#define MPI_THREAD_FUNNELED   1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE   3

/* Comparison results */
#define MPI_IDENT     0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR   2
#define MPI_UNEQUAL   3

/* Communicator split types */
#define MPI_COMM_TYPE_SHARED 1

/* Process topologies (MPI_Topo_test) and distributed-graph weights */
#define MPI_GRAPH      1
#define MPI_CART       2
#define MPI_DIST_GRAPH 3
/* Two distinct addresses that are no program's array; arrays of unknown size, so that compilers
 * do not take them for zero-sized buffers. */
extern int ibex_mpi_unweighted[], ibex_mpi_weights_empty[];
#define MPI_UNWEIGHTED    (ibex_mpi_unweighted)
#define MPI_WEIGHTS_EMPTY (ibex_mpi_weights_empty)
/* MPI 4.0 / 4.1 hardware and resource split types (issue 12) */
#define MPI_COMM_TYPE_HW_UNGUIDED     2
#define MPI_COMM_TYPE_HW_GUIDED       3
#define MPI_COMM_TYPE_RESOURCE_GUIDED 4

/* Datatype decoding and array constructors (MPI 4.1 sections 5.1.3, 5.1.4, 5.1.13) */
#define MPI_COMBINER_NAMED          0
#define MPI_COMBINER_DUP            1
#define MPI_COMBINER_CONTIGUOUS     2
#define MPI_COMBINER_VECTOR         3
#define MPI_COMBINER_HVECTOR        4
#define MPI_COMBINER_INDEXED        5
#define MPI_COMBINER_HINDEXED       6
#define MPI_COMBINER_INDEXED_BLOCK  7
#define MPI_COMBINER_HINDEXED_BLOCK 8
#define MPI_COMBINER_STRUCT         9
#define MPI_COMBINER_RESIZED        10
#define MPI_COMBINER_SUBARRAY       11
#define MPI_COMBINER_DARRAY         12
#define MPI_COMBINER_F90_REAL       13
#define MPI_COMBINER_F90_COMPLEX    14
#define MPI_COMBINER_F90_INTEGER    15
#define MPI_COMBINER_VALUE_INDEX    16
#define MPI_ORDER_C                 56
#define MPI_ORDER_FORTRAN           57
#define MPI_DISTRIBUTE_BLOCK        121
#define MPI_DISTRIBUTE_CYCLIC       122
#define MPI_DISTRIBUTE_NONE         123
#define MPI_DISTRIBUTE_DFLT_DARG    (-49767)
#define MPI_TYPECLASS_INTEGER       1
#define MPI_TYPECLASS_REAL          2
#define MPI_TYPECLASS_COMPLEX       3

/* Predefined attribute keys */
#define MPI_TAG_UB          0x64400001
#define MPI_HOST            0x64400003
#define MPI_IO              0x64400005
#define MPI_WTIME_IS_GLOBAL 0x64400007
#define MPI_UNIVERSE_SIZE   0x64400009
#define MPI_APPNUM          0x6440000b
#define MPI_LASTUSEDCODE    0x6440000d

/* Error classes */
#define MPI_SUCCESS                   0
#define MPI_ERR_BUFFER                1
#define MPI_ERR_COUNT                 2
#define MPI_ERR_TYPE                  3
#define MPI_ERR_TAG                   4
#define MPI_ERR_COMM                  5
#define MPI_ERR_RANK                  6
#define MPI_ERR_REQUEST               7
#define MPI_ERR_ROOT                  8
#define MPI_ERR_GROUP                 9
#define MPI_ERR_OP                    10
#define MPI_ERR_TOPOLOGY              11
#define MPI_ERR_DIMS                  12
#define MPI_ERR_ARG                   13
#define MPI_ERR_UNKNOWN               14
#define MPI_ERR_TRUNCATE              15
#define MPI_ERR_OTHER                 16
#define MPI_ERR_INTERN                17
#define MPI_ERR_IN_STATUS             18
#define MPI_ERR_PENDING               19
#define MPI_ERR_ACCESS                20
#define MPI_ERR_AMODE                 21
#define MPI_ERR_ASSERT                22
#define MPI_ERR_BAD_FILE              23
#define MPI_ERR_BASE                  24
#define MPI_ERR_CONVERSION            25
#define MPI_ERR_DISP                  26
#define MPI_ERR_DUP_DATAREP           27
#define MPI_ERR_FILE_EXISTS           28
#define MPI_ERR_FILE_IN_USE           29
#define MPI_ERR_FILE                  30
#define MPI_ERR_INFO_KEY              31
#define MPI_ERR_INFO_NOKEY            32
#define MPI_ERR_INFO_VALUE            33
#define MPI_ERR_INFO                  34
#define MPI_ERR_IO                    35
#define MPI_ERR_KEYVAL                36
#define MPI_ERR_LOCKTYPE              37
#define MPI_ERR_NAME                  38
#define MPI_ERR_NO_MEM                39
#define MPI_ERR_NOT_SAME              40
#define MPI_ERR_NO_SPACE              41
#define MPI_ERR_NO_SUCH_FILE          42
#define MPI_ERR_PORT                  43
#define MPI_ERR_QUOTA                 44
#define MPI_ERR_READ_ONLY             45
#define MPI_ERR_RMA_CONFLICT          46
#define MPI_ERR_RMA_SYNC              47
#define MPI_ERR_SERVICE               48
#define MPI_ERR_SIZE                  49
#define MPI_ERR_SPAWN                 50
#define MPI_ERR_UNSUPPORTED_DATAREP   51
#define MPI_ERR_UNSUPPORTED_OPERATION 52
#define MPI_ERR_WIN                   53
#define MPI_ERR_RMA_RANGE             54
#define MPI_ERR_RMA_ATTACH            55
#define MPI_ERR_RMA_SHARED            56
#define MPI_ERR_RMA_FLAVOR            57
#define MPI_ERR_PROC_ABORTED          58
#define MPI_ERR_VALUE_TOO_LARGE       59
#define MPI_ERR_SESSION               60
#define MPI_ERR_ERRHANDLER            61
/* The tools interface's error classes (returned by MPI_T_* calls, never raised on a handler) */
#define MPI_T_ERR_MEMORY            62
#define MPI_T_ERR_NOT_INITIALIZED   63
#define MPI_T_ERR_CANNOT_INIT       64
#define MPI_T_ERR_INVALID_INDEX     65
#define MPI_T_ERR_INVALID_ITEM      66
#define MPI_T_ERR_INVALID_HANDLE    67
#define MPI_T_ERR_OUT_OF_HANDLES    68
#define MPI_T_ERR_OUT_OF_SESSIONS   69
#define MPI_T_ERR_INVALID_SESSION   70
#define MPI_T_ERR_CVAR_SET_NOT_NOW  71
#define MPI_T_ERR_CVAR_SET_NEVER    72
#define MPI_T_ERR_PVAR_NO_STARTSTOP 73
#define MPI_T_ERR_PVAR_NO_WRITE     74
#define MPI_T_ERR_PVAR_NO_ATOMIC    75
#define MPI_T_ERR_INVALID_NAME      76
#define MPI_T_ERR_INVALID           77
#define MPI_T_ERR_NOT_SUPPORTED     78
#define MPI_T_ERR_NOT_ACCESSIBLE    79
#define MPI_ERR_LASTCODE            79

/* The tools interface (MPI_T): opaque handles; see runtime/mpi/README.md */
typedef struct ibex_t_enum *MPI_T_enum;
typedef struct ibex_t_cvar_handle *MPI_T_cvar_handle;
typedef struct ibex_t_pvar_handle *MPI_T_pvar_handle;
typedef struct ibex_t_session *MPI_T_pvar_session;
#define MPI_T_ENUM_NULL                ((MPI_T_enum)0)
#define MPI_T_CVAR_HANDLE_NULL         ((MPI_T_cvar_handle)0)
#define MPI_T_PVAR_HANDLE_NULL         ((MPI_T_pvar_handle)0)
#define MPI_T_PVAR_ALL_HANDLES         ((MPI_T_pvar_handle)-1)
#define MPI_T_PVAR_SESSION_NULL        ((MPI_T_pvar_session)0)
#define MPI_T_VERBOSITY_USER_BASIC     1
#define MPI_T_VERBOSITY_USER_DETAIL    2
#define MPI_T_VERBOSITY_USER_ALL       3
#define MPI_T_VERBOSITY_TUNER_BASIC    4
#define MPI_T_VERBOSITY_TUNER_DETAIL   5
#define MPI_T_VERBOSITY_TUNER_ALL      6
#define MPI_T_VERBOSITY_MPIDEV_BASIC   7
#define MPI_T_VERBOSITY_MPIDEV_DETAIL  8
#define MPI_T_VERBOSITY_MPIDEV_ALL     9
#define MPI_T_BIND_NO_OBJECT           0
#define MPI_T_BIND_MPI_COMM            1
#define MPI_T_BIND_MPI_DATATYPE        2
#define MPI_T_BIND_MPI_ERRHANDLER      3
#define MPI_T_BIND_MPI_FILE            4
#define MPI_T_BIND_MPI_GROUP           5
#define MPI_T_BIND_MPI_OP              6
#define MPI_T_BIND_MPI_REQUEST         7
#define MPI_T_BIND_MPI_WIN             8
#define MPI_T_BIND_MPI_MESSAGE         9
#define MPI_T_BIND_MPI_INFO            10
#define MPI_T_BIND_MPI_SESSION         11
#define MPI_T_SCOPE_CONSTANT           0
#define MPI_T_SCOPE_READONLY           1
#define MPI_T_SCOPE_LOCAL              2
#define MPI_T_SCOPE_GROUP              3
#define MPI_T_SCOPE_GROUP_EQ           4
#define MPI_T_SCOPE_ALL                5
#define MPI_T_SCOPE_ALL_EQ             6
#define MPI_T_PVAR_CLASS_STATE         0
#define MPI_T_PVAR_CLASS_LEVEL         1
#define MPI_T_PVAR_CLASS_SIZE          2
#define MPI_T_PVAR_CLASS_PERCENTAGE    3
#define MPI_T_PVAR_CLASS_HIGHWATERMARK 4
#define MPI_T_PVAR_CLASS_LOWWATERMARK  5
#define MPI_T_PVAR_CLASS_COUNTER       6
#define MPI_T_PVAR_CLASS_AGGREGATE     7
#define MPI_T_PVAR_CLASS_TIMER         8
#define MPI_T_PVAR_CLASS_GENERIC       9
/* MPI_T events (MPI 4.0): Ibex has no event sources or types (runtime/mpi/mpit_event.c) */
typedef struct ibex_t_event_registration *MPI_T_event_registration;
typedef struct ibex_t_event_instance *MPI_T_event_instance;
typedef enum {
    MPI_T_CB_REQUIRE_NONE,
    MPI_T_CB_REQUIRE_MPI_RESTRICTED,
    MPI_T_CB_REQUIRE_THREAD_SAFE,
    MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE
} MPI_T_cb_safety;
typedef enum { MPI_T_SOURCE_ORDERED, MPI_T_SOURCE_UNORDERED } MPI_T_source_order;
typedef void MPI_T_event_cb_function(MPI_T_event_instance event_instance,
                                     MPI_T_event_registration event_registration,
                                     MPI_T_cb_safety cb_safety, void *user_data);
typedef void MPI_T_event_free_cb_function(MPI_T_event_registration event_registration,
                                          MPI_T_cb_safety cb_safety, void *user_data);
typedef void MPI_T_event_dropped_cb_function(MPI_Count count,
                                             MPI_T_event_registration event_registration,
                                             int source_index, MPI_T_cb_safety cb_safety,
                                             void *user_data);

typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
typedef void MPI_Comm_errhandler_function(MPI_Comm *comm, int *code, ...);
typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int keyval, void *attribute_val,
                                          void *extra_state);
#define MPI_COMM_NULL_COPY_FN   ((MPI_Comm_copy_attr_function *)0)
#define MPI_COMM_NULL_DELETE_FN ((MPI_Comm_delete_attr_function *)0)
#define MPI_COMM_DUP_FN         ((MPI_Comm_copy_attr_function *)1)
/* The MPI-1 names (deprecated; the same signatures) */
typedef MPI_Comm_copy_attr_function MPI_Copy_function;
typedef MPI_Comm_delete_attr_function MPI_Delete_function;
#define MPI_NULL_COPY_FN   MPI_COMM_NULL_COPY_FN
#define MPI_NULL_DELETE_FN MPI_COMM_NULL_DELETE_FN
#define MPI_DUP_FN         MPI_COMM_DUP_FN

/* Datatype attributes, generalized requests, datatype conversion (issue 12) */
typedef int MPI_Type_copy_attr_function(MPI_Datatype oldtype, int type_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Type_delete_attr_function(MPI_Datatype datatype, int type_keyval,
                                          void *attribute_val, void *extra_state);
#define MPI_TYPE_NULL_COPY_FN   ((MPI_Type_copy_attr_function *)0)
#define MPI_TYPE_NULL_DELETE_FN ((MPI_Type_delete_attr_function *)0)
#define MPI_TYPE_DUP_FN         ((MPI_Type_copy_attr_function *)1)
typedef int MPI_Grequest_query_function(void *extra_state, MPI_Status *status);
typedef int MPI_Grequest_free_function(void *extra_state);
typedef int MPI_Grequest_cancel_function(void *extra_state, int complete);
/* One-sided communication (windows) */
typedef int MPI_Win;
#define MPI_WIN_NULL ((MPI_Win)IBEX_HANDLE(IBEX_KIND_WIN, 0))
typedef void MPI_Win_errhandler_function(MPI_Win *win, int *code, ...);
/* window attributes (user keyvals) */
typedef int MPI_Win_copy_attr_function(MPI_Win oldwin, int win_keyval, void *extra_state,
                                       void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Win_delete_attr_function(MPI_Win win, int win_keyval, void *attribute_val,
                                         void *extra_state);
#define MPI_WIN_NULL_COPY_FN   ((MPI_Win_copy_attr_function *)0)
#define MPI_WIN_NULL_DELETE_FN ((MPI_Win_delete_attr_function *)0)
#define MPI_WIN_DUP_FN         ((MPI_Win_copy_attr_function *)1)
/* assertions of Win_fence / lock / lock_all / post / start */
#define MPI_MODE_NOCHECK        1024
#define MPI_MODE_NOSTORE        2048
#define MPI_MODE_NOPUT          4096
#define MPI_MODE_NOPRECEDE      8192
#define MPI_MODE_NOSUCCEED      16384
#define MPI_LOCK_EXCLUSIVE      234
#define MPI_LOCK_SHARED         235
#define MPI_WIN_FLAVOR_CREATE   1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC  3
#define MPI_WIN_FLAVOR_SHARED   4
#define MPI_WIN_SEPARATE        1
#define MPI_WIN_UNIFIED         2
/* predefined window attributes (MPI_Win_get_attr) */
#define MPI_WIN_BASE          0x66000001
#define MPI_WIN_SIZE          0x66000003
#define MPI_WIN_DISP_UNIT     0x66000005
#define MPI_WIN_CREATE_FLAVOR 0x66000007
#define MPI_WIN_MODEL         0x66000009

/* Sessions, partitioned communication, large-count outputs (issue 12, second part) */
typedef int MPI_Session;
#define IBEX_KIND_SESSION 12
#define MPI_SESSION_NULL  ((MPI_Session)IBEX_HANDLE(IBEX_KIND_SESSION, 0))
typedef void MPI_Session_errhandler_function(MPI_Session *session, int *code, ...);
#define MPI_MAX_PSET_NAME_LEN 256
#define MPI_MAX_STRINGTAG_LEN 256
typedef void MPI_User_function_c(void *invec, void *inoutvec, MPI_Count *len,
                                 MPI_Datatype *datatype);

/* MPI 4.1 buffered-send buffers managed by MPI (issue 12, third part): pass it for the buffer
 * of MPI_Buffer_attach / Comm_attach_buffer / Session_attach_buffer (size ignored) */
#define MPI_BUFFER_AUTOMATIC ((void *)-2)

/* Data representations (issue 12, fourth part): MPI_Register_datarep keeps a registry of names;
 * MPI-IO's file views take "native", "internal" and "external32", not registered ones */
#define MPI_MAX_DATAREP_STRING 128
typedef int MPI_Datarep_conversion_function(void *userbuf, MPI_Datatype datatype, int count,
                                            void *filebuf, MPI_Offset position, void *extra_state);
typedef int MPI_Datarep_conversion_function_c(void *userbuf, MPI_Datatype datatype, MPI_Count count,
                                              void *filebuf, MPI_Offset position,
                                              void *extra_state);
typedef int MPI_Datarep_extent_function(MPI_Datatype datatype, MPI_Aint *extent, void *extra_state);
#define MPI_CONVERSION_FN_NULL   ((MPI_Datarep_conversion_function *)0)
#define MPI_CONVERSION_FN_NULL_C ((MPI_Datarep_conversion_function_c *)0)

/* MPI-IO (runtime/io): files over POSIX, the MPI 4.1 interface (chapter 14) */
typedef int MPI_File;
#define IBEX_KIND_FILE 11
#define MPI_FILE_NULL  ((MPI_File)IBEX_HANDLE(IBEX_KIND_FILE, 0))
typedef void MPI_File_errhandler_function(MPI_File *file, int *code, ...);
#define MPI_MODE_CREATE          1
#define MPI_MODE_RDONLY          2
#define MPI_MODE_WRONLY          4
#define MPI_MODE_RDWR            8
#define MPI_MODE_DELETE_ON_CLOSE 16
#define MPI_MODE_UNIQUE_OPEN     32
#define MPI_MODE_EXCL            64
#define MPI_MODE_APPEND          128
#define MPI_MODE_SEQUENTIAL      256
#define MPI_SEEK_SET             600
#define MPI_SEEK_CUR             602
#define MPI_SEEK_END             604
#define MPI_DISPLACEMENT_CURRENT (-54278278)
/* ROMIO's names of the requests of non-blocking file calls, which MPICH and Open MPI keep */
#define MPIO_Request      MPI_Request
#define MPIO_REQUEST_NULL MPI_REQUEST_NULL
#define MPIO_Wait         MPI_Wait
#define MPIO_Test         MPI_Test
#define PMPIO_Wait        PMPI_Wait
#define PMPIO_Test        PMPI_Test
#define MPIO_USES_MPI_REQUEST
/* end of MPI-IO */

/* MPI_X and its profiling twin PMPI_X for every function Ibex implements: generated from
 * runtime/mpi/bindings/mpi.def into the build tree and installed next to this file. */
#include "ibex_mpi_proto.h"

#ifdef __cplusplus
}
#endif

#endif /* IBEX_MPI_H */
