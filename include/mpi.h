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
#define MPI_SUBVERSION      0

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

#define IBEX_KIND_COMM           1
#define IBEX_KIND_GROUP          2
#define IBEX_KIND_DATATYPE       3
#define IBEX_KIND_REQUEST        4
#define IBEX_KIND_OP             5
#define IBEX_KIND_ERRHANDLER     6
#define IBEX_KIND_MESSAGE        7
#define IBEX_KIND_INFO           8
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
#define IBEX_DT_PREDEFINED_COUNT    59

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
#define MPI_ERR_LASTCODE              61

typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
typedef void MPI_Comm_errhandler_function(MPI_Comm *comm, int *code, ...);
typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int keyval, void *attribute_val,
                                          void *extra_state);
#define MPI_COMM_NULL_COPY_FN   ((MPI_Comm_copy_attr_function *)0)
#define MPI_COMM_NULL_DELETE_FN ((MPI_Comm_delete_attr_function *)0)
#define MPI_COMM_DUP_FN         ((MPI_Comm_copy_attr_function *)1)

/* Declares MPI_name and PMPI_name with one prototype. */
#define IBEX_DECL(ret, name, args)                                                                 \
    ret MPI_##name args;                                                                           \
    ret PMPI_##name args

/* Environment */
IBEX_DECL(int, Init, (int *argc, char ***argv));
IBEX_DECL(int, Init_thread, (int *argc, char ***argv, int required, int *provided));
IBEX_DECL(int, Finalize, (void));
IBEX_DECL(int, Initialized, (int *flag));
IBEX_DECL(int, Finalized, (int *flag));
IBEX_DECL(int, Abort, (MPI_Comm comm, int errorcode));
IBEX_DECL(int, Query_thread, (int *provided));
IBEX_DECL(int, Is_thread_main, (int *flag));
IBEX_DECL(double, Wtime, (void));
IBEX_DECL(double, Wtick, (void));
IBEX_DECL(int, Get_processor_name, (char *name, int *resultlen));
IBEX_DECL(int, Get_version, (int *version, int *subversion));
IBEX_DECL(int, Get_library_version, (char *version, int *resultlen));
IBEX_DECL(int, Alloc_mem, (MPI_Aint size, MPI_Info info, void *baseptr));
IBEX_DECL(int, Free_mem, (void *base));
IBEX_DECL(int, Get_address, (const void *location, MPI_Aint *address));
IBEX_DECL(MPI_Aint, Aint_add, (MPI_Aint base, MPI_Aint disp));
IBEX_DECL(MPI_Aint, Aint_diff, (MPI_Aint addr1, MPI_Aint addr2));

/* Errors */
IBEX_DECL(int, Error_string, (int errorcode, char *string, int *resultlen));
IBEX_DECL(int, Error_class, (int errorcode, int *errorclass));
IBEX_DECL(int, Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler));
IBEX_DECL(int, Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler *errhandler));
IBEX_DECL(int, Comm_create_errhandler,
          (MPI_Comm_errhandler_function * fn, MPI_Errhandler *errhandler));
IBEX_DECL(int, Comm_call_errhandler, (MPI_Comm comm, int errorcode));
IBEX_DECL(int, Errhandler_free, (MPI_Errhandler * errhandler));

/* Point-to-point */
IBEX_DECL(int, Send,
          (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
IBEX_DECL(int, Ssend,
          (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
IBEX_DECL(int, Rsend,
          (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
IBEX_DECL(int, Bsend,
          (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
IBEX_DECL(int, Recv,
          (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
           MPI_Status *status));
IBEX_DECL(int, Isend,
          (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
           MPI_Request *request));
IBEX_DECL(int, Issend,
          (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
           MPI_Request *request));
IBEX_DECL(int, Irsend,
          (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
           MPI_Request *request));
IBEX_DECL(int, Ibsend,
          (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
           MPI_Request *request));
IBEX_DECL(int, Irecv,
          (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
           MPI_Request *request));
IBEX_DECL(int, Sendrecv,
          (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
           void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
           MPI_Comm comm, MPI_Status *status));
IBEX_DECL(int, Sendrecv_replace,
          (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
           int recvtag, MPI_Comm comm, MPI_Status *status));
IBEX_DECL(int, Buffer_attach, (void *buffer, int size));
IBEX_DECL(int, Buffer_detach, (void *buffer_addr, int *size));
IBEX_DECL(int, Send_init,
          (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
           MPI_Request *request));
IBEX_DECL(int, Ssend_init,
          (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
           MPI_Request *request));
IBEX_DECL(int, Rsend_init,
          (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
           MPI_Request *request));
IBEX_DECL(int, Bsend_init,
          (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
           MPI_Request *request));
IBEX_DECL(int, Recv_init,
          (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
           MPI_Request *request));
IBEX_DECL(int, Start, (MPI_Request * request));
IBEX_DECL(int, Startall, (int count, MPI_Request array_of_requests[]));
IBEX_DECL(int, Wait, (MPI_Request * request, MPI_Status *status));
IBEX_DECL(int, Waitall,
          (int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]));
IBEX_DECL(int, Waitany,
          (int count, MPI_Request array_of_requests[], int *index, MPI_Status *status));
IBEX_DECL(int, Waitsome,
          (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
           MPI_Status array_of_statuses[]));
IBEX_DECL(int, Test, (MPI_Request * request, int *flag, MPI_Status *status));
IBEX_DECL(int, Testall,
          (int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]));
IBEX_DECL(int, Testany,
          (int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status));
IBEX_DECL(int, Testsome,
          (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
           MPI_Status array_of_statuses[]));
IBEX_DECL(int, Request_free, (MPI_Request * request));
IBEX_DECL(int, Request_get_status, (MPI_Request request, int *flag, MPI_Status *status));
IBEX_DECL(int, Cancel, (MPI_Request * request));
IBEX_DECL(int, Test_cancelled, (const MPI_Status *status, int *flag));
IBEX_DECL(int, Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status));
IBEX_DECL(int, Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status));
IBEX_DECL(int, Mprobe,
          (int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status));
IBEX_DECL(int, Improbe,
          (int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
           MPI_Status *status));
IBEX_DECL(int, Mrecv,
          (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status));
IBEX_DECL(int, Imrecv,
          (void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
           MPI_Request *request));
IBEX_DECL(int, Get_count, (const MPI_Status *status, MPI_Datatype datatype, int *count));
IBEX_DECL(int, Get_elements, (const MPI_Status *status, MPI_Datatype datatype, int *count));
IBEX_DECL(int, Get_elements_x, (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count));
IBEX_DECL(int, Status_set_elements, (MPI_Status * status, MPI_Datatype datatype, int count));
IBEX_DECL(int, Status_set_cancelled, (MPI_Status * status, int flag));

/* Communicators and groups */
IBEX_DECL(int, Comm_rank, (MPI_Comm comm, int *rank));
IBEX_DECL(int, Comm_size, (MPI_Comm comm, int *size));
IBEX_DECL(int, Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm));
IBEX_DECL(int, Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm));
IBEX_DECL(int, Comm_split_type,
          (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm));
IBEX_DECL(int, Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm));
IBEX_DECL(int, Comm_free, (MPI_Comm * comm));
IBEX_DECL(int, Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int *result));
IBEX_DECL(int, Comm_group, (MPI_Comm comm, MPI_Group *group));
IBEX_DECL(int, Comm_test_inter, (MPI_Comm comm, int *flag));
IBEX_DECL(int, Comm_get_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag));
IBEX_DECL(int, Comm_set_name, (MPI_Comm comm, const char *comm_name));
IBEX_DECL(int, Comm_get_name, (MPI_Comm comm, char *comm_name, int *resultlen));
IBEX_DECL(int, Group_size, (MPI_Group group, int *size));
IBEX_DECL(int, Group_rank, (MPI_Group group, int *rank));
IBEX_DECL(int, Group_incl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup));
IBEX_DECL(int, Group_excl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup));
IBEX_DECL(int, Group_translate_ranks,
          (MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]));
IBEX_DECL(int, Group_compare, (MPI_Group group1, MPI_Group group2, int *result));
IBEX_DECL(int, Group_union, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup));
IBEX_DECL(int, Group_intersection, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup));
IBEX_DECL(int, Group_difference, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup));
IBEX_DECL(int, Group_free, (MPI_Group * group));

/* Datatypes */
IBEX_DECL(int, Type_size, (MPI_Datatype datatype, int *size));
IBEX_DECL(int, Type_size_x, (MPI_Datatype datatype, MPI_Count *size));
IBEX_DECL(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent));
IBEX_DECL(int, Type_get_true_extent,
          (MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent));
IBEX_DECL(int, Type_get_name, (MPI_Datatype datatype, char *type_name, int *resultlen));
IBEX_DECL(int, Type_set_name, (MPI_Datatype datatype, const char *type_name));
IBEX_DECL(int, Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype *newtype));
IBEX_DECL(int, Type_vector,
          (int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype));
IBEX_DECL(int, Type_create_hvector,
          (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
           MPI_Datatype *newtype));
IBEX_DECL(int, Type_indexed,
          (int count, const int array_of_blocklengths[], const int array_of_displacements[],
           MPI_Datatype oldtype, MPI_Datatype *newtype));
IBEX_DECL(int, Type_create_hindexed,
          (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
           MPI_Datatype oldtype, MPI_Datatype *newtype));
IBEX_DECL(int, Type_create_indexed_block,
          (int count, int blocklength, const int array_of_displacements[], MPI_Datatype oldtype,
           MPI_Datatype *newtype));
IBEX_DECL(int, Type_create_hindexed_block,
          (int count, int blocklength, const MPI_Aint array_of_displacements[],
           MPI_Datatype oldtype, MPI_Datatype *newtype));
IBEX_DECL(int, Type_create_struct,
          (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
           const MPI_Datatype array_of_types[], MPI_Datatype *newtype));
IBEX_DECL(int, Type_create_resized,
          (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype));
IBEX_DECL(int, Type_dup, (MPI_Datatype oldtype, MPI_Datatype *newtype));
IBEX_DECL(int, Type_commit, (MPI_Datatype * datatype));
IBEX_DECL(int, Type_free, (MPI_Datatype * datatype));
IBEX_DECL(int, Pack,
          (const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
           int *position, MPI_Comm comm));
IBEX_DECL(int, Unpack,
          (const void *inbuf, int insize, int *position, void *outbuf, int outcount,
           MPI_Datatype datatype, MPI_Comm comm));
IBEX_DECL(int, Pack_size, (int incount, MPI_Datatype datatype, MPI_Comm comm, int *size));

/* Reduction operations */
IBEX_DECL(int, Op_create, (MPI_User_function * user_fn, int commute, MPI_Op *op));
IBEX_DECL(int, Op_free, (MPI_Op * op));
IBEX_DECL(int, Op_commutative, (MPI_Op op, int *commute));
IBEX_DECL(int, Reduce_local,
          (const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op));

/* Collectives (collectives/, built on point-to-point) */
IBEX_DECL(int, Barrier, (MPI_Comm comm));
IBEX_DECL(int, Bcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm));
IBEX_DECL(int, Reduce,
          (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
           int root, MPI_Comm comm));
IBEX_DECL(int, Allreduce,
          (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
           MPI_Comm comm));
IBEX_DECL(int, Gather,
          (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
           MPI_Datatype recvtype, int root, MPI_Comm comm));
IBEX_DECL(int, Scatter,
          (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
           MPI_Datatype recvtype, int root, MPI_Comm comm));
IBEX_DECL(int, Allgather,
          (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
           MPI_Datatype recvtype, MPI_Comm comm));
IBEX_DECL(int, Alltoall,
          (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
           MPI_Datatype recvtype, MPI_Comm comm));

#ifdef __cplusplus
}
#endif

#endif /* IBEX_MPI_H */
