#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Generates Ibex's MPI bindings from mpi.def (run by make; the outputs are never edited).

  gen_bindings.py DEF proto OUT       include/ibex_mpi_proto.h
  gen_bindings.py DEF internal OUT    runtime/mpi/ibex_mpi_gen.h
  gen_bindings.py DEF large OUT       runtime/mpi/ibex_mpi_large.c

proto (installed next to mpi.h, which includes it): the prototypes of MPI_X and PMPI_X.
internal (runtime/mpi, included through ibex_entry.h):
  - IBEX_MPI_ALIASES_<file>: the `#pragma weak MPI_X = PMPI_X` of every function defined in
    runtime/mpi/<file>.c, placed at the end of that file (GCC rejects an alias whose PMPI_X is
    not defined in the same file, so a function listed under the wrong file does not build);
  - ibex_args_X(e, ...): the checks that are the same for every function, by parameter kind
    (NULL output pointers, negative counts), for the bindings to call after their handle
    lookups. Each takes the checked parameters in declaration order.
large (runtime/mpi, compiled into libibex): the MPI 4.0 large-count variants PMPI_X_c (MPI_X_c
  their weak aliases) of the functions marked `large`, whose `count` parameters are MPI_Count.
  A call whose counts fit is the int call; a larger count is MPI_ERR_COUNT, saying so, but
  in MPI-IO calls (File_X), where it is one element of a contiguous type of that many
  (runtime/io/file_large.c): their accesses complete at the call, so the type is freed then.
  A function marked `large_native` instead has its PMPI_X_c written by hand in its own file
  (the engine carries MPI_Count there: point-to-point), with its alias in that file's macro.
"""
import os
import re
import sys

# kind -> (C declaration with {} for the name, check or None)
#   "null":  NULL -> MPI_ERR_ARG "P is NULL"
#   "count": negative -> MPI_ERR_COUNT "invalid count N (negative)" (ibex_check_count)
KINDS = {
    "comm": ("MPI_Comm {}", None),
    "group": ("MPI_Group {}", None),
    "datatype": ("MPI_Datatype {}", None),
    "op": ("MPI_Op {}", None),
    "request": ("MPI_Request {}", None),
    "errhandler": ("MPI_Errhandler {}", None),
    "info": ("MPI_Info {}", None),
    "comm_out": ("MPI_Comm *{}", "null"),
    "group_out": ("MPI_Group *{}", "null"),
    "datatype_out": ("MPI_Datatype *{}", "null"),
    "op_out": ("MPI_Op *{}", "null"),
    "request_out": ("MPI_Request *{}", "null"),
    "errhandler_out": ("MPI_Errhandler *{}", "null"),
    "message_out": ("MPI_Message *{}", "null"),
    "info_out": ("MPI_Info *{}", "null"),
    "comm_inout": ("MPI_Comm *{}", "null"),
    "group_inout": ("MPI_Group *{}", "null"),
    "datatype_inout": ("MPI_Datatype *{}", "null"),
    "op_inout": ("MPI_Op *{}", "null"),
    "request_inout": ("MPI_Request *{}", "null"),
    "errhandler_inout": ("MPI_Errhandler *{}", "null"),
    "message_inout": ("MPI_Message *{}", "null"),
    "info_inout": ("MPI_Info *{}", "null"),
    "count": ("int {}", "count"),
    "int": ("int {}", None),
    "aint": ("MPI_Aint {}", None),
    "rank": ("int {}", None),
    "rank_any": ("int {}", None),
    "root": ("int {}", None),
    "tag": ("int {}", None),
    "tag_any": ("int {}", None),
    "int_out": ("int *{}", "null"),
    "aint_out": ("MPI_Aint *{}", "null"),
    "count_out": ("MPI_Count *{}", "null"),
    "str_out": ("char *{}", "null"),
    "ptr_out": ("void *{}", "null"),
    "chars": ("char *{}", None),
    "str": ("const char *{}", "null"),
    "buf": ("void *{}", None),
    "cbuf": ("const void *{}", None),
    "ptr": ("void *{}", None),
    "cptr": ("const void *{}", None),
    "status": ("MPI_Status *{}", None),
    "status_inout": ("MPI_Status *{}", None),
    "cstatus": ("const MPI_Status *{}", None),
    "statuses": ("MPI_Status {}[]", None),
    "requests": ("MPI_Request {}[]", None),
    "ints": ("int {}[]", None),
    "cints": ("const int {}[]", None),
    "caints": ("const MPI_Aint {}[]", None),
    "cdatatypes": ("const MPI_Datatype {}[]", None),
    "user_fn": ("MPI_User_function *{}", None),
    "errhandler_fn": ("MPI_Comm_errhandler_function *{}", None),
    "comm_copy_fn": ("MPI_Comm_copy_attr_function *{}", None),
    "comm_delete_fn": ("MPI_Comm_delete_attr_function *{}", None),
    "argc_p": ("int *{}", None),
    "argv_p": ("char ***{}", None),
    "argv": ("char *{}[]", None),
    "varargs": ("...", None),
    # one-sided communication
    "win": ("MPI_Win {}", None),
    "win_out": ("MPI_Win *{}", "null"),
    "win_inout": ("MPI_Win *{}", "null"),
    "win_errhandler_fn": ("MPI_Win_errhandler_function *{}", None),
    # the tools interface (MPI_T): its calls return MPI_T_ERR_* themselves and never raise an
    # error on a handler, so none of these is checked uniformly
    "t_int_p": ("int *{}", None),
    "t_cstr": ("const char *{}", None),
    "t_datatype_p": ("MPI_Datatype *{}", None),
    "t_enum": ("MPI_T_enum {}", None),
    "t_enum_p": ("MPI_T_enum *{}", None),
    "t_cvar": ("MPI_T_cvar_handle {}", None),
    "t_cvar_p": ("MPI_T_cvar_handle *{}", None),
    "t_pvar": ("MPI_T_pvar_handle {}", None),
    "t_pvar_p": ("MPI_T_pvar_handle *{}", None),
    "t_session": ("MPI_T_pvar_session {}", None),
    "t_session_p": ("MPI_T_pvar_session *{}", None),
    # MPI_T events (MPI 4.0; runtime/mpi/mpit_event.c)
    "t_count_p": ("MPI_Count *{}", None),
    "t_info_p": ("MPI_Info *{}", None),
    "t_datatypes": ("MPI_Datatype {}[]", None),
    "t_aints": ("MPI_Aint {}[]", None),
    "t_source_order_p": ("MPI_T_source_order *{}", None),
    "t_event_reg": ("MPI_T_event_registration {}", None),
    "t_event_reg_p": ("MPI_T_event_registration *{}", None),
    "t_event_inst": ("MPI_T_event_instance {}", None),
    "t_cb_safety": ("MPI_T_cb_safety {}", None),
    "t_event_cb": ("MPI_T_event_cb_function *{}", None),
    "t_event_free_cb": ("MPI_T_event_free_cb_function *{}", None),
    "t_event_dropped_cb": ("MPI_T_event_dropped_cb_function *{}", None),
    # per-rank arrays of the v / w collectives: int in MPI_X, MPI_Count / MPI_Aint in MPI_X_c
    "counts": ("const int {}[]", None),
    "displs": ("const int {}[]", None),
    # issue 12 (api): group ranges, in/out int arrays, datatype decoders and keyvals, errors
    "ranges": ("int {}[][3]", None),
    "ints_inout": ("int {}[]", None),
    "aints": ("MPI_Aint {}[]", None),
    "large_counts": ("MPI_Count {}[]", None),
    "datatypes": ("MPI_Datatype {}[]", None),
    "count_in": ("MPI_Count {}", None),
    "aint_inout": ("MPI_Aint *{}", "null"),
    "type_copy_fn": ("MPI_Type_copy_attr_function *{}", None),
    "type_delete_fn": ("MPI_Type_delete_attr_function *{}", None),
    "win_copy_fn": ("MPI_Win_copy_attr_function *{}", None),
    "win_delete_fn": ("MPI_Win_delete_attr_function *{}", None),
    "grequest_query_fn": ("MPI_Grequest_query_function *{}", None),
    "grequest_free_fn": ("MPI_Grequest_free_function *{}", None),
    "grequest_cancel_fn": ("MPI_Grequest_cancel_function *{}", None),
    "cstr": ("const char *{}", None),
    "int_inout": ("int *{}", "null"),
    "crequests": ("const MPI_Request {}[]", None),
    "fint": ("MPI_Fint {}", None),
    # issue 12, second part: sessions (their errors go to the session's handler, so the
    # bodies check their pointers themselves), partitioned communication, large counts
    "session": ("MPI_Session {}", None),
    "session_p": ("MPI_Session *{}", None),
    "session_errhandler_fn": ("MPI_Session_errhandler_function *{}", None),
    "int_p": ("int *{}", None),
    "info_p": ("MPI_Info *{}", None),
    "errhandler_p": ("MPI_Errhandler *{}", None),
    "group_p": ("MPI_Group *{}", None),
    "comm_p": ("MPI_Comm *{}", None),
    "count_inout": ("MPI_Count *{}", "null"),
    "ccounts": ("const MPI_Count {}[]", None),
    "user_fn_c": ("MPI_User_function_c *{}", None),
    # issue 12, fourth part: data representations
    "datarep_conv_fn": ("MPI_Datarep_conversion_function *{}", None),
    "datarep_conv_fn_c": ("MPI_Datarep_conversion_function_c *{}", None),
    "datarep_extent_fn": ("MPI_Datarep_extent_function *{}", None),
    # MPI-IO (runtime/io): the checks of a File_ function raise on the file's handler
    "file": ("MPI_File {}", None),
    "file_out": ("MPI_File *{}", "null"),
    "file_inout": ("MPI_File *{}", "null"),
    "offset": ("MPI_Offset {}", None),
    "offset_out": ("MPI_Offset *{}", "null"),
    "fname": ("const char *{}", "null"),
    "file_errhandler_fn": ("MPI_File_errhandler_function *{}", None),
    # issue 12, fifth part: Fortran status conversion (the bodies check their pointers)
    "fints": ("MPI_Fint *{}", None),
    "cfints": ("const MPI_Fint *{}", None),
    "f08status": ("MPI_F08_status *{}", None),
    "cf08status": ("const MPI_F08_status *{}", None),
    # issue 12, dynamic processes (runtime/mpi/dynamic.c; the bodies check the root's arrays)
    "cstrs": ("char *{}[]", None),
    "argvs": ("char **{}[]", None),
    "cinfos": ("const MPI_Info {}[]", None),
}
# the type of a large-count parameter in MPI_X_c, when it differs
LARGE_KINDS = {"count": "MPI_Count {}", "counts": "const MPI_Count {}[]",
               "displs": "const MPI_Aint {}[]"}
ARRAY_KINDS = ("counts", "displs")
RETURNS = {"int": "int", "double": "double", "aint": "MPI_Aint"}

LINE = re.compile(r"^(\w+)\s+(\w+)\((.*)\)\s*(large|large_native)?$")


class Func:
    def __init__(self, ret, name, params, file, large, native=False):
        self.ret, self.name, self.params, self.file, self.large = ret, name, params, file, large
        self.native = native  # large_native: PMPI_X_c written by hand in self.file

    def decl(self, prefix, suffix=""):
        """The C declaration; with suffix "_c" the large-count one (counts are MPI_Count)."""
        def param(kind, name):
            if suffix and kind in LARGE_KINDS:
                return LARGE_KINDS[kind].format(name)
            return KINDS[kind][0].format(name)
        args = ", ".join(param(k, n) for k, n in self.params) or "void"
        return "%s %s%s%s(%s)" % (RETURNS[self.ret], prefix, self.name, suffix, args)

    def checked(self):
        return [(k, n) for k, n in self.params if KINDS[k][1]]

    def file_handle(self):
        """For an MPI-IO call (File_X), the handle whose error handler takes its errors: its
        `file` parameter, else MPI_FILE_NULL (File_open, File_delete); None for the others."""
        if not self.name.startswith("File_"):
            return None
        return next((n for k, n in self.params if k == "file"), "MPI_FILE_NULL")


def fail(where, msg):
    sys.exit("%s: %s" % (where, msg))


def parse_params(text, where):
    params = []
    for p in filter(None, (s.strip() for s in text.split(","))):
        parts = p.split()
        if len(parts) != 2:
            fail(where, "parameter '%s' is not 'KIND NAME'" % p)
        if parts[0] not in KINDS:
            fail(where, "unknown kind '%s'" % parts[0])
        params.append((parts[0], parts[1]))
    return params


def parse(path):
    funcs, names, file = [], set(), None
    with open(path) as f:
        for num, raw in enumerate(f, 1):
            where = "%s:%d" % (path, num)
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            if line.startswith("file "):
                file = line.split()[1]
                continue
            m = LINE.match(line)
            if not m or m.group(1) not in RETURNS:
                fail(where, "not 'RET NAME(KIND PARAM, ...)': %s" % line)
            if file is None:
                fail(where, "function before any 'file' line")
            if m.group(2) in names:
                fail(where, "%s listed twice" % m.group(2))
            names.add(m.group(2))
            params = parse_params(m.group(3), where)
            if m.group(4) and not any(k in LARGE_KINDS for k, _ in params):
                fail(where, "%s is marked large but has no count parameter" % m.group(2))
            funcs.append(Func(m.group(1), m.group(2), params, file, bool(m.group(4)),
                              m.group(4) == "large_native"))
    return funcs


def wrap(text, indent="    ", width=100):
    """Breaks a declaration after commas so that lines stay under width."""
    out, line = [], ""
    for piece in re.split(r"(?<=,) ", text):
        if line and len(line) + 1 + len(piece) > width:
            out.append(line)
            line = indent + piece
        else:
            line = line + " " + piece if line else piece
    out.append(line)
    return "\n".join(out)


HEADER = "/* Generated by runtime/mpi/bindings/gen_bindings.py from mpi.def: do not edit. */\n"


def proto_h(funcs):
    out = [HEADER, "#ifndef IBEX_MPI_PROTO_H", "#define IBEX_MPI_PROTO_H", ""]
    out.append("/* Included by mpi.h, which provides the types and the extern \"C\" block. */")
    for fn in funcs:
        out.append(wrap(fn.decl("MPI_") + ";"))
        out.append(wrap(fn.decl("PMPI_") + ";"))
    out += ["", "/* MPI 4.0 large-count variants. */"]
    for fn in funcs:
        if fn.large:
            out.append(wrap(fn.decl("MPI_", "_c") + ";"))
            out.append(wrap(fn.decl("PMPI_", "_c") + ";"))
    out += ["", "#endif", ""]
    return "\n".join(out)


def check_lines(fn, kind, name):
    fh = fn.file_handle()
    if fh and KINDS[kind][1] == "null":
        return ["    if (!%s)" % name,
                "        return ibex_file_raise(%s, MPI_ERR_ARG, e->call, \"%s is NULL\");" % (fh, name)]
    if fh:
        return ["    if (%s < 0)" % name,
                wrap("        return ibex_file_raise(%s, MPI_ERR_COUNT, e->call, \"invalid count %%d "
                     "(negative)\", %s);" % (fh, name), "            ")]
    if KINDS[kind][1] == "null":
        return ["    if (!%s)" % name,
                "        return ibex_mpi_error(e->comm, MPI_ERR_ARG, e->call, \"%s is NULL\");" % name]
    return ["    if (%s < 0)" % name,
            "        return ibex_check_count(e->comm, e->call, %s);" % name]


def args_function(fn):
    checked = fn.checked()
    first = ["const ibex_entry_t *e"]
    if fn.file_handle() not in (None, "MPI_FILE_NULL"):
        first.append("MPI_File " + fn.file_handle())  # IBEX_ARGS(File_X, fh, ...)
    params = ", ".join(first + [KINDS[k][0].format(n) for k, n in checked])
    out = [wrap("static inline int ibex_args_%s(%s)" % (fn.name, params)), "{"]
    for kind, name in checked:
        out += check_lines(fn, kind, name)
    out += ["    return MPI_SUCCESS;", "}", ""]
    return out


def internal_h(funcs):
    out = [HEADER, "#ifndef IBEX_MPI_GEN_H", "#define IBEX_MPI_GEN_H", ""]
    out.append("/* PMPI -> MPI weak aliases, one macro per runtime/mpi file (at its end). */")
    files = []
    for fn in funcs:
        if fn.file not in files:
            files.append(fn.file)
    for file in files:
        stem = os.path.splitext(file)[0]
        pragmas = []
        for f in funcs:
            if f.file == file:
                pragmas.append('_Pragma("weak MPI_%s = PMPI_%s")' % (f.name, f.name))
            if f.file == file and f.native:
                pragmas.append('_Pragma("weak MPI_%s_c = PMPI_%s_c")' % (f.name, f.name))
        out.append("#define IBEX_MPI_ALIASES_%s \\\n    %s" % (stem, " \\\n    ".join(pragmas)))
    out += ["", "/* MPI-IO (runtime/io/file_err.c): raises an error on the handler of file fh",
            " * (MPI_FILE_NULL: the default file handler) and returns the class. */",
            "int ibex_file_raise(MPI_File fh, int errclass, const char *call, const char *fmt, ...)",
            "    __attribute__((format(printf, 4, 5)));",
            "/* MPI-IO large counts (runtime/io/file_large.c): count as the int call takes it, or",
            " * 1 of a new committed contiguous type in *dt_p (free it when it is not datatype). */",
            "int ibex_file_large_type(MPI_File fh, const char *call, MPI_Count count,",
            "                         MPI_Datatype datatype, int *count_p, MPI_Datatype *dt_p);"]
    out += ["", "/* Uniform argument checks by kind (mpi.def): MPI_SUCCESS or the raised class. */"]
    for fn in funcs:
        if fn.checked():
            out += args_function(fn)
    out += ["#endif", ""]
    return "\n".join(out)


LARGE_HEAD = """#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>

#include "ibex_comm.h"
#include "ibex_entry.h"

/* A count of a large-count call that does not fit the int its int form counts in. */
static int large_count_error(const ibex_entry_t *e, const char *param, MPI_Count n)
{
    return ibex_mpi_error(e->comm, MPI_ERR_COUNT, e->call,
                          "%s %lld does not fit in an int: Ibex takes counts up to %d", param,
                          (long long)n, INT_MAX);
}

/* A per-rank array (counts or displacements) of a large-count call as ints, in *out_p (free
 * it): one per rank of the group it describes, the remote group on an intercommunicator unless
 * `local` (Reduce_scatter's recvcounts describe the local group). NULL stays NULL (non-roots
 * may pass it), as does everything when the communicator is bad: the int call then reports what
 * is wrong. */
__attribute__((unused)) static int large_array(const ibex_entry_t *e, const char *param,
                                               const void *in, bool aint, bool local, int **out_p)
{
    *out_p = NULL;
    if (!in || !e->comm)
        return MPI_SUCCESS;
    int n = ibex_comm_is_inter(e->comm) && !local ? e->comm->peer_size : e->comm->size;
    int *out = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!out)
        return ibex_mpi_error(e->comm, MPI_ERR_NO_MEM, e->call, "out of memory for %s", param);
    for (int i = 0; i < n; i++) {
        long long v = aint ? (long long)((const MPI_Aint *)in)[i]
                           : (long long)((const MPI_Count *)in)[i];
        if (v < INT_MIN || v > INT_MAX) {
            free(out);
            return large_count_error(e, param, v);
        }
        out[i] = (int)v;
    }
    *out_p = out;
    return MPI_SUCCESS;
}
"""


def large_function(fn):
    out = [wrap(fn.decl("PMPI_", "_c")), "{", "    IBEX_ENTER(%s_c);" % fn.name]
    comms = [n for k, n in fn.params if k == "comm"]
    if comms:
        out.append("    ibex_e.comm = ibex_comm_get(%s); /* NULL if bad: the int call says so */"
                   % comms[0])
    fh = fn.file_handle()
    if fh:
        return out + large_file_call(fn, fh)
    for kind, name in fn.params:
        if kind == "count":
            out += ["    if (%s < INT_MIN || %s > INT_MAX)" % (name, name),
                    "        return large_count_error(&ibex_e, \"%s\", %s);" % (name, name)]
    arrays = [(k, n) for k, n in fn.params if k in ARRAY_KINDS]
    if arrays:
        return out + large_array_call(fn, arrays)
    args = ", ".join("(int)" + n if k == "count" else n for k, n in fn.params)
    out += [wrap("    return PMPI_%s(%s);" % (fn.name, args), "        "), "}", "",
            "#pragma weak MPI_%s_c = PMPI_%s_c" % (fn.name, fn.name), ""]
    return out


def large_file_call(fn, fh):
    """The rest of an MPI-IO _c body: a count past an int becomes one element of a contiguous
    type of them (ibex_file_large_type, runtime/io/file_large.c), freed after the int call (every
    access, non-blocking ones too, completes at its call)."""
    count = next(n for k, n in fn.params if k == "count")
    dt = next(n for k, n in fn.params if k == "datatype")
    args = ", ".join(n + "_i" if n in (count, dt) else n for _, n in fn.params)
    return ["    int %s_i;" % count, "    MPI_Datatype %s_i;" % dt,
            wrap("    IBEX_CHECK(ibex_file_large_type(%s, ibex_e.call, %s, %s, &%s_i, &%s_i));"
                 % (fh, count, dt, count, dt), "        "),
            wrap("    int rc = PMPI_%s(%s);" % (fn.name, args), "        "),
            "    if (%s_i != %s)" % (dt, dt), "        PMPI_Type_free(&%s_i);" % dt,
            "    return rc;", "}", "", "#pragma weak MPI_%s_c = PMPI_%s_c" % (fn.name, fn.name), ""]


def large_array_skip(fn, name):
    """When an array of a _c call is not significant (and may be anything, so it is not read):
    with a root (Gatherv, Scatterv) every array is the root's; without one, the send-side
    arrays (send*, sdispls) are ignored when sendbuf is MPI_IN_PLACE (Alltoallv / w)."""
    roots = [n for k, n in fn.params if k == "root"]
    if roots:  # on an intercommunicator the root passes MPI_ROOT
        return ("ibex_e.comm && (ibex_comm_is_inter(ibex_e.comm) ? %s != MPI_ROOT"
                " : ibex_e.comm->rank != %s)" % (roots[0], roots[0]))
    if (name.startswith("send") or name == "sdispls") and any(n == "sendbuf" for _, n in fn.params):
        return "sendbuf == MPI_IN_PLACE"
    return None


def large_array_call(fn, arrays):
    """The rest of a _c body with per-rank arrays: convert each (those not significant stay
    NULL), call, free."""
    out = ["    int %s;" % ", ".join("*%s_i = NULL" % n for _, n in arrays), "    int rc = MPI_SUCCESS;"]
    for kind, name in arrays:
        skip = large_array_skip(fn, name)
        src = "%s ? NULL : %s" % (skip, name) if skip else name
        out += ["    if (rc == MPI_SUCCESS)",
                wrap("        rc = large_array(&ibex_e, \"%s\", %s, %s, %s, &%s_i);" % (
                    name, src, "true" if kind == "displs" else "false",
                    "true" if fn.name.startswith(("Reduce_scatter", "Ireduce_scatter")) else "false",
                    name), "            ")]
    args = ", ".join("(int)" + n if k == "count" else (n + "_i" if k in ARRAY_KINDS else n)
                     for k, n in fn.params)
    out += ["    if (rc == MPI_SUCCESS)", wrap("        rc = PMPI_%s(%s);" % (fn.name, args),
                                                   "            ")]
    out += ["    free(%s_i);" % n for _, n in arrays]
    out += ["    return rc;", "}", "", "#pragma weak MPI_%s_c = PMPI_%s_c" % (fn.name, fn.name),
            ""]
    return out


def large_c(funcs):
    out = [HEADER, LARGE_HEAD]
    for fn in funcs:
        if fn.large and not fn.native:
            out += large_function(fn)
    return "\n".join(out)


def write(path, text):
    """Writes through a temporary file so that an interrupted build leaves no half header."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv):
    outputs = {"proto": proto_h, "internal": internal_h, "large": large_c}
    if len(argv) != 4 or argv[2] not in outputs:
        sys.exit("usage: gen_bindings.py DEF proto|internal|large OUT")
    write(argv[3], outputs[argv[2]](parse(argv[1])))


if __name__ == "__main__":
    main(sys.argv)
